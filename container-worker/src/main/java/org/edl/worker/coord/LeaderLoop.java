package org.edl.worker.coord;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread a coordinator's state lives on, as Flink's resource manager runs every decision
 * on its main-thread executor. Callers hand it tasks and wait for their futures; long polls are
 * {@linkplain #hold holds}: an answer asked again after every task and every tick, whose future
 * completes once the answer settles or its deadline (on the injected {@link Ticker}) has passed.
 * Nothing else touches the state, so it needs no lock.
 *
 * <p>The thread ticks every {@code periodMs} while its owner says so (it leads) or a hold waits,
 * and goes away after a while with nothing to do; the next task starts it again.
 */
public final class LeaderLoop {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderLoop.class);
  private static final long IDLE_THREAD_SECONDS = 5;

  /** Work for the loop's thread; what it throws reaches the caller as it was thrown. */
  @FunctionalInterface
  public interface Task<T, E extends Exception> {
    T run() throws E;
  }

  /** A long poll: its question, when its answer is final, and until when it waits. */
  private final class Hold<T> {
    final Task<T, ?> ask;
    final Predicate<T> settled;
    final long deadline;
    final CompletableFuture<T> answer = new CompletableFuture<>();

    Hold(Task<T, ?> ask, Predicate<T> settled, long deadline) {
      this.ask = ask;
      this.settled = settled;
      this.deadline = deadline;
    }

    /** Asks again; true when this hold is over (answered, failed, or given up by its caller). */
    boolean askAgain(long now) {
      if (answer.isDone()) {
        return true;
      }
      try {
        T a = ask.run();
        if (settled.test(a) || now - deadline >= 0) {
          answer.complete(a);
        }
      } catch (Exception e) {
        answer.completeExceptionally(e);
      }
      return answer.isDone();
    }
  }

  private final Ticker ticker;
  private final long periodMs;
  private final Runnable tick;
  private final BooleanSupplier ticking;
  private final ScheduledThreadPoolExecutor executor;
  private final ThreadLocal<Boolean> onLoop = ThreadLocal.withInitial(() -> false);
  /** Touched on the loop's thread only. */
  private final List<Hold<?>> holds = new ArrayList<>();
  private ScheduledFuture<?> ticks;

  /**
   * @param tick    what the owner does on each tick (on the loop's thread)
   * @param ticking whether the owner needs ticks now (asked on the loop's thread)
   */
  public LeaderLoop(String owner, Ticker ticker, long periodMs, Runnable tick, BooleanSupplier ticking) {
    this.ticker = ticker;
    this.periodMs = periodMs;
    this.tick = tick;
    this.ticking = ticking;
    this.executor = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(() -> {
        onLoop.set(true);
        r.run();
      }, "edl-leader-" + owner);
      t.setDaemon(true);
      return t;
    });
    executor.setKeepAliveTime(IDLE_THREAD_SECONDS, TimeUnit.SECONDS);
    executor.allowCoreThreadTimeOut(true);
    executor.setRemoveOnCancelPolicy(true);
  }

  /** Whether the calling thread is the loop's. */
  public boolean onLoop() {
    return onLoop.get();
  }

  /**
   * Runs {@code task} on the loop and waits for it (at once, on the loop's own thread). Holds are
   * asked again after it.
   */
  public <T, E extends Exception> T call(Task<T, E> task) throws E {
    if (onLoop()) {
      return task.run();
    }
    CompletableFuture<T> done = new CompletableFuture<>();
    executor.execute(() -> {
      try {
        done.complete(task.run());
      } catch (Exception e) {
        done.completeExceptionally(e);
      } finally {
        afterTask();
      }
    });
    return join(done);
  }

  /** Runs {@code task} on the loop without waiting (a fence from ZooKeeper's thread must not wait). */
  public void post(Runnable task) {
    executor.execute(() -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        LOG.warn("Leader loop task failed: {}", e.toString(), e);
      } finally {
        afterTask();
      }
    });
  }

  /**
   * Asks {@code ask} on the loop now, after every later task and on every tick, until its answer
   * is {@code settled} or {@code timeoutNanos} (on the ticker) have passed; returns the last
   * answer. What {@code ask} throws ends the hold with it.
   *
   * @throws InterruptedException the caller was interrupted (its hold is dropped)
   */
  public <T, E extends Exception> T hold(Task<T, E> ask, Predicate<T> settled, long timeoutNanos)
      throws E, InterruptedException {
    if (onLoop()) {
      throw new IllegalStateException("a hold on the leader's own thread would never be answered");
    }
    Hold<T> h = new Hold<>(ask, settled, ticker.nanos() + Math.max(0, timeoutNanos));
    executor.execute(() -> {
      if (!h.askAgain(ticker.nanos())) {
        holds.add(h);
      }
      afterTask();
    });
    try {
      return joinInterruptibly(h.answer);
    } catch (InterruptedException e) {
      h.answer.cancel(false);
      throw e;
    }
  }

  /** After each task: asks the holds again, and keeps the ticks going while they are needed. */
  private void afterTask() {
    recheck();
    boolean needed = !holds.isEmpty() || ticking.getAsBoolean();
    if (needed && ticks == null) {
      ticks = executor.scheduleWithFixedDelay(this::onTick, periodMs, periodMs, TimeUnit.MILLISECONDS);
    } else if (!needed && ticks != null) {
      ticks.cancel(false);
      ticks = null;
    }
  }

  private void onTick() {
    try {
      tick.run();
    } catch (RuntimeException e) {
      LOG.warn("Leader tick failed: {}", e.toString(), e);
    }
    afterTask();
  }

  /**
   * Asks every hold again until a round ends none: an answer may change the state another hold
   * waits on (a member told the job's end is one less the leader waits for).
   */
  private void recheck() {
    boolean ended = true;
    while (ended && !holds.isEmpty()) {
      long now = ticker.nanos();
      ended = holds.removeIf(h -> h.askAgain(now));
    }
  }

  @SuppressWarnings("unchecked")
  private static <T, E extends Exception> T join(CompletableFuture<T> f) throws E {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return f.get();
        } catch (InterruptedException e) {
          // A decision the loop has started is carried out; its caller still hears its answer.
          interrupted = true;
        } catch (ExecutionException e) {
          throw (E) rethrowable(e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static <T, E extends Exception> T joinInterruptibly(CompletableFuture<T> f)
      throws E, InterruptedException {
    try {
      return f.get();
    } catch (ExecutionException e) {
      throw (E) rethrowable(e.getCause());
    } catch (CancellationException e) {
      throw new InterruptedException("the hold was given up");
    }
  }

  /** An unchecked cause is thrown as it is; a checked one is the task's own {@code E}. */
  private static Exception rethrowable(Throwable cause) {
    if (cause instanceof RuntimeException r) {
      throw r;
    }
    if (cause instanceof Error err) {
      throw err;
    }
    return (Exception) cause;
  }
}
