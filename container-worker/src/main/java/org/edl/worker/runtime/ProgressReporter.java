package org.edl.worker.runtime;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.edl.job.HostPort;
import org.edl.job.JobSecret;
import org.edl.job.rpc.RpcClient;
import org.edl.job.rpc.RpcConnection;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobProgress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's periodic {@code JobControl.reportProgress} to the ApplicationMaster. A failed
 * report is logged and the connection reopened next time: progress is advisory and must never
 * stop training. The AM may have moved meanwhile (a new attempt listens elsewhere): after a
 * failed report the address is looked up again, and the next report goes to the one found.
 */
final class ProgressReporter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProgressReporter.class);

  private volatile HostPort am;
  private final AmLookup lookup;
  private final JobSecret secret;
  private final Duration timeout;
  private final Supplier<Optional<JobProgress>> progress;
  private final ScheduledExecutorService timer;
  private RpcConnection connection;
  private JobControl.Client client;
  private long lastLoggedStep = -1;
  private volatile ScheduledFuture<?> periodic;

  /** Where the AM listens now, as the latest attempt published it; empty when unknown. */
  @FunctionalInterface
  interface AmLookup {
    Optional<HostPort> current() throws Exception;

    AmLookup NONE = Optional::empty;
  }

  ProgressReporter(HostPort am, JobSecret secret, Duration timeout,
      Supplier<Optional<JobProgress>> progress) {
    this(am, AmLookup.NONE, secret, timeout, progress);
  }

  /** @param am the first guess (the launch environment's); {@code lookup} replaces it after a failure */
  ProgressReporter(HostPort am, AmLookup lookup, JobSecret secret, Duration timeout,
      Supplier<Optional<JobProgress>> progress) {
    this.am = am;
    this.lookup = lookup;
    this.secret = secret;
    this.timeout = timeout;
    this.progress = progress;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "edl-progress");
      t.setDaemon(true);
      return t;
    });
  }

  void start(Duration interval) {
    periodic = timer.scheduleWithFixedDelay(this::reportSafely, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Sends the final report now, on the reporter's thread, and waits for it. Periodic reports stop
   * first, so that none overtakes the final one (which names the model's path).
   */
  void reportNow(JobProgress finalProgress) {
    if (periodic != null) {
      periodic.cancel(false);
    }
    try {
      timer.submit(() -> {
        try {
          send(finalProgress);
        } catch (Exception e) {
          // The last report names the model: worth one more try at wherever the AM is now.
          LOG.warn("Final progress report to the AM at {} failed: {}; looking it up again", am, e.toString());
          disconnect();
          relocate();
          send(finalProgress);
        }
        return null;
      }).get(timeout.toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      LOG.warn("Final progress report to the AM at {} failed: {}", am, e.toString());
    }
  }

  private void reportSafely() {
    try {
      Optional<JobProgress> p = progress.get();
      if (p.isPresent()) {
        send(p.get());
      }
    } catch (Exception e) {
      LOG.warn("Progress report to the AM at {} failed: {}", am, e.toString());
      disconnect();
      relocate();
    }
  }

  private void relocate() {
    try {
      Optional<HostPort> now = lookup.current();
      if (now.isPresent() && !now.get().equals(am)) {
        LOG.info("The AM moved from {} to {}", am, now.get());
        am = now.get();
      }
    } catch (Exception e) {
      LOG.warn("Could not look up the AM's address: {}", e.toString());
    }
  }

  private void send(JobProgress p) throws Exception {
    if (client == null) {
      connection = RpcClient.open(am.host(), am.port(), secret, timeout);
      client = new JobControl.Client(connection.protocol());
    }
    client.reportProgress(p);
    if (p.getStep() != lastLoggedStep) {
      lastLoggedStep = p.getStep();
      LOG.info("progress: step {}/{} loss {} {} samples/s, {} workers", p.getStep(),
          p.getTotalSteps(), String.format("%.5f", p.getLoss()),
          String.format("%.1f", p.getSamplesPerSecond()), p.getWorkers());
    }
  }

  private void disconnect() {
    if (connection != null) {
      connection.close();
    }
    connection = null;
    client = null;
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    disconnect();
  }
}
