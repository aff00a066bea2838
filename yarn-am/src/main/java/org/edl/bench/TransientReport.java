package org.edl.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * The transient-GPU benchmark's figures: each mode's throughput as a fraction of Ideal per number
 * of idle GPUs ({@code transient.csv}, the columns the comparison across runs uses), the numbers
 * behind them ({@code transient-runs.csv}), a text table and a bar chart.
 */
public final class TransientReport {
  public static final String CSV_HEADER = "idle_gpus,period_s,mode,throughput_ratio_to_ideal";
  public static final String RUNS_HEADER = "idle_gpus,period_s,cycles,mode,samples_per_s,ideal_samples_per_s,"
      + "steady_base_samples_per_s,steady_grown_samples_per_s,break_even_idle_s";

  /**
   * One mode at one number of idle GPUs.
   *
   * @param base           steady samples/s with the job's own 4 GPUs (all of this k's runs together)
   * @param grown          steady samples/s with the idle GPUs too
   * @param breakEvenIdleS the shortest idle period for which this mode beats the baseline (NaN for
   *                       the baseline itself)
   */
  public record Result(int idleGpus, double periodS, int cycles, String mode, double samplesPerS,
      double idealSamplesPerS, double base, double grown, double breakEvenIdleS) {
    public double ratio() {
      return samplesPerS / idealSamplesPerS;
    }
  }

  private final List<Result> results;

  public TransientReport(List<Result> results) {
    this.results = List.copyOf(results);
  }

  /** Ideal from the steady throughputs of all runs of the same {@code k} pooled, then each run against it. */
  public static TransientReport of(List<TransientBench.Run> runs, double periodS, int cycles, int jobGpus,
      int perWorkerBatch) {
    Map<Integer, List<TransientBench.Run>> byIdle = new TreeMap<>();
    runs.forEach(r -> byIdle.computeIfAbsent(r.idleGpus(), k -> new ArrayList<>()).add(r));
    List<Result> results = new ArrayList<>();
    byIdle.forEach((k, list) -> {
      Map<Integer, Double> steady = TransientAnalysis.steadyThroughput(
          list.stream().map(TransientBench.Run::analysis).toList(), perWorkerBatch);
      double base = steady.getOrDefault(jobGpus, Double.NaN);
      // The largest size the job ran steadily at with the idle GPUs: all of them unless the
      // growth policy stopped short (then Ideal is what that size would have given).
      double grown = steady.entrySet().stream().filter(e -> e.getKey() > jobGpus && e.getKey() <= jobGpus + k)
          .max(Map.Entry.comparingByKey()).map(Map.Entry::getValue).orElse(Double.NaN);
      for (TransientBench.Run r : list) {
        double ideal = TransientAnalysis.ideal(base, grown, r.idleSeconds(), r.windowSeconds());
        double lostPerCycle = (ideal - r.throughput()) * r.windowSeconds() / cycles;
        double breakEven = r.mode() == TransientBench.Mode.BASELINE ? Double.NaN
            : TransientAnalysis.breakEvenIdleSeconds(lostPerCycle, base, grown);
        results.add(new Result(k, periodS, cycles, r.mode().csv(), r.throughput(), ideal, base, grown, breakEven));
      }
    });
    return new TransientReport(results);
  }

  public List<Result> results() {
    return results;
  }

  public void writeCsv(Path csv) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    for (Result r : results) {
      rows.add(List.of(r.idleGpus(), BenchCsv.fixed(0, r.periodS()), r.mode(), BenchCsv.fixed(4, r.ratio())));
    }
    BenchCsv.write(csv, CSV_HEADER, rows);
  }

  public void writeRunsCsv(Path csv) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    for (Result r : results) {
      rows.add(List.of(r.idleGpus(), BenchCsv.fixed(0, r.periodS()), r.cycles(), r.mode(),
          BenchCsv.fixed(2, r.samplesPerS()), BenchCsv.fixed(2, r.idealSamplesPerS()), BenchCsv.fixed(2, r.base()),
          BenchCsv.fixed(2, r.grown()), Double.isNaN(r.breakEvenIdleS()) ? "" : BenchCsv.fixed(1, r.breakEvenIdleS())));
    }
    BenchCsv.write(csv, RUNS_HEADER, rows);
  }

  /** Reads what {@link #writeRunsCsv} wrote, to redraw or compare an earlier run. */
  public static TransientReport readRunsCsv(Path csv) throws IOException {
    List<BenchCsv.Row> lines = BenchCsv.read(csv);
    if (lines.isEmpty() || !String.join(",", lines.get(0).fields()).equals(RUNS_HEADER)) {
      throw new IOException(csv + ": expected the header " + RUNS_HEADER);
    }
    String source = csv.toString();
    List<Result> rows = new ArrayList<>();
    for (BenchCsv.Row f : lines.subList(1, lines.size())) {
      if (f.size() != 9) {
        throw new IOException(csv + ":" + f.line() + ": expected 9 fields but got: " + String.join(",", f.fields()));
      }
      rows.add(new Result((int) BenchCsv.whole(source, f, 0, "idle_gpus"), BenchCsv.number(source, f, 1, "period_s"),
          (int) BenchCsv.whole(source, f, 2, "cycles"), f.get(3), BenchCsv.number(source, f, 4, "samples_per_s"),
          BenchCsv.number(source, f, 5, "ideal_samples_per_s"), BenchCsv.number(source, f, 6, "steady_base_samples_per_s"),
          BenchCsv.number(source, f, 7, "steady_grown_samples_per_s"),
          f.get(8).isEmpty() ? Double.NaN : BenchCsv.number(source, f, 8, "break_even_idle_s")));
    }
    return new TransientReport(rows);
  }

  public String table() {
    StringBuilder s = new StringBuilder();
    s.append("| idle GPUs | period (s) | mode | samples/s | Ideal samples/s | ratio to Ideal | beats the baseline from an idle period of |\n");
    s.append("|---:|---:|---|---:|---:|---:|---:|\n");
    for (Result r : results) {
      s.append(String.format(Locale.ROOT, "| %d | %.0f | %s | %.1f | %.1f | %.3f | %s |%n", r.idleGpus(), r.periodS(),
          r.mode(), r.samplesPerS(), r.idealSamplesPerS(), r.ratio(),
          Double.isNaN(r.breakEvenIdleS()) ? "-" : String.format(Locale.ROOT, "%.1f s", r.breakEvenIdleS())));
    }
    return s.toString();
  }

  /** Each mode's throughput as a fraction of Ideal, grouped by the number of idle GPUs. */
  public void writeChart(Path png, String model) throws IOException {
    System.setProperty("java.awt.headless", "true");
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (Result r : results) {
      data.addValue(r.ratio(), r.mode(), r.idleGpus() + " idle GPU" + (r.idleGpus() == 1 ? "" : "s"));
    }
    NumberAxis y = new NumberAxis("throughput / Ideal");
    double low = results.stream().mapToDouble(Result::ratio).min().orElse(0.5);
    y.setRange(Math.max(0, Math.floor(low * 10 - 1) / 10), 1.05);
    BarRenderer renderer = new BarRenderer();
    renderer.setBarPainter(new StandardBarPainter());
    renderer.setShadowVisible(false);
    Color[] palette = {new Color(0x7f7f7f), new Color(0x1f77b4), new Color(0xd62728)};
    for (int i = 0; i < palette.length; i++) {
      renderer.setSeriesPaint(i, palette[i]);
    }
    CategoryPlot plot = new CategoryPlot(data, new CategoryAxis("GPUs idle, then taken back, every "
        + String.format(Locale.ROOT, "%.0f s", results.isEmpty() ? 0 : results.get(0).periodS())), y, renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    ValueMarker ideal = new ValueMarker(1.0, Color.BLACK, new BasicStroke(1.5f));
    ideal.setLabel("Ideal");
    ideal.setLabelAnchor(org.jfree.chart.ui.RectangleAnchor.TOP_RIGHT);
    ideal.setLabelTextAnchor(org.jfree.chart.ui.TextAnchor.BOTTOM_RIGHT);
    plot.addRangeMarker(ideal);
    JFreeChart chart = new JFreeChart("Transient idle GPUs: " + model
        + " (emulated, sync time from the profile)", JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    Path parent = png.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 1000, 600);
  }
}
