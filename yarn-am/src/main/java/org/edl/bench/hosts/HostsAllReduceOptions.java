package org.edl.bench.hosts;

import java.nio.file.Path;
import java.util.List;
import org.edl.job.InvalidInputException;

/**
 * What {@code edl bench allreduce --hosts N} runs: each layout (members per host) on {@code hosts}
 * simulated hosts whose links are capped at {@code linkGbit}, at each size.
 *
 * @param iterations timed iterations per point (ten times as many under 1 MiB, as gloo's script counts)
 * @param python     the interpreter for gloo's members (one that imports torch with gloo)
 */
public record HostsAllReduceOptions(int hosts, List<Integer> membersPerHost, double linkGbit, List<Long> sizes,
    int iterations, int warmup, int chunkBytes, Path outDir, String python) {
  public static final int MAX_HOSTS = 16;
  public static final int MAX_MEMBERS_PER_HOST = 4;
  /** Far above what one machine's veth pairs carry; a typo such as 1000 for 1 is caught here. */
  public static final double MAX_LINK_GBIT = 100;

  public HostsAllReduceOptions {
    membersPerHost = List.copyOf(membersPerHost);
    sizes = List.copyOf(sizes);
    if (hosts < 2 || hosts > MAX_HOSTS) {
      throw new InvalidInputException("hosts", hosts, "must be between 2 and " + MAX_HOSTS
          + " (a ring between hosts needs two)");
    }
    if (membersPerHost.isEmpty()) {
      throw new InvalidInputException("members-per-host", "", "needs at least one count");
    }
    for (int m : membersPerHost) {
      if (m < 1 || m > MAX_MEMBERS_PER_HOST) {
        throw new InvalidInputException("members-per-host", m, "must be between 1 and " + MAX_MEMBERS_PER_HOST);
      }
    }
    if (!(linkGbit > 0 && linkGbit <= MAX_LINK_GBIT)) {
      throw new InvalidInputException("link-gbit", linkGbit, "must be above 0 and at most " + MAX_LINK_GBIT);
    }
    if (iterations < 1) {
      throw new InvalidInputException("iterations", iterations, "must be at least 1");
    }
    if (warmup < 0) {
      throw new InvalidInputException("warmup", warmup, "must be 0 or more");
    }
    if (sizes.isEmpty()) {
      throw new InvalidInputException("sizes", "", "needs at least one size");
    }
  }

  /** Timed iterations at {@code bytes}: small messages are cheap and noisy, so run more (as gloo_allreduce.py). */
  public int iterationsFor(long bytes) {
    return bytes < (1 << 20) ? iterations * 10 : iterations;
  }

  /** The link's rate in GB/s (1e9 bytes/s), the unit of the CSV's busbw. */
  public double linkGbps() {
    return linkGbit / 8;
  }
}
