package org.edl.worker.coord.zk;

import java.io.Closeable;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.edl.job.JobPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each worker's presence in ZooKeeper: an ephemeral node {@code /edl/<appId>/members/<workerId>}
 * that lives exactly as long as the worker's session, and a watch on all of them. When a
 * session expires (the process died, or was cut off longer than the session timeout) its node
 * vanishes and every watcher hears the new set; the leader declares a ring member without a
 * node failed.
 *
 * <p>The node is created once and never again: a worker whose session expired stays absent
 * even though Curator reconnects it with a new session, which is what fences it (a plain
 * ephemeral node, not Curator's self-healing PersistentNode, on purpose). The latch node is
 * not used for this because its id is the coordinator address, not the worker id, and
 * LeaderLatch re-creates it after a reconnection.
 */
public final class MemberPresence implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(MemberPresence.class);

  private final CuratorFramework client;
  private final String path;
  private final String workerId;
  private final Consumer<Set<String>> listener;
  private final AtomicBoolean closed = new AtomicBoolean();
  /**
   * Looks happen here, never on ZooKeeper's event thread or Curator's connection-state thread: a
   * blocking read there, while the connection is down, would hold up the very events (the
   * session's end among them) that the rest of the worker waits for.
   */
  private final ExecutorService looker;
  private final CuratorWatcher watcher = event -> changed();
  /** A watch set before a lost connection may be gone: look again once reconnected. */
  private final ConnectionStateListener reconnected = (c, state) -> {
    if (state == ConnectionState.RECONNECTED) {
      changed();
    }
  };

  private MemberPresence(CuratorFramework client, String appId, String workerId, Consumer<Set<String>> listener) {
    this.client = client;
    this.path = membersPath(appId);
    this.workerId = workerId;
    this.listener = listener;
    this.looker = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "edl-presence-" + workerId);
      t.setDaemon(true);
      return t;
    });
  }

  /** {@code /edl/<appId>/members}. */
  public static String membersPath(String appId) {
    return JobPaths.members(appId);
  }

  /**
   * Creates this worker's node and starts watching; {@code listener} hears the first set at once
   * and every change after, on ZooKeeper's event thread (keep it short). The node holds
   * {@code candidateId}, the id this worker runs for leadership under ({@link LeaderElection}),
   * so that whoever removes a dead worker's node can withdraw its candidacy too.
   */
  public static MemberPresence start(CuratorFramework client, String appId, String workerId, String candidateId,
      Consumer<Set<String>> listener) throws Exception {
    MemberPresence p = new MemberPresence(client, appId, workerId, listener);
    try {
      client.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL)
          .forPath(ZKPaths.makePath(p.path, workerId), candidateId.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (KeeperException.NodeExistsException e) {
      // The same worker id from an earlier session still present: the leader will see it vanish.
      LOG.warn("Presence node of {} already exists; the old session has not ended yet", workerId);
    }
    client.getConnectionStateListenable().addListener(p.reconnected);
    p.look();
    return p;
  }

  /** Whether this worker's own node still exists (false once its session expired). */
  public boolean selfPresent() throws Exception {
    return client.checkExists().forPath(ZKPaths.makePath(path, workerId)) != null;
  }

  private void changed() {
    if (closed.get()) {
      return;
    }
    try {
      looker.execute(() -> {
        if (closed.get()) {
          return;
        }
        try {
          look();
        } catch (Exception e) {
          LOG.warn("Reading the job's members in ZooKeeper failed: {}", e.toString());
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  private void look() throws Exception {
    Set<String> now = new HashSet<>(client.getChildren().usingWatcher(watcher).forPath(path));
    listener.accept(now);
  }

  @Override
  public void close() {
    closed.set(true);
    client.getConnectionStateListenable().removeListener(reconnected);
    looker.shutdownNow();
  }
}
