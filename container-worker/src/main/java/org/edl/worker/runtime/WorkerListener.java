package org.edl.worker.runtime;

import org.edl.thrift.SwitchOrder;
import org.edl.worker.data.BatchSlicer;

/**
 * Hears what a worker does, on the thread that does it: for tests, benchmarks and the AM's
 * status (stop times of switches). Implementations must be quick; a listener that blocks in
 * {@link #beforeBatch} holds its worker before that batch (a test's pacing), nothing else.
 */
public interface WorkerListener {
  WorkerListener NONE = new WorkerListener() {};

  /** Both {@code first} and then {@code second} hear every event. */
  static WorkerListener both(WorkerListener first, WorkerListener second) {
    return new WorkerListener() {
      @Override
      public void registered(String workerId, boolean newcomer) {
        first.registered(workerId, newcomer);
        second.registered(workerId, newcomer);
      }

      @Override
      public void registrationDeferred(String workerId, int retryAfterMs) {
        first.registrationDeferred(workerId, retryAfterMs);
        second.registrationDeferred(workerId, retryAfterMs);
      }

      @Override
      public void beforeBatch(String workerId, long step) throws InterruptedException {
        first.beforeBatch(workerId, step);
        second.beforeBatch(workerId, step);
      }

      @Override
      public void batchTrained(String workerId, long step, BatchSlicer.Range positions, int[] samples) {
        first.batchTrained(workerId, step, positions, samples);
        second.batchTrained(workerId, step, positions, samples);
      }

      @Override
      public void readyToJoin(String workerId, long topologyVersion, long atNanos) {
        first.readyToJoin(workerId, topologyVersion, atNanos);
        second.readyToJoin(workerId, topologyVersion, atNanos);
      }

      @Override
      public void switchOrdered(String workerId, long reportedStep, SwitchOrder order) {
        first.switchOrdered(workerId, reportedStep, order);
        second.switchOrdered(workerId, reportedStep, order);
      }

      @Override
      public void switchPrepared(String workerId, SwitchOrder order, boolean fromHeartbeat) {
        first.switchPrepared(workerId, order, fromHeartbeat);
        second.switchPrepared(workerId, order, fromHeartbeat);
      }

      @Override
      public void switched(String workerId, SwitchRecord record) {
        first.switched(workerId, record);
        second.switched(workerId, record);
      }

      @Override
      public void recovered(String workerId, RecoveryRecord record) {
        first.recovered(workerId, record);
        second.recovered(workerId, record);
      }

      @Override
      public void stopped(String workerId, StopRecord record) {
        first.stopped(workerId, record);
        second.stopped(workerId, record);
      }

      @Override
      public void checkpointed(String workerId, String path, long blockedNanos, long writeNanos) {
        first.checkpointed(workerId, path, blockedNanos, writeNanos);
        second.checkpointed(workerId, path, blockedNanos, writeNanos);
      }

      @Override
      public void writingOutput(String workerId) throws Exception {
        first.writingOutput(workerId);
        second.writingOutput(workerId);
      }

      @Override
      public void leading(String workerId, long leaderEpoch) {
        first.leading(workerId, leaderEpoch);
        second.leading(workerId, leaderEpoch);
      }

      @Override
      public void orderReceived(String workerId, String kind, long leaderEpoch, long topologyVersion) {
        first.orderReceived(workerId, kind, leaderEpoch, topologyVersion);
        second.orderReceived(workerId, kind, leaderEpoch, topologyVersion);
      }
    };
  }

  /** Registered with the leader; {@code newcomer}: joining a running job at a later switch. */
  default void registered(String workerId, boolean newcomer) {}

  /** The leader is recovering from a failure and asked this newcomer to register again after {@code retryAfterMs}. */
  default void registrationDeferred(String workerId, int retryAfterMs) {}

  /** About to run {@code step}. */
  default void beforeBatch(String workerId, long step) throws InterruptedException {}

  /** Trained {@code samples}, the global sample positions {@code positions} of {@code step}. */
  default void batchTrained(String workerId, long step, BatchSlicer.Range positions, int[] samples) {}

  /** A newcomer's context is prepared and it told the leader it is ready for {@code topologyVersion}. */
  default void readyToJoin(String workerId, long topologyVersion, long atNanos) {}

  /**
   * The leader's reply to this worker's report of {@code reportedStep} carried a switch it had not
   * seen before (scheduled, or still waiting for newcomers when its step is negative).
   */
  default void switchOrdered(String workerId, long reportedStep, SwitchOrder order) {}

  /**
   * This worker began connecting for {@code order} (its next ring; the broadcaster's links to the
   * newcomers), on the news from a heartbeat or on the order in a sync reply.
   */
  default void switchPrepared(String workerId, SwitchOrder order, boolean fromHeartbeat) {}

  /** A topology switch this worker took part in is done. */
  default void switched(String workerId, SwitchRecord record) {}

  /** This worker carried out a recovery order and trains on the survivors' ring from here. */
  default void recovered(String workerId, RecoveryRecord record) {}

  /** This worker stopped for a restart and is about to end its run. */
  default void stopped(String workerId, StopRecord record) {}

  /**
   * The leader wrote a periodic checkpoint at {@code path} (on its writer thread): training
   * waited {@code blockedNanos} for it, the write took {@code writeNanos}.
   */
  default void checkpointed(String workerId, String path, long blockedNanos, long writeNanos) {}

  /** This worker leads at the job's end: every member trained the last step, the model is about to be written. */
  default void writingOutput(String workerId) throws Exception {}

  /** This worker was elected and leads the job under {@code leaderEpoch}. */
  default void leading(String workerId, long leaderEpoch) {}

  /**
   * This worker received an order of the leadership {@code leaderEpoch} and goes by it:
   * {@code kind} is {@code switch}, {@code recovery}, {@code stop} or {@code finish};
   * {@code topologyVersion} the ring it leads to (-1 for none).
   */
  default void orderReceived(String workerId, String kind, long leaderEpoch, long topologyVersion) {}
}
