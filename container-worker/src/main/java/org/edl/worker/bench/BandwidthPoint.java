package org.edl.worker.bench;

import java.io.IOException;
import java.io.Writer;
import java.util.List;
import java.util.Locale;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/** One line of allreduce.csv: bandwidths in GB/s (1e9 bytes per second), as NCCL-tests print them. */
public record BandwidthPoint(int members, long bytes, String impl, double algbwGbps, double busbwGbps) {
  public static final String CSV_HEADER = "members,bytes,impl,algbw_gbps,busbw_gbps";
  /** RFC 4180 with {@code \n} line ends, as the committed docs/benchmarks/allreduce.csv has them. */
  private static final CSVFormat FORMAT = CSVFormat.DEFAULT.builder().setRecordSeparator('\n').build();

  /**
   * NCCL-tests' all-reduce numbers: algbw = bytes / time; busbw = algbw * 2(n-1)/n, the rate
   * every link must sustain, comparable across member counts and to a single link's limit.
   */
  public static BandwidthPoint allReduce(int members, long bytes, String impl, double seconds) {
    double algbw = bytes / seconds / 1e9;
    return new BandwidthPoint(members, bytes, impl, algbw, algbw * 2.0 * (members - 1) / members);
  }

  /** One stream between two endpoints: bus and algorithm bandwidth are the same thing. */
  public static BandwidthPoint stream(long bytes, String impl, double seconds) {
    double bw = bytes / seconds / 1e9;
    return new BandwidthPoint(2, bytes, impl, bw, bw);
  }

  /** This point as one CSV line, without its line end. */
  public String csv() {
    return FORMAT.format(fields().toArray());
  }

  /** Writes {@code allreduce.csv}: the header, then one line per point. */
  public static void writeCsv(List<BandwidthPoint> points, Writer out) throws IOException {
    try (CSVPrinter csv = FORMAT.print(out)) {
      csv.printRecord((Object[]) CSV_HEADER.split(","));
      for (BandwidthPoint p : points) {
        csv.printRecord(p.fields());
      }
    }
  }

  private List<Object> fields() {
    return List.of(members, bytes, impl, String.format(Locale.ROOT, "%.4f", algbwGbps),
        String.format(Locale.ROOT, "%.4f", busbwGbps));
  }
}
