package org.edl.worker.bench;

import java.util.Locale;

/** One line of allreduce.csv: bandwidths in GB/s (1e9 bytes per second), as NCCL-tests print them. */
public record BandwidthPoint(int members, long bytes, String impl, double algbwGbps, double busbwGbps) {
  public static final String CSV_HEADER = "members,bytes,impl,algbw_gbps,busbw_gbps";

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

  public String csv() {
    return String.format(Locale.ROOT, "%d,%d,%s,%.4f,%.4f", members, bytes, impl, algbwGbps, busbwGbps);
  }
}
