package org.edl.bench.chaos;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.edl.bench.BenchCsv;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.CategoryTextAnnotation;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.renderer.category.StackedBarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * The chaos benchmark as {@code chaos.csv} (one row per seed) and a chart of each seed's longest
 * recovery, coloured by how the run ended; {@link #readCsv} reads the CSV back so that the chart
 * can be redrawn without running anything. The note of each run is printed by the bench, not
 * kept in the CSV.
 */
public final class ChaosReport {
  public static final String CSV_HEADER = "seed,faults,outcome,final_step,steps,samples_ok,model_ok,recovery_s_max";
  /** A run that ended SUCCEEDED but not as promised (wrong step count, samples, or no model). */
  static final String SUCCEEDED_NOT_AS_PROMISED = "SUCCEEDED, checks failed";

  private static final Map<String, Color> COLOURS = Map.of(
      "SUCCEEDED", new Color(0x2ca02c),
      SUCCEEDED_NOT_AS_PROMISED, new Color(0xbcbd22),
      "FAILED", new Color(0xd62728),
      "KILLED", new Color(0x9467bd),
      ChaosRun.TIMEOUT, new Color(0xff7f0e),
      ChaosRun.ERROR, new Color(0x7f7f7f));

  private final List<ChaosRun> runs;

  public ChaosReport(List<ChaosRun> runs) {
    this.runs = List.copyOf(runs);
  }

  public List<ChaosRun> runs() {
    return runs;
  }

  public void writeCsv(Path csv) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    for (ChaosRun r : runs) {
      rows.add(List.of(r.seed(), r.faults(), r.outcome(), r.finalStep(), r.steps(), r.samplesOk(), r.modelOk(),
          seconds(r.recoverySecondsMax())));
    }
    BenchCsv.write(csv, CSV_HEADER, rows);
  }

  /**
   * A {@code chaos.csv} as {@link #writeCsv} wrote it.
   *
   * @throws IOException the file cannot be read, or its header or a row is not what this writes
   */
  public static ChaosReport readCsv(Path csv) throws IOException {
    List<BenchCsv.Row> lines = BenchCsv.read(csv);
    if (lines.isEmpty() || !String.join(",", lines.get(0).fields()).trim().equals(CSV_HEADER)) {
      throw new IOException(csv + " is not a chaos.csv: its first line should be " + CSV_HEADER);
    }
    String source = csv.toString();
    List<ChaosRun> runs = new ArrayList<>();
    for (BenchCsv.Row f : lines.subList(1, lines.size())) {
      if (f.size() != 8) {
        throw new IOException(csv + " line " + f.line() + ": 8 fields expected, " + f.size() + " found");
      }
      runs.add(new ChaosRun(BenchCsv.whole(source, f, 0, "seed"), f.get(1), f.get(2),
          BenchCsv.whole(source, f, 3, "final_step"), BenchCsv.whole(source, f, 4, "steps"),
          Boolean.parseBoolean(f.get(5)), Boolean.parseBoolean(f.get(6)),
          f.get(7).isEmpty() ? Double.NaN : BenchCsv.number(source, f, 7, "recovery_s_max"), ""));
    }
    return new ChaosReport(runs);
  }

  /** One line: runs by outcome and how many ended as promised. */
  public String summary() {
    Map<String, Integer> byOutcome = new TreeMap<>();
    runs.forEach(r -> byOutcome.merge(r.outcome(), 1, Integer::sum));
    long promised = runs.stream().filter(ChaosRun::asPromised).count();
    double longest = runs.stream().mapToDouble(ChaosRun::recoverySecondsMax).filter(d -> !Double.isNaN(d))
        .max().orElse(Double.NaN);
    return String.format(Locale.ROOT, "%d run(s): %s; %d ended as promised; longest recovery %s s", runs.size(),
        byOutcome, promised, seconds(longest));
  }

  /** A bar per seed, its longest recovery; a run with none measured shows "n/a" in its colour. */
  public void writeChart(Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    // One series per outcome, a stacked renderer: each seed's single value is one bar in its colour.
    Map<String, Integer> seriesOrder = new LinkedHashMap<>();
    for (ChaosRun r : runs) {
      seriesOrder.putIfAbsent(colourKey(r), seriesOrder.size());
    }
    for (ChaosRun r : runs) {
      String seed = Long.toString(r.seed());
      for (String series : seriesOrder.keySet()) {
        boolean mine = series.equals(colourKey(r));
        data.addValue(mine && !Double.isNaN(r.recoverySecondsMax()) ? r.recoverySecondsMax() : null, series, seed);
      }
    }
    StackedBarRenderer renderer = new StackedBarRenderer();
    renderer.setBarPainter(new StandardBarPainter());
    renderer.setShadowVisible(false);
    renderer.setMaximumBarWidth(0.08); // a run of one or two seeds would otherwise fill the width
    seriesOrder.forEach((series, i) -> renderer.setSeriesPaint(i, COLOURS.getOrDefault(series, Color.DARK_GRAY)));
    CategoryAxis seeds = new CategoryAxis("seed");
    if (runs.size() > 30) {
      seeds.setCategoryLabelPositions(CategoryLabelPositions.UP_90);
    }
    CategoryPlot plot = new CategoryPlot(data, seeds, new NumberAxis("longest recovery (s)"), renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    for (ChaosRun r : runs) {
      if (Double.isNaN(r.recoverySecondsMax())) {
        // No bar to colour: say so in the run's colour, so that a run that never recovered shows.
        CategoryTextAnnotation none = new CategoryTextAnnotation("n/a", Long.toString(r.seed()), 0);
        none.setPaint(COLOURS.getOrDefault(colourKey(r), Color.DARK_GRAY));
        none.setTextAnchor(TextAnchor.BOTTOM_CENTER);
        plot.addAnnotation(none);
      }
    }
    JFreeChart chart = new JFreeChart("Chaos: each seed's longest recovery, by how the run ended",
        JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    if (png.getParent() != null) {
      Files.createDirectories(png.getParent());
    }
    ChartUtils.saveChartAsPNG(png.toFile(), chart, Math.max(700, 40 * runs.size() + 200), 500);
  }

  static String colourKey(ChaosRun r) {
    return "SUCCEEDED".equals(r.outcome()) && !r.asPromised() ? SUCCEEDED_NOT_AS_PROMISED : r.outcome();
  }

  private static String seconds(double s) {
    return Double.isNaN(s) ? "NaN" : String.format(Locale.ROOT, "%.2f", s);
  }
}
