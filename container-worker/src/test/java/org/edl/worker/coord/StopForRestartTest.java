package org.edl.worker.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.thrift.BatchRule;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobMeta;
import org.edl.thrift.StopOrder;
import org.edl.thrift.SyncReply;
import org.edl.thrift.SyncReport;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.job.JobSpec;
import org.junit.jupiter.api.Test;

/** The leader's side of stop-resume: the stop step, who hears it, what it refuses; a restored start. */
class StopForRestartTest {
  private static final Duration T_A = Duration.ofMillis(50);
  private static final int BATCH = 12;
  private final AtomicLong now = new AtomicLong(5_000_000_000L);

  private static JobSpec spec(int workers, int max, long steps) {
    return new JobSpec("t", "softmax", "synthetic:samples=64,features=4,classes=3,seed=1", "auto",
        workers, 1, max, 0, 512, 1, steps, BATCH, BatchRule.FIXED_GLOBAL, 0.1, 8, 7, "cpu", "", "")
        .validate();
  }

  private CoordinatorState running(int workers, int max, long steps) throws EdlError {
    CoordinatorState s = new CoordinatorState(spec(workers, max, steps), now::get, T_A, "c1");
    for (int i = 1; i <= workers; i++) {
      s.register(worker(i));
    }
    return s;
  }

  private static WorkerInfo worker(int i) {
    return new WorkerInfo("c" + i, "127.0.0.1", 7000 + i);
  }

  /** Every listed worker reports {@code step} with a 10 ms batch; returns the replies. */
  private static List<SyncReply> step(CoordinatorState s, long step, String... ids) throws EdlError {
    List<SyncReply> replies = new java.util.ArrayList<>();
    for (String id : ids) {
      SyncReport r = new SyncReport(id, step, 1.0, 0.010, BATCH / ids.length);
      r.setBatchStart(step * BATCH);
      replies.add(s.sync(r));
    }
    return replies;
  }

  @Test
  void theStopIsScheduledLikeAScaleInAndEveryMemberHearsItUpToItsStep() throws Exception {
    CoordinatorState s = running(3, 3, 1000);
    step(s, 0, "c1", "c2", "c3");
    step(s, 1, "c1", "c2");
    // t = 1 (reported by c1, c2); k = ceil(50 ms / 10 ms) = 5.
    StopOrder order = s.stopForRestart("hdfs:///ckpt/a");
    assertEquals(6, order.getAtStep());
    assertEquals("hdfs:///ckpt/a", order.getDirectory());
    assertEquals(order, s.stopForRestart("hdfs:///ckpt/a"), "asking again changes nothing");

    for (long t = 1; t <= 6; t++) {
      List<SyncReply> replies = t == 1 ? step(s, 1, "c3") : step(s, t, "c1", "c2", "c3");
      for (SyncReply r : replies) {
        assertEquals(order, r.getStopOrder(), "step " + t);
        assertFalse(r.isSetSwitchOrder());
      }
    }
    assertTrue(s.isComplete(6));
    assertEquals(7, s.meta().getStep());
    EdlError past = assertThrows(EdlError.class, () -> step(s, 7, "c1"));
    assertEquals("step", past.getField());
  }

  @Test
  void aStopForAnotherDirectoryWhileOneIsScheduledIsRefused() throws Exception {
    CoordinatorState s = running(2, 2, 1000);
    step(s, 0, "c1", "c2");
    StopOrder order = s.stopForRestart("/ckpt/a");
    EdlError e = assertThrows(EdlError.class, () -> s.stopForRestart("/ckpt/b"));
    assertEquals("directory", e.getField());
    assertEquals("/ckpt/b", e.getValue());
    assertTrue(e.getMessage().contains("/ckpt/a") && e.getMessage().contains("step " + order.getAtStep()),
        e.getMessage());
    assertEquals(order, s.stopOrder().orElseThrow());
  }

  @Test
  void noScaleChangeIsTakenOnceAStopIsScheduled() throws Exception {
    CoordinatorState s = running(2, 3, 1000);
    step(s, 0, "c1", "c2");
    s.stopForRestart("/ckpt/a");
    assertThrows(EdlError.class, () -> s.register(worker(3)));
    assertThrows(EdlError.class, () -> s.leave("c2"));
    assertEquals(2, s.latestTopology().getRingSize());
    assertEquals(worker(1), s.topology().getRing().get(0));
    // A retried registration of a member is still answered.
    assertFalse(s.register(worker(1)).isPending());
  }

  @Test
  void aStopIsRefusedWhileAScaleChangeIsPendingAndBeforeTheFirstRing() throws Exception {
    CoordinatorState forming = new CoordinatorState(spec(2, 3, 1000), now::get, T_A, "c1");
    forming.register(worker(1));
    EdlError early = assertThrows(EdlError.class, () -> forming.stopForRestart("/ckpt/a"));
    assertTrue(early.getMessage().contains("first ring"), early.getMessage());

    CoordinatorState s = running(2, 3, 1000);
    step(s, 0, "c1", "c2");
    s.register(worker(3));
    EdlError waiting = assertThrows(EdlError.class, () -> s.stopForRestart("/ckpt/a"));
    assertTrue(waiting.getMessage().contains("pending") && waiting.getMessage().contains("newcomers"),
        waiting.getMessage());
    s.ready("c3");
    EdlError scheduled = assertThrows(EdlError.class, () -> s.stopForRestart("/ckpt/a"));
    assertTrue(scheduled.getMessage().contains("at step"), scheduled.getMessage());
    assertTrue(s.stopOrder().isEmpty(), "nothing changed");
  }

  @Test
  void nearTheEndTheStopIsTheLastStepAndAtTheEndItIsRefused() throws Exception {
    CoordinatorState s = running(2, 2, 4);
    step(s, 0, "c1", "c2");
    step(s, 1, "c1", "c2");
    assertEquals(3, s.stopForRestart("/ckpt/a").getAtStep(), "k would pass the last step");

    CoordinatorState ending = running(2, 2, 4);
    for (long t = 0; t < 3; t++) {
      step(ending, t, "c1", "c2");
    }
    step(ending, 3, "c1");
    EdlError e = assertThrows(EdlError.class, () -> ending.stopForRestart("/ckpt/a"));
    assertTrue(e.getMessage().contains("ends"), e.getMessage());
  }

  @Test
  void aRestoredJobStartsItsFirstRingAtTheCheckpointsStepAndCursor() throws Exception {
    JobMeta start = new JobMeta(40, 0, BatchRule.FIXED_GLOBAL, BATCH, 0.1);
    start.setSamplesSeen(40 * BATCH);
    start.setLastLoss(0.5);
    start.setFinishedChunks(List.of(0, 1, 2));
    CoordinatorState s = CoordinatorState.restored(spec(2, 2, 100), now::get, T_A, "c1", start);
    s.register(worker(1));
    assertEquals(40, s.register(worker(2)).getMeta().getStep(), "registration tells where the ring starts");
    assertEquals(480, s.meta().getSamplesSeen());

    EdlError old = assertThrows(EdlError.class, () -> step(s, 39, "c1"));
    assertEquals("step", old.getField());
    step(s, 40, "c1", "c2");
    assertEquals(41, s.meta().getStep());
    assertEquals(41 * BATCH, s.meta().getSamplesSeen());
    assertEquals(41, s.progress().getStep());
    // A stop in the restarted job is scheduled from where it stands.
    assertEquals(40 + 5, s.stopForRestart("/ckpt/b").getAtStep());
  }
}
