package org.edl.bench;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;

/** The scaling benchmark's results as CSV, a text table with the EDL/stop-resume ratios, and a chart. */
public final class ScalingReport {
  public static final String CSV_HEADER = "operation,mode,stop_s,end_to_end_s,loss_gpu_s";
  private static final List<String> OPERATIONS = List.of("scale-out", "scale-in", "profile");

  /** Bottom of the log axis: a figure of zero (nothing measurable) is drawn at it. */
  private static final double FLOOR = 1e-3;

  private final List<ScalingBench.Result> results;

  public ScalingReport(List<ScalingBench.Result> results) {
    this.results = List.copyOf(results);
  }

  public void writeCsv(Path csv) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    for (ScalingBench.Result r : results) {
      rows.add(List.of(r.operation(), r.modeName(), BenchCsv.fixed(3, r.stopSeconds()),
          BenchCsv.fixed(3, r.endToEndSeconds()), BenchCsv.fixed(3, r.lossGpuSeconds())));
    }
    BenchCsv.write(csv, CSV_HEADER, rows);
  }

  /** One row per operation: both modes side by side and EDL as a fraction of stop-resume. */
  public String table(String backend) {
    StringBuilder s = new StringBuilder();
    s.append("Backend: ").append(backend).append('\n');
    s.append("| operation | mode | stop T_s (s) | end-to-end T (s) | loss (GPU-s) |\n");
    s.append("|---|---|---:|---:|---:|\n");
    for (String op : OPERATIONS) {
      for (ScalingBench.Result r : results) {
        if (r.operation().equals(op)) {
          s.append(String.format(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.2f |%n", op, r.modeName(),
              r.stopSeconds(), r.endToEndSeconds(), r.lossGpuSeconds()));
        }
      }
      Optional<ScalingBench.Result> edl = find(op, "edl");
      Optional<ScalingBench.Result> sr = find(op, "stop-resume");
      if (edl.isPresent() && sr.isPresent()) {
        s.append(String.format(Locale.ROOT, "| %s | edl / stop-resume | %s | %s | %s |%n", op,
            ratio(edl.get().stopSeconds(), sr.get().stopSeconds()),
            ratio(edl.get().endToEndSeconds(), sr.get().endToEndSeconds()),
            ratio(edl.get().lossGpuSeconds(), sr.get().lossGpuSeconds())));
      }
    }
    return s.toString();
  }

  /** Stop time and resource loss per operation and mode, on a log axis (they differ by orders). */
  public void writeChart(Path png, String backend) throws IOException {
    System.setProperty("java.awt.headless", "true");
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (ScalingBench.Result r : results) {
      data.addValue(Math.max(r.stopSeconds(), FLOOR), r.modeName() + " stop (s)", r.operation());
      data.addValue(Math.max(r.lossGpuSeconds(), FLOOR), r.modeName() + " loss (GPU-s)", r.operation());
    }
    LogAxis y = new LogAxis("seconds / GPU-seconds (log)");
    double top = results.stream().mapToDouble(r -> Math.max(r.stopSeconds(), r.lossGpuSeconds())).max().orElse(1);
    y.setRange(FLOOR, Math.max(1, top) * 3);
    y.setTickUnit(new org.jfree.chart.axis.NumberTickUnit(1)); // one tick per factor of 10
    y.setNumberFormatOverride(new java.text.DecimalFormat("0.###"));
    BarRenderer renderer = new BarRenderer();
    renderer.setBarPainter(new StandardBarPainter());
    renderer.setShadowVisible(false);
    Color[] palette = {new Color(0x1f77b4), new Color(0xaec7e8), new Color(0xd62728), new Color(0xff9896)};
    for (int i = 0; i < palette.length; i++) {
      renderer.setSeriesPaint(i, palette[i]);
    }
    CategoryPlot plot = new CategoryPlot(data, new CategoryAxis("operation"), y, renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    JFreeChart chart = new JFreeChart("EDL vs stop-resume: stop time and resource loss (" + backend + ")",
        JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    createParent(png);
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 1000, 600);
  }

  /** Reads a CSV {@link #writeCsv} wrote, to redraw or compare an earlier run. */
  public static ScalingReport readCsv(Path csv) throws IOException {
    List<BenchCsv.Row> lines = BenchCsv.read(csv);
    if (lines.isEmpty() || !String.join(",", lines.get(0).fields()).equals(CSV_HEADER)) {
      throw new IOException(csv + ": expected the header " + CSV_HEADER);
    }
    String source = csv.toString();
    List<ScalingBench.Result> rows = new ArrayList<>();
    for (BenchCsv.Row f : lines.subList(1, lines.size())) {
      if (f.size() != 5) {
        throw new IOException(csv + ":" + f.line() + ": expected 5 fields but got: " + String.join(",", f.fields()));
      }
      org.edl.thrift.ScaleMode mode = f.get(1).equals("edl") ? org.edl.thrift.ScaleMode.EDL
          : org.edl.thrift.ScaleMode.STOP_RESUME;
      rows.add(new ScalingBench.Result(f.get(0), mode, BenchCsv.number(source, f, 2, "stop_s"),
          BenchCsv.number(source, f, 3, "end_to_end_s"), BenchCsv.number(source, f, 4, "loss_gpu_s")));
    }
    return new ScalingReport(rows);
  }

  private Optional<ScalingBench.Result> find(String op, String mode) {
    return results.stream().filter(r -> r.operation().equals(op) && r.modeName().equals(mode)).findFirst();
  }

  private static String ratio(double edl, double sr) {
    if (sr <= 0) {
      return "n/a";
    }
    if (edl <= 0) {
      return "0 (none measurable)";
    }
    return String.format(Locale.ROOT, "%.3f (1/%.0f)", edl / sr, edl <= 0 ? Double.POSITIVE_INFINITY : sr / edl);
  }

  private static void createParent(Path p) throws IOException {
    Path parent = p.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
  }
}
