package org.edl.testing;

import java.time.Duration;
import java.util.function.Predicate;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;

/**
 * Waiting on state another process owns (the ResourceManager's application report, an AM's job
 * status): neither offers a notification, so the tests poll, in one place. A wait ends when the
 * state is reached, fails at once when a job status shows the job over, and otherwise fails after
 * the timeout naming what it waited for and the last value seen.
 */
public final class Await {
  /** Long enough for container start-up on a loaded 2-core machine; no test asserts on it. */
  public static final Duration WAIT = Duration.ofMinutes(3);
  private static final Duration POLL = Duration.ofMillis(250);

  @FunctionalInterface
  public interface Probe<T> {
    T get() throws Exception;
  }

  private Await() {}

  public static <T> T until(String what, Probe<T> probe, Predicate<T> done) throws Exception {
    return until(what, probe, done, WAIT);
  }

  public static <T> T until(String what, Probe<T> probe, Predicate<T> done, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    T last = null;
    while (System.nanoTime() < deadline) {
      last = probe.get();
      if (last != null && done.test(last)) {
        return last;
      }
      if (last instanceof JobStatus s && (s.getState() == JobState.FAILED || s.getState() == JobState.SUCCEEDED)) {
        throw new AssertionError("the job ended while waiting for " + what + ": " + s);
      }
      Thread.sleep(POLL.toMillis());
    }
    throw new AssertionError("gave up waiting for " + what + " after " + timeout + "; last seen: " + last);
  }
}
