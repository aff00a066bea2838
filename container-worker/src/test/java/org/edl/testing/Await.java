package org.edl.testing;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;

/**
 * Waiting on state another thread or process owns (the ResourceManager's application report, an
 * AM's job status, a ZooKeeper node, a worker's phase): the one polling helper of the tests, on
 * Awaitility. A wait ends when the state is reached, fails at once when a job status shows the job
 * over, and otherwise fails after the timeout naming what it waited for and the last value seen.
 */
public final class Await {
  /** Long enough for container start-up on a loaded 2-core machine; no test asserts on it. */
  public static final Duration WAIT = Duration.ofMinutes(3);
  private static final Duration POLL = Duration.ofMillis(100);

  @FunctionalInterface
  public interface Probe<T> {
    T get() throws Exception;
  }

  private Await() {}

  public static <T> T until(String what, Probe<T> probe, Predicate<T> done) {
    return until(what, probe, done, WAIT);
  }

  public static <T> T until(String what, Probe<T> probe, Predicate<T> done, Duration timeout) {
    return until(what, probe, done, timeout, POLL);
  }

  /** As above, probing every {@code poll}: for a probe that costs, such as a command run as a process. */
  public static <T> T until(String what, Probe<T> probe, Predicate<T> done, Duration timeout, Duration poll) {
    AtomicReference<T> last = new AtomicReference<>();
    Callable<T> watched = () -> {
      T value = probe.get();
      last.set(value);
      if (value instanceof JobStatus s && !done.test(value) && isOver(s)) {
        throw new AssertionError("the job ended while waiting for " + what + ": " + s);
      }
      return value;
    };
    try {
      return Awaitility.await(what)
          .atMost(timeout)
          .pollDelay(Duration.ZERO)
          .pollInterval(poll)
          .pollInSameThread()
          .until(watched, value -> value != null && done.test(value));
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("gave up waiting for " + what + " after " + timeout + "; last seen: " + last.get());
    }
  }

  /** Until {@code condition} holds, for at most {@link #WAIT}. */
  public static void until(String what, Callable<Boolean> condition) {
    until(what, condition, WAIT);
  }

  public static void until(String what, Callable<Boolean> condition, Duration timeout) {
    until(what, condition::call, Boolean::booleanValue, timeout);
  }

  private static boolean isOver(JobStatus s) {
    return s.getState() == JobState.FAILED || s.getState() == JobState.SUCCEEDED;
  }
}
