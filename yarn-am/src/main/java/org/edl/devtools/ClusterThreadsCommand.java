package org.edl.devtools;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.edl.bench.soak.ClusterThreadsBench;
import org.edl.bench.soak.ClusterThreadsReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code edl bench cluster-threads}: the embedded cluster's threads by pool, job after job. */
@Command(name = "cluster-threads", mixinStandardHelpOptions = true, description = "Small jobs one after the other"
    + " on the embedded cluster; its threads by pool after each; writes cluster-threads.csv and .png.")
final class ClusterThreadsCommand implements Callable<Integer> {
  @Option(names = "--jobs", defaultValue = "30", description = "Jobs to run (default: ${DEFAULT-VALUE}).")
  int jobs;
  @Option(names = "--out", defaultValue = "docs/benchmarks",
      description = "Where cluster-threads.csv and .png go (default: ${DEFAULT-VALUE}).")
  Path out;
  @Option(names = "--replot", description = "Redraw the chart and table from this cluster-threads.csv of an"
      + " earlier run instead of running the benchmark.")
  Path replot;
  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter console = spec.commandLine().getOut();
    ClusterThreadsReport report;
    if (replot != null) {
      report = ReplotFile.read(replot, ClusterThreadsReport::readCsv);
    } else {
      report = new ClusterThreadsReport(new ClusterThreadsBench(jobs, console).run());
    }
    report.writeCsv(out.resolve("cluster-threads.csv"));
    report.writeChart(out.resolve("cluster-threads.png"));
    console.println(report.table());
    console.println("Wrote " + out.resolve("cluster-threads.csv") + " and " + out.resolve("cluster-threads.png"));
    return 0;
  }
}
