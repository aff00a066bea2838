package org.edl.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The straggler benchmark as {@code stragglers.csv} ({@code phase,throughput_ratio,seconds}), a
 * text table with the goals, and a chart of throughput over time with the slow-down, the
 * leader's order and the removal marked.
 */
public final class StragglerReport {
  public static final String CSV_HEADER = "phase,throughput_ratio,seconds";

  private final StragglerBench.Result r;

  public StragglerReport(StragglerBench.Result result) {
    this.r = result;
  }

  /** Batches from the first slow one to the one whose report made the leader name it. */
  public long batchesToDetect() {
    return r.namedAtStep() - r.slowFrom() + 1;
  }

  public void writeCsv(Path csv) throws IOException {
    BenchCsv.write(csv, CSV_HEADER, List.of(
        List.of("normal", BenchCsv.fixed(4, 1.0), ""),
        List.of("straggling", BenchCsv.fixed(4, r.straggling() / r.normal()), ""),
        List.of("after-removal", BenchCsv.fixed(4, r.afterRemoval() / r.normal()), ""),
        List.of("detect", "", BenchCsv.fixed(3, r.detectSeconds())),
        List.of("remove", "", BenchCsv.fixed(3, r.removeSeconds()))));
  }

  public String table() {
    double goalAfter = (r.workers() - 1) / (double) r.workers();
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT, "Emulated %s, %d workers, one at %.0f%% speed from step %d;"
        + " leader's window %d batches%n", r.model(), r.workers(), r.speed() * 100, r.slowFrom(), r.window()));
    s.append("| phase | throughput (samples/s) | of normal | seconds |\n|---|---:|---:|---:|\n");
    s.append(String.format(Locale.ROOT, "| normal | %.1f | 1.000 | |%n", r.normal()));
    s.append(String.format(Locale.ROOT, "| straggling | %.1f | %.3f | |%n", r.straggling(), r.straggling() / r.normal()));
    s.append(String.format(Locale.ROOT, "| after removal | %.1f | %.3f | |%n", r.afterRemoval(),
        r.afterRemoval() / r.normal()));
    s.append(String.format(Locale.ROOT, "| detect | | | %.2f |%n", r.detectSeconds()));
    s.append(String.format(Locale.ROOT, "| remove | | | %.2f (switch stop %.3f) |%n", r.removeSeconds(),
        r.switchStopSeconds()));
    s.append(String.format(Locale.ROOT, "Goals: detect within %d batches: %d (%s); removed by one switch at"
        + " step %d (%s); after removal %.3f of normal, goal %d/%d = %.3f (%s)%n",
        r.window() + 1, batchesToDetect(), batchesToDetect() <= r.window() + 1 ? "met" : "MISSED",
        r.removedAtStep(), r.removedAtStep() - r.namedAtStep() <= 3 ? "met" : "MISSED",
        r.afterRemoval() / r.normal(), r.workers() - 1, r.workers(), goalAfter,
        r.afterRemoval() / r.normal() >= goalAfter ? "met" : "MISSED"));
    return s.toString();
  }

  public void writeChart(Path png) throws IOException {
    XYSeries series = new XYSeries("throughput per step");
    for (double[] p : r.stepSeries()) {
      series.add(p[1], p[2] / r.normal());
    }
    NumberAxis time = new NumberAxis("seconds since step 0");
    NumberAxis ratio = new NumberAxis("throughput / normal");
    ratio.setAutoRangeIncludesZero(false);
    XYLineAndShapeRenderer line = new XYLineAndShapeRenderer(true, false);
    line.setSeriesPaint(0, new Color(31, 119, 180));
    XYPlot plot = new XYPlot(new XYSeriesCollection(series), time, ratio, line);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    mark(plot, timeOfStep(r.slowFrom() - 1), "slow from step " + r.slowFrom(), true);
    mark(plot, timeOfStep(r.namedAtStep()), "named (step " + r.namedAtStep() + ")", true);
    mark(plot, timeOfStep(r.removedAtStep()), "removed (step " + r.removedAtStep() + ")", false);
    ValueMarker goal = new ValueMarker((r.workers() - 1) / (double) r.workers());
    goal.setPaint(Color.GRAY);
    goal.setStroke(new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 1f, new float[] {4f, 4f}, 0f));
    goal.setLabel(r.workers() - 1 + "/" + r.workers() + " of normal");
    goal.setLabelAnchor(RectangleAnchor.BOTTOM_RIGHT);
    goal.setLabelTextAnchor(TextAnchor.TOP_RIGHT);
    plot.addRangeMarker(goal);
    JFreeChart chart = new JFreeChart(String.format(Locale.ROOT,
        "Straggler removal: %d-worker emulated %s, one worker at %.0f%% speed", r.workers(), r.model(),
        r.speed() * 100), JFreeChart.DEFAULT_TITLE_FONT, plot, false);
    chart.setBackgroundPaint(Color.WHITE);
    if (png.getParent() != null) {
      Files.createDirectories(png.getParent());
    }
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 1000, 500);
  }

  private double timeOfStep(long step) {
    for (double[] p : r.stepSeries()) {
      if (p[0] >= step) {
        return p[1];
      }
    }
    return 0;
  }

  private static void mark(XYPlot plot, double x, String label, boolean top) {
    ValueMarker m = new ValueMarker(x);
    m.setPaint(new Color(214, 39, 40));
    m.setLabel(label);
    m.setLabelAnchor(top ? RectangleAnchor.TOP_RIGHT : RectangleAnchor.BOTTOM_RIGHT);
    m.setLabelTextAnchor(top ? TextAnchor.TOP_LEFT : TextAnchor.BOTTOM_LEFT);
    plot.addDomainMarker(m);
  }
}
