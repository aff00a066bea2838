package org.edl.am;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.awt.Color;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TException;
import org.apache.thrift.TSerializer;
import org.apache.thrift.protocol.TSimpleJSONProtocol;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobProgress;
import org.edl.thrift.JobStatus;
import org.edl.thrift.WorkerPlacement;
import org.edl.worker.checkpoint.CheckpointCatalog;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYStepRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's page at its YARN tracking URL, so that the RM UI's "ApplicationMaster" link and
 * {@code yarn application -status} lead somewhere: an HTML page ({@code /}) with the state, size,
 * the containers with their host, GPUs and whether they are in the ring, the leader's events and
 * the job's checkpoints, the ring size over time as a chart ({@code /size.png}), and the same
 * status as JSON for scripts ({@code /status.json}). It reads the job-control endpoint's own
 * status, so it shows what {@code edl status} shows; it can change nothing. It holds nothing
 * secret (the job secret is never in a status), and is served without authentication, like
 * every YARN AM page reached through the RM's web proxy.
 */
public final class JobPage implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JobPage.class);
  /** One sample every 2 s, two hours of them. */
  static final long SAMPLE_MS = 2000;
  static final int SAMPLES = 3600;

  /** One point of the chart: when, the ring's size the leader reported, the target. */
  record Sample(long millis, int workers, int target) {}

  /** The job's checkpoints, newest first, as the page lists them. */
  @FunctionalInterface
  public interface CheckpointSource {
    List<CheckpointCatalog.Entry> list() throws IOException;
  }

  /** Listed again at most this often: a page reloads every 5 s, and listing reads HDFS. */
  static final long CHECKPOINTS_TTL_MS = 10_000;

  private final JobControl.Iface control;
  private final CheckpointSource checkpoints;
  /** The job's throughput curve in {@link PublishedCurve}'s form, for the RM ({@code speedup.txt}). */
  private final Callable<String> curve;
  private List<CheckpointCatalog.Entry> listed = List.of();
  private String listingProblem = "";
  private long listedAt = Long.MIN_VALUE;
  private final HttpServer server;
  private final ScheduledExecutorService sampler;
  private final Deque<Sample> history = new ArrayDeque<>();

  private JobPage(JobControl.Iface control, CheckpointSource checkpoints, Callable<String> curve, HttpServer server) {
    this.control = control;
    this.checkpoints = checkpoints;
    this.curve = curve;
    this.server = server;
    this.sampler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "job-page-sampler");
      t.setDaemon(true);
      return t;
    });
  }

  /** Serves the page on an ephemeral port of {@code bindHost}; {@link #url} is the tracking URL. */
  public static JobPage start(JobControl.Iface control, CheckpointSource checkpoints, Callable<String> curve,
      String bindHost) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(bindHost, 0), 16);
    JobPage page = new JobPage(control, checkpoints, curve, server);
    server.createContext("/", page::serve);
    server.setExecutor(Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "job-page");
      t.setDaemon(true);
      return t;
    }));
    server.start();
    page.sampler.scheduleWithFixedDelay(page::sample, 0, SAMPLE_MS, TimeUnit.MILLISECONDS);
    return page;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** {@code http://<host>:<port>/}, the URL the AM registers with the ResourceManager. */
  public String url(String host) {
    return "http://" + host + ":" + port() + "/";
  }

  private void sample() {
    try {
      JobStatus s = control.status();
      int workers = s.isSetProgress() ? s.getProgress().getWorkers() : 0;
      synchronized (history) {
        history.addLast(new Sample(System.currentTimeMillis(), workers, s.getTargetWorkers()));
        while (history.size() > SAMPLES) {
          history.removeFirst();
        }
      }
    } catch (Exception e) {
      LOG.debug("job page: no status to sample ({})", e.toString());
    }
  }

  private synchronized List<CheckpointCatalog.Entry> checkpoints() {
    long now = System.currentTimeMillis();
    if (listedAt == Long.MIN_VALUE || now - listedAt >= CHECKPOINTS_TTL_MS) {
      try {
        listed = checkpoints.list();
        listingProblem = "";
      } catch (IOException | RuntimeException e) {
        listingProblem = "could not list the checkpoints: " + e.getMessage();
      }
      listedAt = now;
    }
    return listed;
  }

  private synchronized String listingProblem() {
    return listingProblem;
  }

  List<Sample> history() {
    synchronized (history) {
      return new ArrayList<>(history);
    }
  }

  private void serve(HttpExchange x) throws IOException {
    try (x) {
      if (!x.getRequestMethod().equals("GET") && !x.getRequestMethod().equals("HEAD")) {
        send(x, 405, "text/plain; charset=utf-8", "only GET\n".getBytes(StandardCharsets.UTF_8));
        return;
      }
      String path = x.getRequestURI().getPath();
      // Behind the RM's proxy the path keeps its /proxy/<appId> prefix: the last segment decides.
      String last = path.substring(path.lastIndexOf('/') + 1);
      switch (last) {
        case "status.json" -> send(x, 200, "application/json; charset=utf-8", json(control.status()));
        case "size.png" -> send(x, 200, "image/png", chart(history()));
        case "speedup.txt" -> send(x, 200, "text/plain; charset=utf-8", curveText());
        case "", "index.html" -> {
          List<CheckpointCatalog.Entry> listedNow = checkpoints();
          send(x, 200, "text/html; charset=utf-8",
              html(control.status(), history(), listedNow, listingProblem()).getBytes(StandardCharsets.UTF_8));
        }
        default -> send(x, 404, "text/plain; charset=utf-8", ("no such page: " + last + "\n")
            .getBytes(StandardCharsets.UTF_8));
      }
    } catch (TException | RuntimeException e) {
      LOG.warn("job page: {}", e.toString());
      send(x, 503, "text/plain; charset=utf-8", ("the job's status is not available: " + e.getMessage() + "\n")
          .getBytes(StandardCharsets.UTF_8));
    }
  }

  private byte[] curveText() {
    try {
      return (curve.call() + "\n").getBytes(StandardCharsets.UTF_8);
    } catch (Exception e) {
      throw new IllegalStateException("the throughput curve is not available: " + e, e);
    }
  }

  static byte[] json(JobStatus s) throws TException {
    return new TSerializer(new TSimpleJSONProtocol.Factory()).serialize(s);
  }

  static String html(JobStatus s, List<Sample> history, List<CheckpointCatalog.Entry> checkpoints,
      String listingProblem) {
    StringBuilder b = new StringBuilder();
    b.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>").append(esc(s.getAppId())).append(' ')
        .append(s.getState()).append("</title>\n<meta http-equiv=\"refresh\" content=\"5\">\n")
        .append("<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 12px;text-align:left}"
            + "th{background:#eee}</style></head><body>\n");
    b.append("<h1>EDL job ").append(esc(s.getAppId())).append("</h1>\n<table id=\"summary\">\n");
    row(b, "State", s.getState().toString());
    row(b, "Workers", String.format(Locale.ROOT, "target %d (min %s, max %s), %d containers", s.getTargetWorkers(),
        s.isSetMinWorkers() ? s.getMinWorkers() : "?", s.isSetMaxWorkers() ? s.getMaxWorkers() : "?",
        s.getContainersSize()));
    row(b, "Backend", s.isSetBackend() ? s.getBackend() : "");
    if (s.isSetProgress()) {
      JobProgress p = s.getProgress();
      row(b, "Progress", RendezvousProgress.is(p) ? RendezvousProgress.describe(p)
          : String.format(Locale.ROOT, "step %d/%d, loss %.4f, %.0f samples/s, %d workers in the ring",
              p.getStep(), p.getTotalSteps(), p.getLoss(), p.getSamplesPerSecond(), p.getWorkers()));
    }
    row(b, "Last event", s.isSetDiagnostics() ? s.getDiagnostics() : "");
    b.append("</table>\n<h2>Ring size over time</h2>\n");
    b.append(history.isEmpty() ? "<p>No samples yet.</p>\n" : "<img id=\"size\" src=\"size.png\" alt=\"ring size over time\">\n");
    b.append("<h2>Containers</h2>\n<table id=\"containers\"><tr><th>container</th><th>host</th><th>GPUs</th>"
        + "<th>in the ring</th></tr>\n");
    List<String> members = s.isSetProgress() && s.getProgress().isSetMembers() ? s.getProgress().getMembers() : List.of();
    java.util.Map<String, WorkerPlacement> where = new java.util.HashMap<>();
    if (s.isSetPlacements()) {
      s.getPlacements().forEach(p -> where.put(p.getContainer(), p));
    }
    for (String c : s.getContainers()) {
      WorkerPlacement p = where.get(c);
      b.append("<tr><td>").append(esc(c)).append("</td><td>").append(p == null ? "" : esc(p.getHost()))
          .append("</td><td>").append(p == null ? "" : esc(p.getGpus().toString().replaceAll("[\\[\\]]", "")))
          .append("</td><td>").append(members.contains(c) ? "yes" : "no").append("</td></tr>\n");
    }
    b.append("</table>\n");
    if (s.isSetProgress() && s.getProgress().isSetEvents() && !s.getProgress().getEvents().isEmpty()) {
      b.append("<h2>The leader's events</h2>\n<ul id=\"events\">\n");
      s.getProgress().getEvents().forEach(e -> b.append("<li>").append(esc(e)).append("</li>\n"));
      b.append("</ul>\n");
    }
    b.append("<h2>Checkpoints</h2>\n");
    if (!listingProblem.isEmpty()) {
      b.append("<p>").append(esc(listingProblem)).append("</p>\n");
    }
    if (checkpoints.isEmpty()) {
      b.append("<p id=\"checkpoints\">None yet.</p>\n");
    } else {
      b.append("<table id=\"checkpoints\"><tr><th>step</th><th>written</th><th>size</th><th>workers</th>"
          + "<th>path</th></tr>\n");
      for (CheckpointCatalog.Entry e : checkpoints) {
        b.append("<tr><td>").append(e.step()).append("</td><td>").append(e.time()).append("</td><td>")
            .append(esc(CheckpointCatalog.size(e.bytes()))).append("</td><td>")
            .append(e.meta().map(m -> Integer.toString(m.workers())).orElse("-")).append("</td><td>")
            .append(esc(e.path().toString())).append(e.problem().map(p -> " (" + esc(p) + ")").orElse(""))
            .append("</td></tr>\n");
      }
      b.append("</table>\n<p>Not verified here: <code>edl checkpoints ").append(esc(s.getAppId()))
          .append("</code> checks each against its checksums.</p>\n");
    }
    b.append("<p><a href=\"status.json\">status.json</a> (the same, for scripts)</p>\n</body></html>\n");
    return b.toString();
  }

  static byte[] chart(List<Sample> history) throws IOException {
    XYSeries workers = new XYSeries("workers in the ring");
    XYSeries target = new XYSeries("target");
    long t0 = history.isEmpty() ? 0 : history.get(0).millis();
    for (Sample s : history) {
      double t = (s.millis() - t0) / 1000.0;
      workers.add(t, s.workers());
      target.add(t, s.target());
    }
    XYSeriesCollection data = new XYSeriesCollection();
    data.addSeries(workers);
    data.addSeries(target);
    NumberAxis y = new NumberAxis("workers");
    y.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    XYStepRenderer renderer = new XYStepRenderer();
    renderer.setSeriesPaint(0, new Color(0x1f77b4));
    renderer.setSeriesPaint(1, new Color(0xff7f0e));
    // Thick enough to see; the target dashed, so the ring line shows where the two are equal.
    renderer.setSeriesStroke(0, new java.awt.BasicStroke(3f));
    renderer.setSeriesStroke(1, new java.awt.BasicStroke(1.5f, java.awt.BasicStroke.CAP_BUTT,
        java.awt.BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
    XYPlot plot = new XYPlot(data, new NumberAxis("seconds since the page started"), y, renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    JFreeChart chart = new JFreeChart(null, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ChartUtils.writeChartAsPNG(out, chart, 800, 300);
    return out.toByteArray();
  }

  private static void row(StringBuilder b, String name, String value) {
    b.append("<tr><th>").append(esc(name)).append("</th><td>").append(esc(value)).append("</td></tr>\n");
  }

  static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  private static void send(HttpExchange x, int code, String type, byte[] body) throws IOException {
    x.getResponseHeaders().set("Content-Type", type);
    x.getResponseHeaders().set("Cache-Control", "no-store");
    boolean head = x.getRequestMethod().equals("HEAD");
    x.sendResponseHeaders(code, head ? -1 : body.length);
    if (!head) {
      try (OutputStream o = x.getResponseBody()) {
        o.write(body);
      }
    }
  }

  @Override
  public void close() {
    sampler.shutdownNow();
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }
}
