package org.edl.worker.runtime;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.thrift.TDeserializer;
import org.apache.thrift.TSerializer;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.zookeeper.KeeperException;
import org.edl.thrift.LeaderRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's record in ZooKeeper, {@code /edl/<appId>/job}: a persistent node (it must outlive
 * the leader) written whenever the ring or the newest checkpoint changes, never per batch.
 * Writes go out on one thread in the order they were asked for, so the coordinator's lock is
 * never held over ZooKeeper; a successor reads the node when it is elected.
 */
final class LeaderRecordStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderRecordStore.class);

  private final CuratorFramework client;
  private final String path;
  private final ExecutorService writer;

  LeaderRecordStore(CuratorFramework client, String appId) {
    this.client = client;
    this.path = WorkerEnv.ZK_ROOT + "/" + appId + "/job";
    this.writer = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "edl-record-" + appId);
      t.setDaemon(true);
      return t;
    });
  }

  void publish(LeaderRecord record) {
    LeaderRecord copy = record.deepCopy();
    writer.execute(() -> {
      try {
        byte[] bytes = new TSerializer(new TCompactProtocol.Factory()).serialize(copy);
        try {
          client.setData().forPath(path, bytes);
        } catch (KeeperException.NoNodeException e) {
          client.create().creatingParentContainersIfNeeded().forPath(path, bytes);
        }
        LOG.debug("Published the leader's record: topology v{}", copy.getTopology().getVersion());
      } catch (Exception e) {
        // A stale record costs a successor more redone steps, never the running job.
        LOG.warn("Publishing the leader's record to {} failed: {}", path, e.toString());
      }
    });
  }

  /** Waits (at most {@code timeout}) until the records asked for before this call are written or failed. */
  void awaitWritten(Duration timeout) {
    try {
      writer.submit(() -> { }).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.warn("The leader's record to {} was not written within {}: {}", path, timeout, e.toString());
    }
  }

  Optional<LeaderRecord> read() {
    try {
      byte[] bytes = client.getData().forPath(path);
      LeaderRecord r = new LeaderRecord();
      new TDeserializer(new TCompactProtocol.Factory()).deserialize(r, bytes);
      return Optional.of(r);
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    } catch (Exception e) {
      throw new IllegalStateException("reading " + path + ": " + e, e);
    }
  }

  @Override
  public void close() {
    writer.shutdown();
  }
}
