package org.edl.worker.coord.zk;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.recipes.locks.LockInternals;
import org.apache.curator.framework.recipes.locks.StandardLockInternalsDriver;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.edl.job.JobPaths;
import org.edl.job.JobSpec;
import org.edl.worker.coord.JobRecord;
import org.edl.worker.coord.LeaderStore;
import org.edl.worker.coord.rpc.Wire;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader epochs and the leader's record in ZooKeeper, fenced as ZooKeeper's own protocol fences
 * its leaders:
 *
 * <ul>
 *   <li>{@code /edl/<appId>/epoch} holds the newest epoch. Claiming one is a single transaction:
 *   check that this candidate's latch node exists (it still holds the election) and set the
 *   epoch one higher, conditional on the version read. Two candidates cannot both succeed.</li>
 *   <li>{@code /edl/<appId>/job} holds the record; every write is a transaction that first checks
 *   the epoch node's version is the one this leadership set. A superseded leader's write fails,
 *   and so does any write after the ApplicationMaster deleted {@code /edl/<appId>}: nothing
 *   re-creates a finished job's nodes.</li>
 *   <li>{@link #stillCurrent} reads the epoch node on this process's session, waiting at most the
 *   session timeout:
 *   a leader that was paused past its session timeout learns it here before it decides.</li>
 * </ul>
 *
 * Record writes go out on one thread in order, so the coordinator's lock is never held over them.
 */
public final class ZooKeeperLeaderStore implements LeaderStore, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperLeaderStore.class);
  /** A confirmation this recent is trusted: far below any session timeout, so no successor can exist yet. */
  private static final long CONFIRMED_FOR_NANOS = TimeUnit.MILLISECONDS.toNanos(1_000);

  private final CuratorFramework client;
  private final String epochPath;
  private final String jobPath;
  private final JobSpec spec;
  private final Supplier<String> latchPath;
  private final ExecutorService writer;
  private final long confirmTimeoutMs;
  private volatile long epoch;
  private volatile int epochVersion = -1;
  private volatile long confirmedAt = Long.MIN_VALUE;

  /**
   * @param latchPath      this candidate's node in the election (null until it joined)
   * @param confirmTimeout how long {@link #stillCurrent} waits for ZooKeeper's answer: a slow answer
   *                       on a loaded machine is no reason to give leadership up, so the session
   *                       timeout (no answer in that time means the session is in doubt anyway)
   */
  public ZooKeeperLeaderStore(CuratorFramework client, String appId, JobSpec spec, Supplier<String> latchPath,
      Duration confirmTimeout) {
    this.client = client;
    this.confirmTimeoutMs = Math.max(1, confirmTimeout.toMillis());
    this.epochPath = JobPaths.epoch(appId);
    this.jobPath = JobPaths.job(appId);
    this.spec = spec;
    this.latchPath = latchPath;
    this.writer = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "edl-record-" + appId);
      t.setDaemon(true);
      return t;
    });
  }

  /** Creates the epoch node at epoch 0 if this is the job's first worker (at start-up only). */
  public void prepare() throws Exception {
    try {
      client.create().creatingParentContainersIfNeeded().forPath(epochPath, encode(0));
    } catch (KeeperException.NodeExistsException e) {
      // another worker was first
    }
  }

  @Override
  public long claimEpoch() throws Exception {
    String ours = latchPath.get();
    if (ours == null) {
      throw new IllegalStateException("this candidate has no node in the election");
    }
    // Leads only while its node is the lowest; no lower one can appear later (sequence numbers grow).
    ZKPaths.PathAndNode node = ZKPaths.getPathAndNode(ours);
    List<String> candidates = LockInternals.getSortedChildren(LeaderElection.LATCH_PREFIX,
        StandardLockInternalsDriver::standardFixForSorting, client.getChildren().forPath(node.getPath()));
    if (candidates.isEmpty() || !candidates.get(0).equals(node.getNode())) {
      throw new IllegalStateException("this candidate (" + node.getNode() + ") is not the lowest in the election "
          + candidates);
    }
    Stat stat = new Stat();
    long current = decode(client.getData().storingStatIn(stat).forPath(epochPath));
    long next = current + 1;
    CuratorOp check = client.transactionOp().check().forPath(ours);
    CuratorOp set = client.transactionOp().setData().withVersion(stat.getVersion()).forPath(epochPath, encode(next));
    client.transaction().forOperations(check, set);
    epoch = next;
    epochVersion = stat.getVersion() + 1;
    confirmedAt = System.nanoTime();
    LOG.info("Claimed leader epoch {} at {}", next, epochPath);
    return next;
  }

  @Override
  public Optional<JobRecord> read() throws Exception {
    try {
      return Optional.of(Wire.jobRecord(client.getData().forPath(jobPath)));
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    }
  }

  @Override
  public void publish(JobRecord record, Consumer<String> superseded) {
    byte[] bytes = Wire.bytes(record, spec);
    int version = epochVersion;
    writer.execute(() -> {
      try {
        write(bytes, version);
        LOG.debug("Published the leader's record: epoch {}, topology v{}", record.leaderEpoch(), record.ring().version());
      } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
        superseded.accept("the record could not be written under leader epoch " + record.leaderEpoch() + " ("
            + e.code() + ": a newer leader epoch exists, or the job's nodes were removed)");
      } catch (Exception e) {
        // A stale record costs a successor more redone steps, never the running job.
        LOG.warn("Publishing the leader's record to {} failed: {}", jobPath, e.toString());
      }
    });
  }

  private void write(byte[] bytes, int version) throws Exception {
    CuratorOp check = client.transactionOp().check().withVersion(version).forPath(epochPath);
    try {
      client.transaction().forOperations(check, client.transactionOp().setData().forPath(jobPath, bytes));
    } catch (KeeperException.NoNodeException e) {
      // The job's first record (or the epoch node is gone, which the second try tells).
      CuratorOp again = client.transactionOp().check().withVersion(version).forPath(epochPath);
      client.transaction().forOperations(again, client.transactionOp().create().forPath(jobPath, bytes));
    }
  }

  @Override
  public void awaitPublished(Duration timeout) {
    try {
      writer.submit(() -> { }).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.warn("The leader's record to {} was not written within {}: {}", jobPath, timeout, e.toString());
    }
  }

  @Override
  public boolean stillCurrent(long asked) {
    if (asked != epoch) {
      return false;
    }
    long now = System.nanoTime();
    if (now - confirmedAt < CONFIRMED_FOR_NANOS) {
      return true;
    }
    CompletableFuture<Stat> read = new CompletableFuture<>();
    try {
      client.getZookeeperClient().getZooKeeper().exists(epochPath, false, (rc, path, ctx, stat) -> {
        if (rc == KeeperException.Code.OK.intValue()) {
          read.complete(stat);
        } else {
          read.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
        }
      }, null);
      Stat stat = read.get(confirmTimeoutMs, TimeUnit.MILLISECONDS);
      if (stat.getVersion() != epochVersion) {
        LOG.warn("Leader epoch {} is superseded: {} is at version {}", asked, epochPath, stat.getVersion());
        return false;
      }
      confirmedAt = now;
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (Exception e) {
      LOG.warn("Could not confirm leader epoch {} with ZooKeeper: {}", asked, e.toString());
      return false;
    }
  }

  static byte[] encode(long epoch) {
    return Long.toString(epoch).getBytes(StandardCharsets.UTF_8);
  }

  static long decode(byte[] bytes) {
    return bytes == null || bytes.length == 0 ? 0 : Long.parseLong(new String(bytes, StandardCharsets.UTF_8).trim());
  }

  @Override
  public void close() {
    writer.shutdown();
  }
}
