package org.edl.worker.script;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches a script's signs of life (its {@code alive} calls, one a second from a thread of its
 * own): once one came, a silence longer than the timeout means the process is paused (SIGSTOP, a
 * debugger) or stuck with Python's lock held, and {@code onSilence} runs, once. A paused member
 * would otherwise hold its group's other members inside their all-reduce until the group's own
 * timeout (60 s), while its worker, still heartbeating, looks alive to the leader.
 */
final class ScriptLiveness implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ScriptLiveness.class);
  /** How long a script may give no sign of life. */
  static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final long CHECK_MS = 250;

  private final LongSupplier nanos;
  private final long timeoutNanos;
  private final Runnable onSilence;
  private volatile long last = Long.MIN_VALUE;
  private volatile boolean fired;
  private volatile Thread watcher;

  ScriptLiveness(LongSupplier nanos, Duration timeout, Runnable onSilence) {
    this.nanos = nanos;
    this.timeoutNanos = timeout.toNanos();
    this.onSilence = onSilence;
  }

  /** Whether a sign of life has come yet (before one, the script is not judged). */
  boolean heard() {
    return last != Long.MIN_VALUE;
  }

  /** A sign of life came. */
  void sign() {
    last = nanos.getAsLong();
  }

  /**
   * Whether the script has been silent too long, and if so runs {@code onSilence} (once). Before
   * its first sign a script is not judged: it may not have started its thread yet.
   */
  boolean check() {
    long seen = last;
    if (fired || seen == Long.MIN_VALUE || nanos.getAsLong() - seen <= timeoutNanos) {
      return fired;
    }
    fired = true;
    LOG.warn("The script gave no sign of life for {} ms", (nanos.getAsLong() - seen) / 1_000_000);
    onSilence.run();
    return true;
  }

  /** Checks four times a second on a daemon thread of its own, until closed or fired. */
  ScriptLiveness watch(String name) {
    Thread t = new Thread(() -> {
      try {
        while (!check()) {
          TimeUnit.MILLISECONDS.sleep(CHECK_MS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "edl-script-liveness-" + name);
    t.setDaemon(true);
    watcher = t;
    t.start();
    return this;
  }

  @Override
  public void close() {
    Thread t = watcher;
    if (t != null) {
      t.interrupt();
    }
  }
}
