package org.edl.bench.partitions;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.edl.bench.BenchCsv;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.renderer.category.StackedBarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * The partitions benchmark as {@code partitions.csv} (one row per seed, the columns) and a
 * chart of each seed's time from the heal to training, coloured by whether the run kept every
 * promise; {@link #readCsv} reads the CSV back to redraw the chart.
 */
public final class PartitionReport {
  public static final String CSV_HEADER = "seed,schedule,outcome,single_leader,exactly_once,model_ok,"
      + "failures_counted,failures_expected,recovery_s_max";
  private static final String KEPT = "every promise kept";
  private static final String BROKEN = "a promise broken";

  private final List<PartitionRow> rows;

  public PartitionReport(List<PartitionRow> rows) {
    this.rows = List.copyOf(rows);
  }

  public List<PartitionRow> rows() {
    return rows;
  }

  public void writeCsv(Path csv) throws IOException {
    List<List<Object>> lines = new ArrayList<>();
    for (PartitionRow r : rows) {
      lines.add(List.of(r.seed(), r.schedule(), r.outcome(), r.singleLeader(), r.exactlyOnce(), r.modelOk(),
          r.failuresCounted(), r.failuresExpected(), seconds(r.healToTrainingSeconds())));
    }
    BenchCsv.write(csv, CSV_HEADER, lines);
  }

  /** A {@code partitions.csv} as {@link #writeCsv} wrote it (notes are not kept). */
  public static PartitionReport readCsv(Path csv) throws IOException {
    List<BenchCsv.Row> lines = BenchCsv.read(csv);
    if (lines.isEmpty() || !String.join(",", lines.get(0).fields()).trim().equals(CSV_HEADER)) {
      throw new IOException(csv + " is not a partitions.csv: its first line should be " + CSV_HEADER);
    }
    String source = csv.toString();
    List<PartitionRow> rows = new ArrayList<>();
    for (BenchCsv.Row f : lines.subList(1, lines.size())) {
      if (f.size() != 9) {
        throw new IOException(csv + " line " + f.line() + ": 9 fields expected, " + f.size() + " found");
      }
      rows.add(new PartitionRow(BenchCsv.whole(source, f, 0, "seed"), f.get(1), f.get(2),
          Boolean.parseBoolean(f.get(3)), Boolean.parseBoolean(f.get(4)), Boolean.parseBoolean(f.get(5)),
          (int) BenchCsv.whole(source, f, 6, "failures_counted"), (int) BenchCsv.whole(source, f, 7,
              "failures_expected"),
          f.get(8).equals("NaN") ? Double.NaN : BenchCsv.number(source, f, 8, "recovery_s_max"), ""));
    }
    return new PartitionReport(rows);
  }

  /** One line: how many runs kept every promise, and the longest heal to training. */
  public String summary() {
    long kept = rows.stream().filter(PartitionRow::asPromised).count();
    double longest = rows.stream().mapToDouble(PartitionRow::healToTrainingSeconds).filter(d -> !Double.isNaN(d))
        .max().orElse(Double.NaN);
    return String.format(Locale.ROOT, "%d run(s), %d kept every promise; longest heal to training %s s", rows.size(),
        kept, seconds(longest));
  }

  /**
   * A bar per seed: seconds from the heal to the next step, green where every promise was kept;
   * a run that never trained again after the heal (or was not cut) has no bar.
   */
  public void writeChart(Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (PartitionRow r : rows) {
      String seed = r.seed() + " " + r.schedule().replaceAll("@.*", "");
      double s = Double.isNaN(r.healToTrainingSeconds()) ? 0 : r.healToTrainingSeconds();
      data.addValue(r.asPromised() ? s : null, KEPT, seed);
      data.addValue(r.asPromised() ? null : s, BROKEN, seed);
    }
    StackedBarRenderer renderer = new StackedBarRenderer();
    renderer.setBarPainter(new StandardBarPainter());
    renderer.setShadowVisible(false);
    renderer.setMaximumBarWidth(0.08);
    renderer.setSeriesPaint(0, new Color(0x2ca02c));
    renderer.setSeriesPaint(1, new Color(0xd62728));
    CategoryAxis seeds = new CategoryAxis("seed and partition");
    seeds.setCategoryLabelPositions(CategoryLabelPositions.UP_45);
    NumberAxis seconds = new NumberAxis("heal to training (s)");
    double longest = rows.stream().mapToDouble(PartitionRow::healToTrainingSeconds).filter(d -> !Double.isNaN(d))
        .max().orElse(0);
    // The 5 s line always shows, even when every bar is below it.
    seconds.setRange(0, Math.max(PartitionRow.HEAL_TO_TRAINING_LIMIT_SECONDS, longest) * 1.15);
    CategoryPlot plot = new CategoryPlot(data, seeds, seconds, renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    ValueMarker limit = new ValueMarker(PartitionRow.HEAL_TO_TRAINING_LIMIT_SECONDS, Color.GRAY,
        new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0));
    limit.setLabel("5 s where no process died");
    limit.setLabelAnchor(org.jfree.chart.ui.RectangleAnchor.TOP_RIGHT);
    limit.setLabelTextAnchor(org.jfree.chart.ui.TextAnchor.BOTTOM_RIGHT);
    plot.addRangeMarker(limit);
    JFreeChart chart = new JFreeChart("Partitions: heal to training, by whether every promise was kept",
        JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    if (png.getParent() != null) {
      Files.createDirectories(png.getParent());
    }
    ChartUtils.saveChartAsPNG(png.toFile(), chart, Math.max(700, 45 * rows.size() + 200), 550);
  }

  private static String seconds(double s) {
    return Double.isNaN(s) ? "NaN" : String.format(Locale.ROOT, "%.2f", s);
  }
}
