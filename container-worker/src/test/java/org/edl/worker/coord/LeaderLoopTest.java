package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.testing.Await;
import org.junit.jupiter.api.Test;

/** The leader's one thread: tasks in order on it, holds answered when a task or tick settles them. */
class LeaderLoopTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final AtomicInteger ticks = new AtomicInteger();
  private final AtomicBoolean leading = new AtomicBoolean();
  /** Counted down by every tick once a test arms it. */
  private volatile CountDownLatch ticksAfter = new CountDownLatch(0);
  private final LeaderLoop loop = new LeaderLoop("t", now::get, 10, this::tick, leading::get);
  /** Only the loop touches it, so a plain list: a second thread would show as a lost or torn add. */
  private final List<Integer> state = new ArrayList<>();

  @Test
  void everyTaskRunsOnOneThreadInTheOrderGiven() throws Exception {
    Set<String> threads = ConcurrentHashMap.newKeySet();
    List<CompletableFuture<Void>> callers = new ArrayList<>();
    for (int c = 0; c < 4; c++) {
      int caller = c;
      callers.add(CompletableFuture.runAsync(() -> {
        for (int i = 0; i < 250; i++) {
          int n = caller * 1000 + i;
          loop.call(() -> {
            threads.add(Thread.currentThread().getName());
            state.add(n);
            return null;
          });
        }
      }));
    }
    CompletableFuture.allOf(callers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    List<Integer> seen = loop.call(() -> List.copyOf(state));
    assertEquals(1000, seen.size());
    for (int c = 0; c < 4; c++) {
      int caller = c;
      List<Integer> own = seen.stream().filter(n -> n / 1000 == caller).toList();
      List<Integer> sorted = new ArrayList<>(own);
      Collections.sort(sorted);
      assertEquals(sorted, own, "each caller's tasks in its order");
    }
    assertEquals(Set.of("edl-leader-t"), threads);
  }

  @Test
  void aCallFromTheLoopRunsAtOnceAndAHoldThereIsRefused() {
    assertTrue(loop.call(() -> loop.call(loop::onLoop)), "a nested call runs inline instead of waiting on itself");
    assertFalse(loop.onLoop());
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> loop.call(() -> loop.hold(() -> 1, x -> true, 0)));
    assertTrue(e.getMessage().contains("never be answered"), e.getMessage());
  }

  @Test
  void aHoldIsAnsweredByTheTaskThatSettlesIt() throws Exception {
    CompletableFuture<Integer> held = holdAsync(() -> state.size(), n -> n >= 2, TimeUnit.SECONDS.toNanos(60));
    loop.call(() -> state.add(1));
    assertThrows(TimeoutException.class, () -> held.get(200, TimeUnit.MILLISECONDS), "one is not two");
    loop.call(() -> state.add(2));
    assertEquals(2, held.get(10, TimeUnit.SECONDS));
  }

  @Test
  void aHoldEndsWithItsLastAnswerOnceTheTickersDeadlinePassed() throws Exception {
    CompletableFuture<Integer> held = holdAsync(() -> state.size(), n -> n > 0, TimeUnit.SECONDS.toNanos(5));
    assertThrows(TimeoutException.class, () -> held.get(200, TimeUnit.MILLISECONDS),
        "the ticker stands still: only an answer ends it");
    now.addAndGet(TimeUnit.SECONDS.toNanos(5));
    assertEquals(0, held.get(10, TimeUnit.SECONDS), "the next tick sees the deadline");
  }

  @Test
  void whatAnAskThrowsReachesTheHolderAsItWasThrown() {
    IOException thrown = new IOException("not the leader");
    IOException e = assertThrows(IOException.class, () -> loop.<Integer, IOException>hold(() -> {
      throw thrown;
    }, n -> true, 0));
    assertSame(thrown, e);
    IllegalArgumentException u = assertThrows(IllegalArgumentException.class, () -> loop.call(() -> {
      throw new IllegalArgumentException("bad");
    }));
    assertEquals("bad", u.getMessage());
  }

  @Test
  void anInterruptedHolderIsForgotten() throws Exception {
    AtomicInteger asked = new AtomicInteger();
    CountDownLatch waiting = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    Thread holder = new Thread(() -> {
      try {
        loop.hold(() -> {
          waiting.countDown();
          return asked.incrementAndGet();
        }, n -> false, TimeUnit.SECONDS.toNanos(60));
      } catch (InterruptedException e) {
        interrupted.set(true);
      }
    });
    holder.start();
    assertTrue(waiting.await(10, TimeUnit.SECONDS));
    holder.interrupt();
    holder.join(10_000);
    assertTrue(interrupted.get());
    loop.call(() -> null);
    int after = asked.get();
    loop.call(() -> null);
    loop.call(() -> null);
    assertEquals(after, asked.get(), "a given-up hold is not asked again");
  }

  @Test
  void itTicksOnlyWhileItsOwnerLeadsOrAHoldWaits() throws Exception {
    leading.set(true);
    loop.call(() -> null);
    Await.until("ticks while leading", ticks::get, n -> n >= 3);
    leading.set(false);
    loop.call(() -> null);
    // Armed on the loop's one thread after the task that stopped the ticks: a tick already under
    // way has run by then, and none may come in the next 20 periods.
    CountDownLatch another = new CountDownLatch(1);
    loop.call(() -> ticksAfter = another);
    assertFalse(another.await(200, TimeUnit.MILLISECONDS), "a tick after the owner stopped leading");
  }

  private void tick() {
    ticks.incrementAndGet();
    ticksAfter.countDown();
  }

  private <T> CompletableFuture<T> holdAsync(LeaderLoop.Task<T, RuntimeException> ask,
      java.util.function.Predicate<T> settled, long timeoutNanos) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return loop.hold(ask, settled, timeoutNanos);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
  }
}
