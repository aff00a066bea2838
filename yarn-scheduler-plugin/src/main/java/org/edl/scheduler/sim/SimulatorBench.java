package org.edl.scheduler.sim;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.commons.csv.CSVPrinter;
import org.edl.scheduler.core.policy.ClusterPolicy;

/**
 * {@code edl bench simulator}: wall time and peak heap of each policy over the whole trace at each
 * cluster size, and over the first 1/8, 1/4 and 1/2 of the trace at the first size, to show how
 * time grows with trace length. Writes {@code simulator.csv}
 * ({@code policy,cluster_gpus,jobs,avg_jct_s,p99_jct_s,wall_s,peak_heap_mib}).
 *
 * <p>Peak heap is the sum of the heap pools' peaks during the run (reset, after a GC, before it);
 * it includes the trace, which every run shares.
 */
public final class SimulatorBench {
  private SimulatorBench() {}

  public static void run(Path tracePath, Path profiles, List<Integer> clusterSizes, List<String> policies, Path outDir,
      PrintStream out, PrintStream err) throws IOException {
    long readStart = System.nanoTime();
    Trace trace = TraceReaders.read(tracePath, false);
    out.printf(Locale.ROOT, "read %d jobs in %.2f s%n", trace.jobs().size(), (System.nanoTime() - readStart) / 1e9);
    Map<String, ThroughputModel> models = ThroughputModel.readAll(profiles, 512);
    ThroughputModel[] assigned = ModelAssigner.assign(trace, models, 1);
    List<List<Object>> rows = new ArrayList<>();
    rows.add(List.of("policy", "cluster_gpus", "jobs", "avg_jct_s", "p99_jct_s", "wall_s", "peak_heap_mib"));
    out.println("| policy | GPUs | jobs | avg JCT (s) | p99 JCT (s) | wall (s) | events/s | peak heap (MiB) |");
    out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
    int n = trace.jobs().size();
    for (int size : clusterSizes) {
      List<Integer> lengths = size == clusterSizes.get(0) ? List.of(n / 8, n / 4, n / 2, n) : List.of(n);
      for (int len : lengths) {
        Trace t = len == n ? trace : trace.prefix(len);
        for (String p : policies) {
          SimOptions o = new SimOptions(tracePath, profiles, List.of(p), null, size, 1, "edl", false, false, 3600,
              org.edl.scheduler.core.policy.TiresiasParams.DEFAULT, 0.5, Map.of(), 0, false);
          ClusterPolicy policy = Simulation.policy(p, o);
          System.gc();
          List<MemoryPoolMXBean> heap = heapPools();
          heap.forEach(MemoryPoolMXBean::resetPeakUsage);
          SimResult r = new Simulator(t, java.util.Arrays.copyOf(assigned, len), policy,
              new SimConfig(size, 1, ScaleCosts.measured("edl"), false, 3600), new ProgressBar(err, p, len)).run();
          long peak = 0;
          for (MemoryPoolMXBean m : heap) {
            peak += m.getPeakUsage().getUsed();
          }
          double[] s = r.sortedJct();
          double mib = peak / (1024.0 * 1024);
          rows.add(List.of(p, size, len, String.format(Locale.ROOT, "%.1f", r.averageJct()),
              String.format(Locale.ROOT, "%.1f", SimResult.quantile(s, 0.99)),
              String.format(Locale.ROOT, "%.2f", r.wallS()), String.format(Locale.ROOT, "%.0f", mib)));
          out.printf(Locale.ROOT, "| %s | %d | %d | %.0f | %.0f | %.2f | %.0f | %.0f |%n", p, size, len, r.averageJct(),
              SimResult.quantile(s, 0.99), r.wallS(), r.events() / r.wallS(), mib);
        }
      }
    }
    Files.createDirectories(outDir);
    Path csv = outDir.resolve("simulator.csv");
    try (CSVPrinter printer = CsvRows.printer(Files.newBufferedWriter(csv))) {
      printer.printRecords(rows);
    }
    out.println("Wrote " + csv);
  }

  private static List<MemoryPoolMXBean> heapPools() {
    List<MemoryPoolMXBean> pools = new ArrayList<>();
    for (MemoryPoolMXBean m : ManagementFactory.getMemoryPoolMXBeans()) {
      if (m.getType() == MemoryType.HEAP) {
        pools.add(m);
      }
    }
    return pools;
  }
}
