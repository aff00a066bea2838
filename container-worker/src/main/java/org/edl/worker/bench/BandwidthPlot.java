package org.edl.worker.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Bus bandwidth against message size (log axis), one line per implementation and member count;
 * an implementation named {@code ...-limit...} is a bound, drawn dashed as one line.
 */
public final class BandwidthPlot {
  /** Distinct on white and in grey print; JFreeChart's default includes a pale yellow. */
  private static final Color[] PALETTE = {
      new Color(0x000000), new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
      new Color(0x9467bd), new Color(0xff7f0e), new Color(0x8c564b), new Color(0x17becf),
      new Color(0x7f7f7f), new Color(0xbcbd22)};
  /** The single-stream limits are bounds, not implementations: dashed. */
  private static final BasicStroke DASHED =
      new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f);
  private BandwidthPlot() {}

  public static void write(List<BandwidthPoint> points, String title, Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    Map<String, XYSeries> series = new LinkedHashMap<>();
    for (BandwidthPoint p : points) {
      String name = isLimit(p.impl()) ? p.impl() : p.impl() + " n=" + p.members();
      series.computeIfAbsent(name, XYSeries::new).add(p.bytes(), p.busbwGbps());
    }
    XYSeriesCollection data = new XYSeriesCollection();
    series.values().forEach(data::addSeries);

    LogAxis x = new LogAxis("message size (bytes)");
    x.setBase(2);
    x.setTickUnit(new NumberTickUnit(2)); // one tick per factor of 4
    x.setNumberFormatOverride(new ByteSizeFormat());
    NumberAxis y = new NumberAxis("bus bandwidth (GB/s)");
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    for (int i = 0; i < data.getSeriesCount(); i++) {
      renderer.setSeriesStroke(i, isLimit(data.getSeriesKey(i).toString()) ? DASHED : new BasicStroke(2f));
      renderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
    }
    XYPlot plot = new XYPlot(data, x, y, renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 1000, 600);
  }

  private static boolean isLimit(String impl) {
    return impl.contains("-limit");
  }

  /** Axis labels as 1K, 64K, 1M, 256M. */
  private static final class ByteSizeFormat extends java.text.NumberFormat {
    private static final long serialVersionUID = 1L;

    @Override
    public StringBuffer format(double number, StringBuffer to, java.text.FieldPosition pos) {
      return format(Math.round(number), to, pos);
    }

    @Override
    public StringBuffer format(long n, StringBuffer to, java.text.FieldPosition pos) {
      if (n >= 1L << 30 && n % (1L << 30) == 0) {
        return to.append(n >> 30).append('G');
      }
      if (n >= 1L << 20 && n % (1L << 20) == 0) {
        return to.append(n >> 20).append('M');
      }
      if (n >= 1L << 10 && n % (1L << 10) == 0) {
        return to.append(n >> 10).append('K');
      }
      return to.append(n);
    }

    @Override
    public Number parse(String source, java.text.ParsePosition pos) {
      throw new UnsupportedOperationException("labels only");
    }
  }
}
