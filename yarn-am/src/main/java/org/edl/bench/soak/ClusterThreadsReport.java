package org.edl.bench.soak;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import org.edl.bench.BenchCsv;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * {@code cluster-threads.csv} (one row per census and pool: {@code jobs,pool,threads}), a table of
 * the pools that changed, and a chart of the total and of those pools against the jobs finished.
 */
public final class ClusterThreadsReport {
  public static final String CSV_HEADER = "jobs,pool,threads";
  private final List<ClusterThreadsBench.Point> points;

  public ClusterThreadsReport(List<ClusterThreadsBench.Point> points) {
    this.points = List.copyOf(points);
  }

  public void writeCsv(Path csv) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    for (ClusterThreadsBench.Point p : points) {
      p.pools().forEach((pool, n) -> rows.add(List.of(p.jobs(), pool, n)));
    }
    BenchCsv.write(csv, CSV_HEADER, rows);
  }

  /** Pools whose count differs between any two censuses; EDL's always listed. */
  List<String> changedPools() {
    TreeSet<String> all = new TreeSet<>(List.of(ThreadCensus.OURS));
    points.forEach(p -> all.addAll(p.pools().keySet()));
    List<String> changed = new ArrayList<>();
    for (String pool : all) {
      boolean varies = points.stream().mapToInt(p -> p.of(pool)).distinct().count() > 1;
      if (varies || pool.equals(ThreadCensus.OURS)) {
        changed.add(pool);
      }
    }
    return changed;
  }

  public String table() {
    if (points.isEmpty()) {
      return "";
    }
    ClusterThreadsBench.Point first = points.get(0);
    ClusterThreadsBench.Point last = points.get(points.size() - 1);
    StringBuilder t = new StringBuilder("| pool | before any job | after " + last.jobs()
        + " jobs | most | reached its last value after job |\n|---|---:|---:|---:|---:|\n");
    List<String> rows = new ArrayList<>(changedPools());
    rows.add("(all)");
    for (String pool : rows) {
      int lastValue = value(last, pool);
      int settled = last.jobs();
      for (int i = points.size() - 1; i >= 0 && value(points.get(i), pool) == lastValue; i--) {
        settled = points.get(i).jobs();
      }
      int most = points.stream().mapToInt(p -> value(p, pool)).max().orElse(0);
      t.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d |%n", pool, value(first, pool), lastValue, most,
          settled));
    }
    return t.toString();
  }

  private static int value(ClusterThreadsBench.Point p, String pool) {
    return pool.equals("(all)") ? p.total() : p.of(pool);
  }

  /** Pools that grew by 2 or more from the first census to the last, and EDL's: the chart's lower panel. */
  List<String> grownPools() {
    ClusterThreadsBench.Point first = points.get(0);
    ClusterThreadsBench.Point last = points.get(points.size() - 1);
    List<String> grown = new ArrayList<>();
    for (String pool : changedPools()) {
      if (pool.equals(ThreadCensus.OURS) || last.of(pool) - first.of(pool) >= 2) {
        grown.add(pool);
      }
    }
    return grown;
  }

  /** All threads above; below, the pools that grew, and EDL's. */
  public void writeChart(Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    NumberAxis x = new NumberAxis("jobs finished");
    x.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    CombinedDomainXYPlot plot = new CombinedDomainXYPlot(x);
    plot.setGap(12);
    plot.add(panel("all threads", List.of("(all)")), 1);
    plot.add(panel("threads in the pool", grownPools()), 2);
    JFreeChart chart = new JFreeChart("Embedded cluster JVM: threads after each finished job",
        JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    Path parent = png.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 1000, 700);
  }

  private XYPlot panel(String axis, List<String> pools) {
    XYSeriesCollection data = new XYSeriesCollection();
    for (String pool : pools) {
      XYSeries s = new XYSeries(pool.equals("(all)") ? "all threads" : pool);
      points.forEach(p -> s.add(p.jobs(), value(p, pool)));
      data.addSeries(s);
    }
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    for (int i = 0; i < pools.size(); i++) {
      renderer.setSeriesStroke(i, new BasicStroke(1.8f));
    }
    NumberAxis y = new NumberAxis(axis);
    y.setAutoRangeIncludesZero(!pools.contains("(all)"));
    XYPlot p = new XYPlot(data, null, y, renderer);
    p.setBackgroundPaint(Color.WHITE);
    p.setRangeGridlinePaint(Color.LIGHT_GRAY);
    p.setDomainGridlinePaint(Color.LIGHT_GRAY);
    return p;
  }

  /** Reads what {@link #writeCsv} wrote, to redraw an earlier run. */
  public static ClusterThreadsReport readCsv(Path csv) throws IOException {
    List<BenchCsv.Row> lines = BenchCsv.read(csv);
    if (lines.isEmpty() || !String.join(",", lines.get(0).fields()).equals(CSV_HEADER)) {
      throw new IOException(csv + ": expected the header " + CSV_HEADER);
    }
    java.util.TreeMap<Integer, java.util.Map<String, Integer>> byJobs = new java.util.TreeMap<>();
    for (BenchCsv.Row f : lines.subList(1, lines.size())) {
      if (f.size() != 3) {
        throw new IOException(csv + ":" + f.line() + ": expected 3 fields but got: " + String.join(",", f.fields()));
      }
      int jobs = (int) BenchCsv.whole(csv.toString(), f, 0, "jobs");
      byJobs.computeIfAbsent(jobs, j -> new java.util.TreeMap<>()).put(f.get(1),
          (int) BenchCsv.whole(csv.toString(), f, 2, "threads"));
    }
    List<ClusterThreadsBench.Point> points = new ArrayList<>();
    byJobs.forEach((jobs, pools) -> points.add(new ClusterThreadsBench.Point(jobs, pools)));
    return new ClusterThreadsReport(points);
  }
}
