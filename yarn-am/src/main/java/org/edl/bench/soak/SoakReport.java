package org.edl.bench.soak;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
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
 * The soak benchmark's figures: {@code soak.csv} (the seven columns first, then the
 * heaps, descriptors, timelines, processes, ring size and step), a table of each figure's first
 * and last value and its trend, and a chart of them against the operations done.
 */
public final class SoakReport {
  public static final String CSV_HEADER = "operations,am_threads,am_fds,cluster_threads,worker_threads_max,zk_nodes,"
      + "hdfs_files,am_heap_mb,cluster_fds,cluster_heap_mb,worker_fds_max,worker_heap_max_mb,timeline_files,"
      + "processes,workers,step";

  /** One figure of the samples, as the table and the chart name it. */
  private record Figure(String name, ToDoubleFunction<SoakSample> value) {}

  private static final List<Figure> FIGURES = List.of(
      new Figure("AM threads", SoakSample::amThreads),
      new Figure("AM fds", SoakSample::amFds),
      new Figure("AM heap MB", SoakSample::amHeapMb),
      new Figure("cluster threads", SoakSample::clusterThreads),
      new Figure("cluster fds", SoakSample::clusterFds),
      new Figure("cluster heap MB", SoakSample::clusterHeapMb),
      new Figure("worker threads (max)", SoakSample::workerThreadsMax),
      new Figure("worker fds (max)", SoakSample::workerFdsMax),
      new Figure("worker heap MB (max)", SoakSample::workerHeapMaxMb),
      new Figure("ZooKeeper nodes", SoakSample::zkNodes),
      new Figure("HDFS files", s -> s.hdfsFiles()),
      new Figure("timeline files", s -> s.timelineFiles()),
      new Figure("container JVMs", SoakSample::processes));

  /** Distinct on white, in each panel's order (JFreeChart's defaults include a near-invisible yellow). */
  private static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
      new Color(0x9467bd)};

  private final List<SoakSample> samples;

  public SoakReport(List<SoakSample> samples) {
    this.samples = List.copyOf(samples);
  }

  public List<SoakSample> samples() {
    return samples;
  }

  public void writeCsv(Path csv) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    for (SoakSample s : samples) {
      rows.add(List.of(s.operations(), s.amThreads(), s.amFds(), s.clusterThreads(), s.workerThreadsMax(), s.zkNodes(),
          s.hdfsFiles(), BenchCsv.fixed(1, s.amHeapMb()), s.clusterFds(), BenchCsv.fixed(1, s.clusterHeapMb()),
          s.workerFdsMax(), BenchCsv.fixed(1, s.workerHeapMaxMb()), s.timelineFiles(), s.processes(), s.workers(),
          s.step()));
    }
    BenchCsv.write(csv, CSV_HEADER, rows);
  }

  /** Reads what {@link #writeCsv} wrote, to redraw or compare an earlier run. */
  public static SoakReport readCsv(Path csv) throws IOException {
    List<BenchCsv.Row> lines = BenchCsv.read(csv);
    if (lines.isEmpty() || !String.join(",", lines.get(0).fields()).equals(CSV_HEADER)) {
      throw new IOException(csv + ": expected the header " + CSV_HEADER);
    }
    String src = csv.toString();
    int columns = CSV_HEADER.split(",").length;
    List<SoakSample> samples = new ArrayList<>();
    for (BenchCsv.Row f : lines.subList(1, lines.size())) {
      if (f.size() != columns) {
        throw new IOException(csv + ":" + f.line() + ": expected " + columns + " fields but got: "
            + String.join(",", f.fields()));
      }
      samples.add(new SoakSample((int) BenchCsv.whole(src, f, 0, "operations"), (int) BenchCsv.whole(src, f, 1,
          "am_threads"), (int) BenchCsv.whole(src, f, 2, "am_fds"), (int) BenchCsv.whole(src, f, 3, "cluster_threads"),
          (int) BenchCsv.whole(src, f, 4, "worker_threads_max"), (int) BenchCsv.whole(src, f, 5, "zk_nodes"),
          BenchCsv.whole(src, f, 6, "hdfs_files"), BenchCsv.number(src, f, 7, "am_heap_mb"),
          (int) BenchCsv.whole(src, f, 8, "cluster_fds"), BenchCsv.number(src, f, 9, "cluster_heap_mb"),
          (int) BenchCsv.whole(src, f, 10, "worker_fds_max"), BenchCsv.number(src, f, 11, "worker_heap_max_mb"),
          BenchCsv.whole(src, f, 12, "timeline_files"), (int) BenchCsv.whole(src, f, 13, "processes"),
          (int) BenchCsv.whole(src, f, 14, "workers"), BenchCsv.whole(src, f, 15, "step")));
    }
    return new SoakReport(samples);
  }

  /**
   * Per figure: the value at the first sample after operations began, at the last, and the
   * least-squares slope per 100 operations over those (the sample before any operation is left
   * out: it is the job's start, not its steady state).
   */
  public String table() {
    List<SoakSample> steady = samples.stream().filter(s -> s.operations() > 0).toList();
    StringBuilder t = new StringBuilder("| figure | after " + (steady.isEmpty() ? "-" : steady.get(0).operations())
        + " ops | after " + (steady.isEmpty() ? "-" : steady.get(steady.size() - 1).operations())
        + " ops | slope per 100 ops |\n|---|---:|---:|---:|\n");
    for (Figure f : FIGURES) {
      if (steady.isEmpty()) {
        break;
      }
      t.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %+.2f |%n", f.name(),
          f.value().applyAsDouble(steady.get(0)), f.value().applyAsDouble(steady.get(steady.size() - 1)),
          slopePer100(steady, f.value())));
    }
    return t.toString();
  }

  static double slopePer100(List<SoakSample> s, ToDoubleFunction<SoakSample> y) {
    int n = s.size();
    if (n < 2) {
      return 0;
    }
    double mx = s.stream().mapToDouble(SoakSample::operations).average().orElse(0);
    double my = s.stream().mapToDouble(y).average().orElse(0);
    double sxy = 0;
    double sxx = 0;
    for (SoakSample p : s) {
      double dx = p.operations() - mx;
      sxy += dx * (y.applyAsDouble(p) - my);
      sxx += dx * dx;
    }
    return sxx == 0 ? 0 : 100 * sxy / sxx;
  }

  /** Four panels over the operations: threads, descriptors, nodes/files/processes, heaps. */
  public void writeChart(Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    CombinedDomainXYPlot plot = new CombinedDomainXYPlot(new NumberAxis("scale operations done"));
    plot.setGap(12);
    plot.add(panel("threads", List.of(FIGURES.get(0), FIGURES.get(3), FIGURES.get(6))));
    plot.add(panel("open descriptors", List.of(FIGURES.get(1), FIGURES.get(4), FIGURES.get(7))));
    plot.add(panel("count", List.of(FIGURES.get(9), FIGURES.get(10), FIGURES.get(11), FIGURES.get(12))));
    plot.add(panel("MB after a full GC", List.of(FIGURES.get(2), FIGURES.get(5), FIGURES.get(8))));
    JFreeChart chart = new JFreeChart("Soak: one job through " + (samples.isEmpty() ? 0
        : samples.get(samples.size() - 1).operations()) + " scale operations", JFreeChart.DEFAULT_TITLE_FONT, plot,
        true);
    chart.setBackgroundPaint(Color.WHITE);
    Path parent = png.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 1000, 1100);
  }

  private XYPlot panel(String axis, List<Figure> figures) {
    XYSeriesCollection data = new XYSeriesCollection();
    for (Figure f : figures) {
      XYSeries series = new XYSeries(f.name());
      samples.forEach(s -> series.add(s.operations(), f.value().applyAsDouble(s)));
      data.addSeries(series);
    }
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    for (int i = 0; i < figures.size(); i++) {
      renderer.setSeriesStroke(i, new BasicStroke(1.8f));
      renderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
    }
    NumberAxis y = new NumberAxis(axis);
    y.setAutoRangeIncludesZero(true);
    XYPlot p = new XYPlot(data, null, y, renderer);
    p.setBackgroundPaint(Color.WHITE);
    p.setRangeGridlinePaint(Color.LIGHT_GRAY);
    p.setDomainGridlinePaint(Color.LIGHT_GRAY);
    return p;
  }
}
