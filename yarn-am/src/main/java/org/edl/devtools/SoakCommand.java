package org.edl.devtools;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.edl.bench.soak.SoakBench;
import org.edl.bench.soak.SoakReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code edl bench soak}: one job through many scale operations on the embedded cluster; what
 * its processes, ZooKeeper and HDFS hold after every so many, to soak.csv and soak.png. Exits 1
 * when the end-of-run checks (every sample once, one set of parameters) fail.
 */
@Command(name = "soak", mixinStandardHelpOptions = true, description = "One job through many scale operations:"
    + " threads, descriptors, heaps, ZooKeeper nodes and HDFS files after every so many; writes soak.csv and soak.png.")
final class SoakCommand implements Callable<Integer> {
  @Option(names = "--operations", defaultValue = "" + SoakBench.Options.DEFAULT_OPERATIONS,
      description = "Scale operations in all (default: ${DEFAULT-VALUE}).")
  int operations;
  @Option(names = "--sample-every", defaultValue = "" + SoakBench.Options.DEFAULT_SAMPLE_EVERY,
      description = "A sample after every N operations (default: ${DEFAULT-VALUE}).")
  int sampleEvery;
  @Option(names = "--backend", defaultValue = "cpu",
      description = "cpu or emulated (default: ${DEFAULT-VALUE}: parameters that change, so that their equality"
          + " at the end means something).")
  String backend;
  @Option(names = "--model", defaultValue = "mlp",
      description = "softmax or mlp on the CPU, a profiled model when emulated (default: ${DEFAULT-VALUE}).")
  String model;
  @Option(names = "--seed", defaultValue = "1", description = "Seed of the walk of sizes (default: ${DEFAULT-VALUE}).")
  long seed;
  @Option(names = "--max-minutes", defaultValue = "0",
      description = "Start no operation after this many minutes, then sample, stop and check the job as after"
          + " the last one (default: ${DEFAULT-VALUE}, no limit).")
  long maxMinutes;
  @Option(names = "--out", defaultValue = "docs/benchmarks",
      description = "Where soak.csv and soak.png go (default: ${DEFAULT-VALUE}).")
  Path out;
  @Option(names = "--replot", description = "Redraw the chart and table from this soak.csv of an earlier run"
      + " instead of running the benchmark.")
  Path replot;

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter console = spec.commandLine().getOut();
    SoakReport report;
    boolean ok = true;
    if (replot != null) {
      report = ReplotFile.read(replot, SoakReport::readCsv);
    } else {
      SoakBench.Result result = new SoakBench(SoakBench.Options.of(operations, sampleEvery, backend, model, seed,
          java.time.Duration.ofMinutes(maxMinutes)),
          console).run();
      report = new SoakReport(result.samples());
      ok = result.checks().ok();
      report.writeCsv(out.resolve("soak.csv"));
    }
    report.writeChart(out.resolve("soak.png"));
    console.println(report.table());
    console.println("Wrote " + (replot == null ? out.resolve("soak.csv") + " and " : "") + out.resolve("soak.png"));
    return ok ? 0 : 1;
  }

}
