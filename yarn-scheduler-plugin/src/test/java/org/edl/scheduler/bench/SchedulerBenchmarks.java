package org.edl.scheduler.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs the scheduler plugin's JMH benchmarks and writes {@code case,impl,ops_per_s}.
 *
 * <p>Usage: {@code SchedulerBenchmarks <csv> [forks warmups iterations seconds]}.
 */
public final class SchedulerBenchmarks {
  private SchedulerBenchmarks() {}

  public static void main(String[] args) throws RunnerException, IOException {
    Path csv = Path.of(args.length > 0 ? args[0] : "docs/benchmarks/scheduler.csv");
    int forks = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    int warmups = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    int iterations = args.length > 3 ? Integer.parseInt(args[3]) : 5;
    int seconds = args.length > 4 ? Integer.parseInt(args[4]) : 2;
    Options opts = new OptionsBuilder()
        .include(QueueSortBenchmark.class.getSimpleName())
        .include(PreemptionPlanBenchmark.class.getSimpleName())
        .forks(forks)
        .warmupIterations(warmups)
        .warmupTime(org.openjdk.jmh.runner.options.TimeValue.seconds(seconds))
        .measurementIterations(iterations)
        .measurementTime(org.openjdk.jmh.runner.options.TimeValue.seconds(seconds))
        .jvmArgsAppend("-Xmx2g")
        .build();
    Collection<RunResult> results = new Runner(opts).run();
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("case", "impl", "ops_per_s"));
    for (RunResult r : results) {
      String bench = r.getParams().getBenchmark();
      double score = r.getPrimaryResult().getScore();
      List<String> row;
      if (bench.endsWith("sortUserQueues")) {
        String impl = r.getParams().getParam("impl");
        row = switch (impl) {
          case "edl" -> List.of("sort_1000_user_queues", "edl");
          case "drf" -> List.of("sort_1000_user_queues", "stock");
          default -> List.of("sort_1000_user_queues_fairshare", "stock");
        };
      } else {
        row = List.of("preemption_plan_1000u_1000n_100000c", "edl");
      }
      rows.add(List.of(row.get(0), row.get(1), String.format(Locale.ROOT, "%.1f", score)));
    }
    Files.createDirectories(csv.toAbsolutePath().getParent());
    CSVFormat format = CSVFormat.DEFAULT.builder().setRecordSeparator('\n').build();
    try (CSVPrinter printer = format.print(Files.newBufferedWriter(csv))) {
      printer.printRecords(rows);
    }
    System.out.print(Files.readString(csv));
  }
}
