package org.edl.bench.hosts;

import java.io.IOException;
import java.io.Writer;
import java.util.List;
import java.util.Locale;
import org.apache.commons.csv.CSVPrinter;
import org.edl.bench.BenchCsv;

/**
 * One line of {@code allreduce-hosts.csv}: the bus bandwidth of one implementation with {@code
 * members} members spread over {@code hosts} hosts, in GB/s (1e9 bytes/s, as {@code allreduce.csv}
 * has it), against links capped at {@code linkGbit} Gbit/s.
 */
public record HostsBandwidthRow(int members, int hosts, long bytes, String impl, double linkGbit, double busbwGbps) {
  public static final String HEADER = "members,hosts,bytes,impl,link_gbit,busbw_gbps";

  /** NCCL-tests' bus bandwidth: {@code 2(n-1)/n x bytes / seconds}, what each link must carry. */
  public static HostsBandwidthRow of(int members, int hosts, long bytes, String impl, double linkGbit, double seconds) {
    return new HostsBandwidthRow(members, hosts, bytes, impl, linkGbit,
        bytes / seconds / 1e9 * 2.0 * (members - 1) / members);
  }

  /** The fraction of the capped link this bus bandwidth is. */
  public double ofLink() {
    return busbwGbps * 8 / linkGbit;
  }

  public static void writeCsv(List<HostsBandwidthRow> rows, Writer out) throws IOException {
    try (CSVPrinter csv = BenchCsv.FORMAT.print(out)) {
      csv.printRecord((Object[]) HEADER.split(","));
      for (HostsBandwidthRow r : rows) {
        csv.printRecord(r.members, r.hosts, r.bytes, r.impl, String.format(Locale.ROOT, "%s", r.linkGbit),
            String.format(Locale.ROOT, "%.4f", r.busbwGbps));
      }
    }
  }
}
