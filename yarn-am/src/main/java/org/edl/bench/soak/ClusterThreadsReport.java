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

  public void writeChart(Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYSeriesCollection data = new XYSeriesCollection();
    List<String> pools = new ArrayList<>(List.of("(all)"));
    pools.addAll(changedPools());
    for (String pool : pools) {
      XYSeries s = new XYSeries(pool.equals("(all)") ? "all threads" : pool);
      points.forEach(p -> s.add(p.jobs(), value(p, pool)));
      data.addSeries(s);
    }
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    for (int i = 0; i < pools.size(); i++) {
      renderer.setSeriesStroke(i, new BasicStroke(1.8f));
    }
    NumberAxis y = new NumberAxis("threads");
    NumberAxis x = new NumberAxis("jobs finished");
    x.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    XYPlot plot = new XYPlot(data, x, y, renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    JFreeChart chart = new JFreeChart("Embedded cluster JVM: threads by pool after each finished job",
        JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    Path parent = png.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 1000, 600);
  }
}
