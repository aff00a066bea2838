package org.edl.am;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.edl.thrift.ProfilePoint;
import org.edl.thrift.ProfileResult;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Keeps a profile with the job: {@code profile/profile.csv} and {@code profile/profile.png} in
 * its output directory (HDFS), next to the model, so it outlives the AM.
 */
public final class ProfileStore {
  public static final String DIRECTORY = "profile";

  private ProfileStore() {}

  public static ProfileResult write(String outputDir, String jobName, List<ProfilePoint> points,
      double seconds, Configuration conf) throws IOException {
    Path dir = new Path(outputDir, DIRECTORY);
    FileSystem fs = dir.getFileSystem(conf);
    fs.mkdirs(dir);
    Path csv = new Path(dir, "profile.csv");
    Path png = new Path(dir, "profile.png");
    try (OutputStream out = fs.create(csv, true)) {
      out.write(csv(points).getBytes(StandardCharsets.UTF_8));
    }
    try (OutputStream out = fs.create(png, true)) {
      out.write(chart(points, jobName));
    }
    ProfileResult r = new ProfileResult(List.copyOf(points));
    r.setTablePath(fs.makeQualified(csv).toString());
    r.setChartPath(fs.makeQualified(png).toString());
    r.setSeconds(seconds);
    return r;
  }

  static String csv(List<ProfilePoint> points) {
    StringBuilder s = new StringBuilder("workers,samples_per_second,batches\n");
    for (ProfilePoint p : points) {
      s.append(String.format(Locale.ROOT, "%d,%.3f,%d%n", p.getWorkers(), p.getSamplesPerSecond(), p.getBatches()));
    }
    return s.toString();
  }

  static byte[] chart(List<ProfilePoint> points, String jobName) throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYSeries measured = new XYSeries("measured");
    XYSeries linear = new XYSeries("linear from the smallest size");
    ProfilePoint smallest = points.stream().min((a, b) -> Integer.compare(a.getWorkers(), b.getWorkers()))
        .orElse(null);
    for (ProfilePoint p : points) {
      measured.add(p.getWorkers(), p.getSamplesPerSecond());
      if (smallest != null) {
        linear.add(p.getWorkers(), smallest.getSamplesPerSecond() * p.getWorkers() / smallest.getWorkers());
      }
    }
    XYSeriesCollection data = new XYSeriesCollection();
    data.addSeries(measured);
    data.addSeries(linear);
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    renderer.setSeriesPaint(0, new Color(0x1f77b4));
    renderer.setSeriesStroke(0, new BasicStroke(2f));
    renderer.setSeriesPaint(1, Color.GRAY);
    renderer.setSeriesStroke(1, new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
        new float[] {6f, 4f}, 0f));
    NumberAxis x = new NumberAxis("workers");
    x.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    XYPlot plot = new XYPlot(data, x, new NumberAxis("samples / s"), renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    JFreeChart chart = new JFreeChart("Throughput by parallelism: " + jobName,
        JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    ByteArrayOutputStream png = new ByteArrayOutputStream();
    ChartUtils.writeChartAsPNG(png, chart, 800, 500);
    return png.toByteArray();
  }
}
