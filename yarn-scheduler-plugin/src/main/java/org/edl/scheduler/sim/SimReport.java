package org.edl.scheduler.sim;

import java.awt.Color;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.commons.csv.CSVPrinter;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.data.xy.DefaultTableXYDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Writes what a run produced: {@code jobs.csv} (one row per job and policy), {@code summary.csv},
 * PNG charts made with JFreeChart (JCT CDF; GPU utilisation and cluster efficiency over time;
 * per-user GPUs under the fair policy) and {@code report.html} tying them together.
 *
 * <p>Cluster efficiency is the cluster's useful work rate: the sum over running jobs of their
 * speed-up at the GPUs they hold (throughput over one GPU's), divided by the cluster's GPUs. A
 * GPU that is busy but adds little speed counts for little, and a job paying a start, a resume or
 * a scale operation's pause counts for nothing while it does (its GPUs still count as busy).
 */
public final class SimReport {
  private static final int W = 900;
  private static final int H = 450;
  private final Trace trace;
  private final SimOptions options;
  private final List<SimResult> results;

  public SimReport(Trace trace, SimOptions options, List<SimResult> results) {
    this.trace = trace;
    this.options = options;
    this.results = List.copyOf(results);
  }

  public void write(Path dir) throws IOException {
    System.setProperty("java.awt.headless", "true");
    Files.createDirectories(dir);
    writeJobs(dir.resolve("jobs.csv"));
    Files.writeString(dir.resolve("summary.csv"), summaryCsv(results));
    ChartUtils.saveChartAsPNG(dir.resolve("jct-cdf.png").toFile(), jctCdf(), W, H);
    ChartUtils.saveChartAsPNG(dir.resolve("utilisation.png").toFile(), overTime(false), W, H);
    ChartUtils.saveChartAsPNG(dir.resolve("efficiency.png").toFile(), overTime(true), W, H);
    boolean fair = results.stream().anyMatch(r -> r.policy().equals("fair"));
    if (fair) {
      ChartUtils.saveChartAsPNG(dir.resolve("fair-user-gpus.png").toFile(), userShares(), W, H);
    }
    Files.writeString(dir.resolve("report.html"), html(fair));
  }

  private void writeJobs(Path f) throws IOException {
    try (BufferedWriter w = Files.newBufferedWriter(f); CSVPrinter csv = CsvRows.printer(w)) {
      csv.printRecord("policy", "job", "user", "model", "gpus", "submit_s", "start_s", "finish_s", "jct_s", "wait_s",
          "scale_ops", "preemptions");
      for (SimResult r : results) {
        for (SimResult.SimJobResult j : r.jobs()) {
          csv.printRecord(r.policy(), j.id(), j.user(), String.valueOf(j.model()), j.gpus(), tenth(j.submitS()),
              tenth(j.startS()), tenth(j.finishS()), tenth(j.jctS()), tenth(j.startS() - j.submitS()), j.scaleOps(),
              j.preemptions());
        }
      }
    }
  }

  static String summaryCsv(List<SimResult> results) throws IOException {
    StringBuilder b = new StringBuilder();
    try (CSVPrinter csv = CsvRows.printer(b)) {
      csv.printRecord("policy", "cluster_gpus", "scaling", "jobs", "avg_jct_s", "median_jct_s", "p95_jct_s",
          "p99_jct_s", "makespan_s", "mean_gpu_util", "cluster_efficiency", "events", "wall_s");
      for (SimResult r : results) {
        double[] s = r.sortedJct();
        csv.printRecord(r.policy(), r.clusterGpus(), r.mechanism(), s.length, tenth(r.averageJct()),
            tenth(SimResult.quantile(s, 0.5)), tenth(SimResult.quantile(s, 0.95)), tenth(SimResult.quantile(s, 0.99)),
            tenth(r.makespanS()), fixed(4, r.meanUtilisation()), fixed(4, r.meanEfficiency()), r.events(),
            fixed(2, r.wallS()));
      }
    }
    return b.toString();
  }

  private static String tenth(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  private static String fixed(int decimals, double v) {
    return String.format(Locale.ROOT, "%." + decimals + "f", v);
  }

  /**
   * The summary as a Markdown table. Durations are shown in the largest unit that keeps them
   * readable (s, min, h or d; for the JCT columns the one the smallest average JCT fills twice
   * over, for the makespan the one the longest fills), so that a short run does not read "0.00 h"
   * and "1.0 d" everywhere.
   */
  public static String summaryTable(List<SimResult> results) {
    double shortestAverage = Double.POSITIVE_INFINITY;
    double longestRun = 0;
    for (SimResult r : results) {
      shortestAverage = Math.min(shortestAverage, r.averageJct());
      longestRun = Math.max(longestRun, r.makespanS());
    }
    // The unit that reads the best policy's average JCT, the figure a comparison turns on.
    Unit jct = Unit.of(results.isEmpty() ? 0 : shortestAverage);
    Unit run = Unit.of(longestRun);
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
        "| policy | GPUs | jobs | avg JCT (%1$s) | median (%1$s) | p95 (%1$s) | p99 (%1$s) | makespan (%2$s) | GPU util"
            + " | efficiency |%n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|%n", jct.symbol, run.symbol));
    for (SimResult r : results) {
      double[] s = r.sortedJct();
      b.append(String.format(Locale.ROOT, "| %s | %d | %d | %.2f | %.2f | %.2f | %.1f | %.1f | %.1f%% | %.1f%% |%n",
          r.policy(), r.clusterGpus(), s.length, r.averageJct() / jct.seconds, SimResult.quantile(s, 0.5) / jct.seconds,
          SimResult.quantile(s, 0.95) / jct.seconds, SimResult.quantile(s, 0.99) / jct.seconds,
          r.makespanS() / run.seconds, 100 * r.meanUtilisation(), 100 * r.meanEfficiency()));
    }
    return b.toString();
  }

  /** A unit for durations up to some longest one: the largest in which it is still at least 2. */
  enum Unit {
    S("s", 1), MIN("min", 60), H("h", 3600), D("d", 86400);

    final String symbol;
    final double seconds;

    Unit(String symbol, double seconds) {
      this.symbol = symbol;
      this.seconds = seconds;
    }

    static Unit of(double longestSeconds) {
      Unit chosen = S;
      for (Unit u : values()) {
        if (longestSeconds >= 2 * u.seconds) {
          chosen = u;
        }
      }
      return chosen;
    }
  }

  private JFreeChart jctCdf() {
    XYSeriesCollection data = new XYSeriesCollection();
    for (SimResult r : results) {
      XYSeries s = new XYSeries(r.policy(), false, true);
      double[] jct = r.sortedJct();
      int points = Math.min(jct.length, 400);
      for (int i = 1; i <= points; i++) {
        double q = (double) i / points;
        s.add(Math.max(1, SimResult.quantile(jct, q)), q);
      }
      data.addSeries(s);
    }
    JFreeChart c = ChartFactory.createXYLineChart("JCT CDF, " + gpus(), "JCT (s, log)", "fraction of jobs", data,
        PlotOrientation.VERTICAL, true, false, false);
    XYPlot p = c.getXYPlot();
    LogAxis x = new LogAxis("JCT (s, log)");
    x.setSmallestValue(1);
    p.setDomainAxis(x);
    style(c);
    return c;
  }

  private JFreeChart overTime(boolean efficiency) {
    XYSeriesCollection data = new XYSeriesCollection();
    for (SimResult r : results) {
      XYSeries s = new XYSeries(r.policy(), false, true);
      double[] v = efficiency ? r.seriesEfficiency() : r.seriesUtilisation();
      int step = Math.max(1, v.length / 1500);
      for (int i = 0; i < v.length; i += step) {
        double sum = 0;
        int n = 0;
        for (int k = i; k < Math.min(v.length, i + step); k++, n++) {
          sum += v[k];
        }
        s.add(r.seriesTime()[i] / 86400, sum / n);
      }
      data.addSeries(s);
    }
    String what = efficiency ? "cluster efficiency" : "GPU utilisation";
    JFreeChart c = ChartFactory.createXYLineChart(what + " over time, " + gpus(), "simulated day", what, data,
        PlotOrientation.VERTICAL, true, false, false);
    style(c);
    return c;
  }

  private JFreeChart userShares() {
    SimResult r = results.stream().filter(x -> x.policy().equals("fair")).findFirst().orElseThrow();
    DefaultTableXYDataset data = new DefaultTableXYDataset();
    int step = Math.max(1, r.seriesTime().length / 1500);
    for (int u = 0; u < r.users().size(); u++) {
      XYSeries s = new XYSeries(r.users().get(u), false, false);
      for (int i = 0; i < r.seriesTime().length; i += step) {
        s.add(r.seriesTime()[i] / 86400, r.seriesUserGpus()[u][i]);
      }
      data.addSeries(s);
    }
    JFreeChart c = ChartFactory.createStackedXYAreaChart("GPUs held per user (virtual cluster) under fair, " + gpus(),
        "simulated day", "GPUs", data, PlotOrientation.VERTICAL, true, false, false);
    style(c);
    return c;
  }

  private String gpus() {
    return results.isEmpty() ? "" : results.get(0).clusterGpus() + " GPUs";
  }

  private static void style(JFreeChart c) {
    c.setBackgroundPaint(Color.WHITE);
    c.getXYPlot().setBackgroundPaint(Color.WHITE);
    c.getXYPlot().setDomainGridlinePaint(Color.LIGHT_GRAY);
    c.getXYPlot().setRangeGridlinePaint(Color.LIGHT_GRAY);
  }

  private String html(boolean fair) {
    StringBuilder b = new StringBuilder("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>EDL simulation</title>"
        + "<style>body{font-family:sans-serif;max-width:960px;margin:auto}table{border-collapse:collapse}"
        + "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}</style></head><body>\n");
    b.append("<h1>EDL trace simulation</h1>\n<p>Trace: ").append(esc(trace.source())).append(", ")
        .append(trace.jobs().size()).append(" jobs");
    if (trace.skipped() > 0) {
      b.append(" (").append(trace.skipped()).append(" bad records skipped)");
    }
    b.append(". Cluster: ").append(options.clusterGpus()).append(" GPUs. Scale operations cost the ")
        .append(options.mechanism().equals("edl") ? "measured EDL cost" : "measured stop-resume cost")
        .append(" (docs/benchmarks.md); a resumed job pays a stop-resume restart. Seed ").append(options.seed())
        .append(".</p>\n<table><tr><th>policy</th><th>jobs</th><th>avg JCT (h)</th><th>median (h)</th><th>p95 (h)</th>"
            + "<th>p99 (h)</th><th>makespan (d)</th><th>GPU util</th><th>efficiency</th></tr>\n");
    for (SimResult r : results) {
      double[] s = r.sortedJct();
      b.append(String.format(Locale.ROOT, "<tr><td>%s</td><td>%d</td><td>%.2f</td><td>%.2f</td><td>%.2f</td>"
              + "<td>%.1f</td><td>%.1f</td><td>%.1f%%</td><td>%.1f%%</td></tr>%n", esc(r.policy()), s.length,
          r.averageJct() / 3600, SimResult.quantile(s, 0.5) / 3600, SimResult.quantile(s, 0.95) / 3600,
          SimResult.quantile(s, 0.99) / 3600, r.makespanS() / 86400, 100 * r.meanUtilisation(),
          100 * r.meanEfficiency()));
    }
    b.append("</table>\n<p>Per job: <a href=\"jobs.csv\">jobs.csv</a>; summary: <a href=\"summary.csv\">summary.csv</a>.</p>\n");
    b.append("<h2>JCT distribution</h2><img src=\"jct-cdf.png\" alt=\"JCT CDF per policy\">\n");
    b.append("<h2>GPU utilisation</h2><img src=\"utilisation.png\" alt=\"GPU utilisation over time\">\n");
    b.append("<h2>Cluster efficiency</h2><p>Sum of training jobs' speed-ups at their GPU counts over the cluster's GPUs"
        + " (a job paying a start, resume or scale cost trains nothing meanwhile)."
        + "</p><img src=\"efficiency.png\" alt=\"cluster efficiency over time\">\n");
    if (fair) {
      b.append("<h2>Per-user GPUs under fair share</h2><img src=\"fair-user-gpus.png\" alt=\"GPUs per user\">\n");
    }
    return b.append("</body></html>\n").toString();
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
