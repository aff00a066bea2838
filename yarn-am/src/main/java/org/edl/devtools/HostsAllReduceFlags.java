package org.edl.devtools;

import java.util.ArrayList;
import java.util.List;
import org.edl.bench.hosts.HostsAllReduceOptions;
import org.edl.job.InvalidInputException;
import org.edl.worker.bench.AllReduceBenchOptions;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;

/**
 * The flags of {@code edl bench allreduce --hosts N}, the benchmark between simulated hosts. Values
 * stay text until {@link #toOptions}, so that an error names the flag and the value as typed.
 */
final class HostsAllReduceFlags {
  static final String HOSTS = "--hosts";
  private static final List<String> HOSTS_ONLY = List.of("--members-per-host", "--link-gbit", "--sizes");
  private static final List<String> ONE_HOST_ONLY = List.of("--members", "--max-bytes", "--gloo");

  @Option(names = HOSTS, paramLabel = "N", description = "run between N simulated hosts (network namespaces,"
      + " links capped at --link-gbit; needs root and iproute2) instead of in one JVM; writes allreduce-hosts.csv"
      + " and allreduce-hosts.png")
  String hosts;
  @Option(names = "--members-per-host", paramLabel = "N,N,...", defaultValue = "1,2",
      description = "with --hosts: ring members on each host, one layout each (default ${DEFAULT-VALUE})")
  String membersPerHost;
  @Option(names = "--link-gbit", paramLabel = "G", defaultValue = "1",
      description = "with --hosts: every host's link cap in Gbit/s, both ways (default ${DEFAULT-VALUE}, the"
          + " multi-host cluster's)")
  String linkGbit;
  @Option(names = "--sizes", paramLabel = "SIZE,...", defaultValue = "1MiB,16MiB,64MiB,256MiB",
      description = "with --hosts: message sizes (default ${DEFAULT-VALUE})")
  String sizes;

  boolean betweenHosts() {
    return hosts != null;
  }

  /**
   * The hosts benchmark's options, with {@code common}'s iterations, chunk size, output directory
   * and Python; a flag of the other mode is an error naming it.
   */
  HostsAllReduceOptions toOptions(CommandSpec spec, AllReduceBenchOptions common) {
    ParseResult given = spec.commandLine().getParseResult();
    for (String flag : ONE_HOST_ONLY) {
      if (given.hasMatchedOption(flag)) {
        throw new InvalidInputException(flag.substring(2), given.matchedOptionValue(flag, ""), "is for the one-host"
            + " benchmark; with --hosts use --members-per-host and --sizes (gloo always runs)");
      }
    }
    return new HostsAllReduceOptions(whole("hosts", hosts), counts(), gbit(), byteSizes(), common.iterations(), 2,
        common.chunkBytes(), common.outDir(), common.python());
  }

  /** Without {@code --hosts}: a flag of the hosts benchmark is an error naming it. */
  void checkUnused(CommandSpec spec) {
    ParseResult given = spec.commandLine().getParseResult();
    for (String flag : HOSTS_ONLY) {
      if (given.hasMatchedOption(flag)) {
        throw new InvalidInputException(flag.substring(2), given.matchedOptionValue(flag, ""),
            "needs --hosts N (the benchmark between simulated hosts)");
      }
    }
  }

  private List<Integer> counts() {
    List<Integer> list = new ArrayList<>();
    for (String part : membersPerHost.split(",")) {
      try {
        list.add(whole("members-per-host", part));
      } catch (InvalidInputException e) {
        throw new InvalidInputException("members-per-host", membersPerHost, "not a list of whole numbers");
      }
    }
    return list;
  }

  private double gbit() {
    try {
      return Double.parseDouble(linkGbit.strip());
    } catch (NumberFormatException e) {
      throw new InvalidInputException("link-gbit", linkGbit, "not a number (Gbit/s, e.g. 1 or 0.5)");
    }
  }

  private List<Long> byteSizes() {
    List<Long> list = new ArrayList<>();
    for (String part : sizes.split(",")) {
      long b = AllReduceBenchOptions.bytes("sizes", part);
      if (b < AllReduceBenchOptions.MIN_BYTES || b > AllReduceBenchOptions.LIMIT_BYTES || b % Float.BYTES != 0) {
        throw new InvalidInputException("sizes", part.strip(), "each must be a whole number of floats between 1KiB and"
            + " 1GiB");
      }
      list.add(b);
    }
    return list;
  }

  private static int whole(String field, String text) {
    try {
      return Integer.parseInt(text.strip());
    } catch (NumberFormatException e) {
      throw new InvalidInputException(field, text, "not a whole number");
    }
  }
}
