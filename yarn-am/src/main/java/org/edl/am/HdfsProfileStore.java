package org.edl.am;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;
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
 * {@link ProfileStore} beside the job's model: {@code profile.csv}
 * ({@code workers,samples_per_second,batches}) and {@code profile.png} (throughput against
 * workers) in the job's output directory.
 */
public final class HdfsProfileStore implements ProfileStore {
  public static final String TABLE = "profile.csv";
  public static final String CHART = "profile.png";
  private static final CSVFormat CSV = CSVFormat.DEFAULT.builder().setRecordSeparator('\n').build();

  private final Configuration conf;
  private final String outputDir;
  private final String title;

  public HdfsProfileStore(Configuration conf, String outputDir, String title) {
    this.conf = conf;
    this.outputDir = outputDir;
    this.title = title;
  }

  @Override
  public Stored store(ProfileResult result) throws IOException {
    Path dir = new Path(outputDir);
    FileSystem fs = dir.getFileSystem(conf);
    Path table = fs.makeQualified(new Path(dir, TABLE));
    try (Writer w = new OutputStreamWriter(fs.create(table, true), StandardCharsets.UTF_8);
        CSVPrinter csv = CSV.print(w)) {
      csv.printRecord("workers", "samples_per_second", "batches");
      for (ProfilePoint p : result.getPoints()) {
        csv.printRecord(p.getWorkers(), String.format(Locale.ROOT, "%.1f", p.getSamplesPerSecond()), p.getBatches());
      }
    }
    Path chart = fs.makeQualified(new Path(dir, CHART));
    try (OutputStream out = fs.create(chart, true)) {
      ChartUtils.writeChartAsPNG(out, chart(result), 800, 500);
    }
    return new Stored(table.toString(), chart.toString());
  }

  private JFreeChart chart(ProfileResult result) {
    System.setProperty("java.awt.headless", "true");
    XYSeries series = new XYSeries("samples/s");
    for (ProfilePoint p : result.getPoints()) {
      series.add(p.getWorkers(), p.getSamplesPerSecond());
    }
    NumberAxis x = new NumberAxis("workers");
    x.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    NumberAxis y = new NumberAxis("samples per second");
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    renderer.setSeriesStroke(0, new BasicStroke(2f));
    renderer.setSeriesPaint(0, Color.BLACK);
    XYPlot plot = new XYPlot(new XYSeriesCollection(series), x, y, renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    return new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, false);
  }
}
