package org.edl.scheduler.rm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The curves ApplicationMasters publish, fetched over real HTTP from a job page stand-in. */
class AmSpeedupsTest {
  private static final ApplicationId APP = ApplicationId.newInstance(1, 1);

  private final AtomicReference<String> body = new AtomicReference<>("1:1=100,2=180");
  private final AtomicInteger status = new AtomicInteger(200);
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicLong now = new AtomicLong(1_000_000);
  private HttpServer page;
  private AmSpeedups speedups;

  @BeforeEach
  void start() throws Exception {
    page = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 4);
    page.createContext("/", x -> {
      requests.incrementAndGet();
      byte[] b = body.get().getBytes(StandardCharsets.UTF_8);
      x.sendResponseHeaders(x.getRequestURI().getPath().endsWith("/" + AmSpeedups.PAGE) ? status.get() : 404, b.length);
      x.getResponseBody().write(b);
      x.close();
    });
    page.start();
    speedups = new AmSpeedups(now::get);
  }

  @AfterEach
  void stop() {
    speedups.close();
    page.stop(0);
  }

  private String trackingUrl() {
    return "http://127.0.0.1:" + page.getAddress().getPort() + "/";
  }

  private SpeedupCurve awaitCurve(java.util.function.Predicate<SpeedupCurve> done) {
    AtomicReference<SpeedupCurve> last = new AtomicReference<>();
    Awaitility.await("the published curve").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
        .until(() -> {
          last.set(speedups.curveOf(APP, trackingUrl()));
          return done.test(last.get());
        });
    return last.get();
  }

  @Test
  void theCurveIsFetchedInTheBackgroundAndRefreshedOnlyWhenStale() {
    assertNull(speedups.curveOf(APP, trackingUrl()), "nothing until the first fetch is back");
    SpeedupCurve c = awaitCurve(x -> x != null);
    assertEquals(1.8, c.at(2), 1e-9);
    int asked = requests.get();

    body.set("1:1=100,2=200");
    for (int i = 0; i < 20; i++) {
      assertEquals(1.8, speedups.curveOf(APP, trackingUrl()).at(2), 1e-9, "fresh enough: no new request");
    }
    assertEquals(asked, requests.get());
    now.addAndGet(AmSpeedups.REFRESH_MS);
    assertEquals(2.0, awaitCurve(x -> x != null && x.at(2) > 1.9).at(2), 1e-9);

    speedups.retainOnly(Set.of());
    assertNull(speedups.curveOf(APP, null), "forgotten once the application is gone");
  }

  @Test
  void anAmWithoutACurveLeavesNone() {
    status.set(404);
    assertNull(speedups.curveOf(APP, trackingUrl()));
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> requests.get() >= 1);
    now.addAndGet(1);
    Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(30))
        .until(() -> speedups.curveOf(APP, trackingUrl()) == null);
    assertEquals(1, requests.get(), "asked once per refresh interval, failed or not");
    assertNull(speedups.curveOf(APP, "not a url"));
    assertNull(speedups.curveOf(ApplicationId.newInstance(1, 2), "http://127.0.0.1:1/"), "nobody listens there");
  }
}
