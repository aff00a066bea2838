package org.edl.scheduler.rm;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The throughput curves EDL ApplicationMasters publish on their job page
 * ({@code <tracking URL>}{@value #PAGE}, see {@link SpeedupCurve#published}), fetched in the
 * background so that a round never waits on the network: {@link #curveOf} answers from what was
 * fetched last and asks for a fresh copy when that is older than {@link #REFRESH_MS}. This is how
 * a curve a job measures while it runs reaches the RM: the RM already knows every AM's tracking
 * URL (its web proxy serves it), so the channel needs no configuration and no store of its own.
 * An AM that does not answer, or answers with something else, leaves the application on its tag's
 * curve (or linear), with one warning per application.
 */
final class AmSpeedups implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AmSpeedups.class);
  /** The job page's path for the curve, relative to the tracking URL. */
  static final String PAGE = "speedup.txt";
  static final long REFRESH_MS = 30_000;
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  private record Fetched(SpeedupCurve curve, long atMs) {}

  private final Map<ApplicationId, Fetched> fetched = new ConcurrentHashMap<>();
  private final Set<ApplicationId> inFlight = ConcurrentHashMap.newKeySet();
  private final Set<ApplicationId> warned = ConcurrentHashMap.newKeySet();
  private final LongSupplier clockMs;
  private final ExecutorService fetcher = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "edl-am-speedups");
    t.setDaemon(true);
    return t;
  });
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).executor(fetcher).build();

  AmSpeedups(LongSupplier clockMs) {
    this.clockMs = clockMs;
  }

  /**
   * The curve {@code app}'s AM published when last asked; null if none yet (or none at all).
   * Asks again in the background when that is {@link #REFRESH_MS} old.
   */
  SpeedupCurve curveOf(ApplicationId app, String trackingUrl) {
    Fetched f = fetched.get(app);
    long now = clockMs.getAsLong();
    if (trackingUrl != null && trackingUrl.startsWith("http") && (f == null || now - f.atMs() >= REFRESH_MS)
        && inFlight.add(app)) {
      fetch(app, trackingUrl, now);
    }
    return f == null ? null : f.curve();
  }

  /** Forgets the applications not in {@code present} (finished ones). */
  void retainOnly(Set<ApplicationId> present) {
    fetched.keySet().retainAll(present);
    warned.retainAll(present);
  }

  private void fetch(ApplicationId app, String trackingUrl, long now) {
    URI uri;
    try {
      uri = URI.create(trackingUrl.endsWith("/") ? trackingUrl + PAGE : trackingUrl + "/" + PAGE);
    } catch (IllegalArgumentException e) {
      inFlight.remove(app);
      fetched.put(app, new Fetched(null, now));
      warnOnce(app, "its tracking URL '" + trackingUrl + "' is not a URL");
      return;
    }
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build();
    http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((response, error) -> {
      SpeedupCurve curve = null;
      if (error != null) {
        warnOnce(app, "GET " + uri + " failed: " + error);
      } else if (response.statusCode() != 200) {
        warnOnce(app, "GET " + uri + " answered " + response.statusCode());
      } else {
        curve = SpeedupCurve.published(response.body().trim());
        if (curve == null && !response.body().trim().endsWith(":")) {
          warnOnce(app, "GET " + uri + " gave no curve: '" + abbreviate(response.body().trim()) + "'");
        }
      }
      Fetched before = fetched.put(app, new Fetched(curve, now));
      inFlight.remove(app);
      if (curve != null && (before == null || before.curve() == null || before.curve().sizes() < curve.sizes())) {
        // Once per size the job adds, so that an operator sees which curve rule 4 goes by.
        LOG.info("{}'s ApplicationMaster publishes its throughput curve up to {} workers: {}", app, curve.sizes(),
            curve);
      }
    });
  }

  private void warnOnce(ApplicationId app, String why) {
    if (warned.add(app)) {
      LOG.warn("No published throughput curve from {}'s ApplicationMaster ({}); its tag's curve, or linear,"
          + " counts", app, why);
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 80) + "...";
  }

  @Override
  public void close() {
    fetcher.shutdownNow();
  }
}
