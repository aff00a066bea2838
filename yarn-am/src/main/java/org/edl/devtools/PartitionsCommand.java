package org.edl.devtools;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.edl.bench.partitions.PartitionBench;
import org.edl.bench.partitions.PartitionReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code edl bench partitions}: one job per seed on the multi-host cluster under a seeded network
 * partition (the leader cut from its followers or from ZooKeeper, one ring link cut one way, a
 * ZooKeeper minority or the quorum cut off, the AM cut from the ResourceManager); whether each
 * run kept EDL's promises; to partitions.csv and partitions.png. Needs root and iproute2, as
 * {@code edl cluster --hosts} does. Exits 1 when a run broke a promise.
 */
@Command(name = "partitions", mixinStandardHelpOptions = true, description = "One job per seed on the multi-host"
    + " cluster under a seeded network partition: one leader, every sample once, the model, the failures it costs"
    + " and no more; writes partitions.csv and partitions.png.")
final class PartitionsCommand implements Callable<Integer> {
  @Option(names = "--seeds", defaultValue = "" + PartitionBench.Options.DEFAULT_SEEDS,
      description = "Runs, one per seed; the six kinds of partition take turns (default: ${DEFAULT-VALUE}).")
  int seeds;
  @Option(names = "--first-seed", defaultValue = "1",
      description = "The first seed; the others follow it (default: ${DEFAULT-VALUE}).")
  long firstSeed;
  @Option(names = "--steps", defaultValue = "" + PartitionBench.Options.DEFAULT_STEPS,
      description = "Steps of each job (default: ${DEFAULT-VALUE}).")
  long steps;
  @Option(names = "--workers", defaultValue = "" + PartitionBench.Options.DEFAULT_WORKERS,
      description = "Workers of each job, 3 or more; the cluster gets one host more for a replacement"
          + " (default: ${DEFAULT-VALUE}).")
  int workers;
  @Option(names = "--sync-timeout-ms", defaultValue = "" + PartitionBench.Options.DEFAULT_SYNC_TIMEOUT_MS,
      description = "The jobs' sync timeout (default: ${DEFAULT-VALUE}).")
  long syncTimeoutMs;
  @Option(names = "--session-timeout-ms", defaultValue = "" + PartitionBench.Options.DEFAULT_SESSION_TIMEOUT_MS,
      description = "The workers' ZooKeeper session timeout (default: ${DEFAULT-VALUE}).")
  long sessionTimeoutMs;
  @Option(names = "--am-expiry-ms", defaultValue = "" + PartitionBench.Options.DEFAULT_AM_EXPIRY_MS,
      description = "The ResourceManager's AM liveness expiry (default: ${DEFAULT-VALUE}).")
  long amExpiryMs;
  @Option(names = "--expected-seconds", defaultValue = "" + PartitionBench.Options.DEFAULT_EXPECTED_SECONDS,
      description = "A job's training time without a cut here; cuts fall between 20% and 60% of it"
          + " (default: ${DEFAULT-VALUE}).")
  double expectedSeconds;
  @Option(names = "--dir", defaultValue = "/tmp/edl-bench-partitions",
      description = "Where the cluster keeps its files; removed first (default: ${DEFAULT-VALUE}).")
  Path dir;
  @Option(names = "--yarn-jar", description = "The jar the jobs' containers run (default: the yarn jar of this"
      + " checkout, yarn-am/target/dist/edl-am-<version>.jar).")
  Path yarnJar;
  @Option(names = "--out", defaultValue = "docs/benchmarks",
      description = "Where partitions.csv and partitions.png go (default: ${DEFAULT-VALUE}).")
  Path out;
  @Option(names = "--replot", description = "Redraw the chart from this partitions.csv of an earlier run"
      + " instead of running the benchmark.")
  Path replot;

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter console = spec.commandLine().getOut();
    PartitionReport report;
    if (replot != null) {
      report = ReplotFile.read(replot, PartitionReport::readCsv);
    } else {
      Path jar = yarnJar != null ? yarnJar : checkoutsYarnJar(Path.of(System.getProperty("edl.home", ".")));
      report = new PartitionReport(new PartitionBench(new PartitionBench.Options(seeds, firstSeed, steps, workers,
          syncTimeoutMs, sessionTimeoutMs, amExpiryMs, expectedSeconds, dir, jar), console).run());
      report.writeCsv(out.resolve("partitions.csv"));
    }
    report.writeChart(out.resolve("partitions.png"));
    console.println(report.summary());
    console.println("Wrote " + (replot == null ? out.resolve("partitions.csv") + " and " : "")
        + out.resolve("partitions.png"));
    return replot != null || report.rows().stream().allMatch(r -> r.asPromised()) ? 0 : 1;
  }

  /** yarn-am/target/dist/edl-am-*.jar of the checkout; the path of a missing one, which the options refuse. */
  static Path checkoutsYarnJar(Path home) throws java.io.IOException {
    Path dist = home.resolve("yarn-am/target/dist");
    if (java.nio.file.Files.isDirectory(dist)) {
      try (var jars = java.nio.file.Files.list(dist)) {
        java.util.Optional<Path> jar = jars.filter(p -> p.getFileName().toString().matches("edl-am-.*\\.jar"))
            .findFirst();
        if (jar.isPresent()) {
          return jar.get();
        }
      }
    }
    return dist.resolve("edl-am.jar");
  }
}
