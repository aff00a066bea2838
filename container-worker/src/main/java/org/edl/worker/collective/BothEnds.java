package org.edl.worker.collective;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the two ends of a transfer within one worker: one on a daemon thread, one on the caller's,
 * and returns once both ended (a rehearsal of what a newcomer does first, see
 * {@link ModelBroadcast#rehearse} and {@link RingAllReduce#rehearse}).
 */
final class BothEnds {
  /** One end's work. */
  @FunctionalInterface
  interface End {
    void run() throws IOException;
  }

  private BothEnds() {}

  /** @param what for messages and the thread's name: what the two ends do */
  static void run(String what, String workerId, End here, End there, Duration timeout) throws IOException {
    CompletableFuture<Void> other = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        there.run();
        other.complete(null);
      } catch (IOException | RuntimeException e) {
        other.completeExceptionally(e);
      }
    }, "edl-rehearsal-" + workerId);
    t.setDaemon(true);
    t.start();
    try {
      here.run();
      other.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IOException(what + " failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new CollectiveTimeoutException(what + " did not end within " + timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted " + what);
    } finally {
      if (Thread.currentThread().isInterrupted()) {
        t.interrupt();
      }
    }
  }
}
