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
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;

/** The recovery benchmark as {@code recovery.csv}, a text table against stop-resume, and a chart. */
public final class RecoveryReport {
  public static final String CSV_HEADER =
      "mode,fault,recovery_s,steps_redone,lost_gpu_s,batch_s,last_step_before,first_step_after,workers_after";

  private final List<RecoveryBench.Result> results;

  public RecoveryReport(List<RecoveryBench.Result> results) {
    this.results = List.copyOf(results);
  }

  public void writeCsv(Path csv) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    for (RecoveryBench.Result r : results) {
      RecoveryAnalysis.Cost c = r.cost();
      rows.add(List.of(r.mode(), r.fault().csvName(), BenchCsv.fixed(3, c.recoverySeconds()), c.stepsRedone(),
          BenchCsv.fixed(3, c.lostGpuSeconds()), BenchCsv.fixed(4, c.batchSeconds()), c.lastStepBefore(),
          c.firstStepAfter(), c.workersAfter()));
    }
    BenchCsv.write(csv, CSV_HEADER, rows);
  }

  public String table() {
    StringBuilder s = new StringBuilder("| mode | fault | training again after (s) | steps redone | work lost (GPU-s) |"
        + " vs stop-resume (time / work) |\n|---|---|---:|---:|---:|---:|\n");
    Optional<RecoveryAnalysis.Cost> base = results.stream().filter(r -> r.mode().equals("stop-resume"))
        .map(RecoveryBench.Result::cost).findFirst();
    for (RecoveryBench.Result r : results) {
      RecoveryAnalysis.Cost c = r.cost();
      String ratio = base.map(b -> String.format(Locale.ROOT, "%s / %s", ratio(c.recoverySeconds(), b.recoverySeconds()),
          ratio(c.lostGpuSeconds(), b.lostGpuSeconds()))).orElse("");
      s.append(String.format(Locale.ROOT, "| %s | %s | %.2f | %d | %.1f | %s |%n", r.mode(), r.fault().csvName(),
          c.recoverySeconds(),
          c.stepsRedone(), c.lostGpuSeconds(), ratio));
    }
    return s.toString();
  }

  private static String ratio(double a, double b) {
    return b <= 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", a / b);
  }

  public void writeChart(Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (RecoveryBench.Result r : results) {
      String label = r.fault() == RecoveryBench.Fault.KILL ? r.mode() : r.mode() + " (" + r.fault().csvName() + ")";
      data.addValue(r.cost().recoverySeconds(), "training again after (s)", label);
      data.addValue(r.cost().lostGpuSeconds(), "work lost (GPU-s)", label);
    }
    BarRenderer renderer = new BarRenderer();
    renderer.setBarPainter(new StandardBarPainter());
    renderer.setShadowVisible(false);
    renderer.setSeriesPaint(0, new Color(0x1f77b4));
    renderer.setSeriesPaint(1, new Color(0xd62728));
    CategoryPlot plot = new CategoryPlot(data, new CategoryAxis("recovery mode"),
        new NumberAxis("seconds / GPU-seconds"), renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    JFreeChart chart = new JFreeChart("A worker or the leader killed: recovery time and work lost per mode",
        JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    if (png.getParent() != null) {
      Files.createDirectories(png.getParent());
    }
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 900, 500);
  }
}
