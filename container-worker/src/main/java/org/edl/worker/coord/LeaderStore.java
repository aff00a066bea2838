package org.edl.worker.coord;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where leaderships are numbered and the leader's record is kept: ZooKeeper on a cluster
 * ({@link org.edl.worker.coord.zk.ZooKeeperLeaderStore}); {@link #unpersisted()} for a coordinator alone in a test.
 * A leader writes only under the epoch it claimed; once a newer epoch exists its writes fail and
 * it is told through the listener given to {@link #publish}.
 */
public interface LeaderStore {
  /** Takes a leader epoch newer than every one before; fails when this candidate no longer holds the latch. */
  long claimEpoch() throws Exception;

  /** The record the newest leadership published; empty before the job's first ring formed. */
  Optional<JobRecord> read() throws Exception;

  /**
   * Writes {@code record} under epoch {@code record.leaderEpoch()}, off the caller's thread and in
   * order; {@code superseded} hears why when a newer epoch (or the job's end) refused it.
   */
  void publish(JobRecord record, java.util.function.Consumer<String> superseded);

  /** Waits (at most {@code timeout}) until the records published so far are written or refused. */
  void awaitPublished(Duration timeout);

  /** Whether {@code epoch} is still the newest and this process's session alive (may ask ZooKeeper). */
  boolean stillCurrent(long epoch);

  /** Epochs counted and the record kept in this object only. */
  static LeaderStore unpersisted() {
    AtomicLong epochs = new AtomicLong();
    AtomicReference<JobRecord> kept = new AtomicReference<>();
    return new LeaderStore() {
      @Override
      public long claimEpoch() {
        return epochs.incrementAndGet();
      }

      @Override
      public Optional<JobRecord> read() {
        return Optional.ofNullable(kept.get());
      }

      @Override
      public void publish(JobRecord record, java.util.function.Consumer<String> superseded) {
        if (record.leaderEpoch() < epochs.get()) {
          superseded.accept("leader epoch " + epochs.get() + " is newer");
        } else {
          kept.set(record);
        }
      }

      @Override
      public void awaitPublished(Duration timeout) {
      }

      @Override
      public boolean stillCurrent(long epoch) {
        return epoch == epochs.get();
      }
    };
  }
}
