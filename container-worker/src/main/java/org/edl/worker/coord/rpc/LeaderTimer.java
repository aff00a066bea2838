package org.edl.worker.coord.rpc;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The leader's clock: runs the detector's timing rules ten times a second while this worker
 * leads, on a thread of its own (a leader whose callers all wait elsewhere still notices a
 * silent member). Started when a leadership begins, stopped when it ends.
 */
final class LeaderTimer {
  private final String owner;
  private final long periodMs;
  private final Runnable tick;
  private ScheduledExecutorService executor;
  private ScheduledFuture<?> ticking;

  LeaderTimer(String owner, long periodMs, Runnable tick) {
    this.owner = owner;
    this.periodMs = periodMs;
    this.tick = tick;
  }

  synchronized void start() {
    if (executor == null) {
      executor = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "edl-leader-timer-" + owner);
        t.setDaemon(true);
        return t;
      });
    }
    if (ticking == null) {
      ticking = executor.scheduleWithFixedDelay(tick, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }
  }

  synchronized void stop() {
    if (ticking != null) {
      ticking.cancel(false);
      ticking = null;
    }
    if (executor != null) {
      executor.shutdown();
      executor = null;
    }
  }
}
