package org.edl.client;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.zookeeper.KeeperException;
import org.edl.am.StagingLayout;
import org.edl.job.InvalidInputException;
import org.edl.job.JobPaths;
import org.edl.job.JobZooKeeperAcl;
import org.edl.job.WorkerEnv;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What ended jobs left behind: their ZooKeeper subtrees ({@code /edl/<appId>}) and their staging
 * directories ({@code ~/.edl/<appId>}, the job secret and the jar). A job's own AM removes both
 * when it ends normally, but a job killed with {@code yarn application -kill} gets no chance: YARN
 * kills its AM with SIGTERM and SIGKILL 250 ms later, and the workers with it. Only what the
 * ResourceManager reports FINISHED, FAILED or KILLED is removed; a job it does not know (an
 * earlier ResourceManager's, another cluster's sharing the ZooKeeper) is kept and named.
 */
public final class Leftovers {
  private static final Logger LOG = LoggerFactory.getLogger(Leftovers.class);

  /**
   * What one sweep removed; what it kept because the ResourceManager does not know the job; and
   * the ended jobs' ZooKeeper subtrees it could not remove because their nodes are another
   * user's ({@link org.edl.job.JobZooKeeperAcl}: only the holder of the job's secret may).
   */
  public record Swept(List<String> removed, List<String> unknown, List<String> notYours) {
    public Swept(List<String> removed, List<String> unknown) {
      this(removed, unknown, List.of());
    }

    Swept add(Swept other) {
      List<String> r = new ArrayList<>(removed);
      r.addAll(other.removed);
      List<String> u = new ArrayList<>(unknown);
      u.addAll(other.unknown);
      List<String> n = new ArrayList<>(notYours);
      n.addAll(other.notYours);
      return new Swept(r, u, n);
    }
  }

  private enum Fate { ENDED, LIVE, UNKNOWN }

  private final YarnClient yarn;

  public Leftovers(YarnClient yarn) {
    this.yarn = yarn;
  }

  /**
   * Removes {@code /edl/<appId>} of every ended job whose nodes this user may delete: a job of
   * theirs whose secret is still in their staging directory on {@code fs} (so sweep ZooKeeper
   * before the staging directories), or a job whose nodes carry no ACL.
   */
  public Swept sweepZooKeeper(CuratorFramework zk, FileSystem fs) throws Exception {
    List<String> removed = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    List<String> notYours = new ArrayList<>();
    List<String> apps;
    try {
      apps = zk.getChildren().forPath(JobPaths.ROOT);
    } catch (KeeperException.NoNodeException e) {
      return new Swept(removed, unknown);
    }
    for (String app : apps) {
      String path = JobPaths.root(app);
      switch (fate(app)) {
        case ENDED -> {
          try {
            Path staging = new Path(fs.getHomeDirectory(), StagingLayout.relativeDir(app));
            if (fs.exists(JobSecretFile.in(staging))) {
              JobZooKeeperAcl.of(app, JobSecretFile.read(fs, staging)).authenticate(zk);
            }
            zk.delete().deletingChildrenIfNeeded().forPath(path);
            removed.add(path);
          } catch (KeeperException.NoNodeException e) {
            // Its own AM, or another sweep, was first.
          } catch (KeeperException.NoAuthException e) {
            notYours.add(path);
          }
        }
        case UNKNOWN -> unknown.add(path);
        case LIVE -> { }
      }
    }
    return new Swept(removed, unknown, notYours);
  }

  /** Removes {@code <home>/.edl/<appId>} of every ended job of the user whose home it is. */
  public Swept sweepStaging(FileSystem fs) throws IOException, YarnException {
    List<String> removed = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    Path root = new Path(fs.getHomeDirectory(), StagingLayout.relativeDir(""));
    if (!fs.exists(root)) {
      return new Swept(removed, unknown);
    }
    for (FileStatus dir : fs.listStatus(root)) {
      if (!dir.isDirectory()) {
        continue;
      }
      String app = dir.getPath().getName();
      switch (fate(app)) {
        case ENDED -> {
          if (fs.delete(dir.getPath(), true)) {
            removed.add(dir.getPath().toString());
          }
        }
        case UNKNOWN -> unknown.add(dir.getPath().toString());
        case LIVE -> { }
      }
    }
    return new Swept(removed, unknown);
  }

  /**
   * Removes one ended job's ZooKeeper subtree with its secret: what the client that followed a job
   * to its end does before it deletes the staging directory (and the secret with it), so that a
   * job whose AM was killed leaves nothing that only its secret could remove. Best effort.
   */
  public static void removeNodes(Configuration conf, String appId, org.edl.job.JobSecret secret) {
    String zkConnect = conf.getTrimmed(WorkerEnv.ZK_CONNECT_KEY, "");
    if (zkConnect.isEmpty()) {
      return;
    }
    JobZooKeeperAcl acl = JobZooKeeperAcl.of(appId, secret);
    try (CuratorFramework zk = acl.applyTo(CuratorFrameworkFactory.builder()).connectString(zkConnect)
        .sessionTimeoutMs(15_000).connectionTimeoutMs(5_000).retryPolicy(new ExponentialBackoffRetry(200, 3)).build()) {
      zk.start();
      zk.delete().quietly().deletingChildrenIfNeeded().forPath(JobPaths.root(appId));
    } catch (Exception e) {
      LOG.warn("Could not remove {} from ZooKeeper ({}); `edl cleanup` cannot either without the job's secret",
          JobPaths.root(appId), e.toString());
    }
  }

  /** Both sweeps: this user's staging directories, and every ended job's ZooKeeper subtree. */
  public static Swept sweep(Configuration conf, YarnClient yarn) throws Exception {
    String zkConnect = conf.getTrimmed(WorkerEnv.ZK_CONNECT_KEY, "");
    if (zkConnect.isEmpty()) {
      throw new InvalidInputException(WorkerEnv.ZK_CONNECT_KEY, "", "not set; put the ZooKeeper connect string"
          + " in edl-site.xml (see conf/)");
    }
    Leftovers l = new Leftovers(yarn);
    FileSystem fs = FileSystem.get(conf);
    Swept nodes;
    // ZooKeeper first: deleting a job's nodes takes its secret, which is in its staging directory.
    try (CuratorFramework zk = CuratorFrameworkFactory.builder().connectString(zkConnect)
        .sessionTimeoutMs(15_000).connectionTimeoutMs(5_000).retryPolicy(new ExponentialBackoffRetry(200, 3)).build()) {
      zk.start();
      nodes = l.sweepZooKeeper(zk, fs);
    }
    return nodes.add(l.sweepStaging(fs));
  }

  /**
   * {@link #sweep}, best effort: what a submission does first, so that a user's killed jobs do not
   * pile up. A failure is logged and changes nothing for the new job.
   */
  public static void quietly(Configuration conf, YarnClient yarn) {
    try {
      Swept s = sweep(conf, yarn);
      if (!s.removed().isEmpty()) {
        LOG.info("Removed what ended jobs left behind: {}", s.removed());
      }
    } catch (Exception e) {
      LOG.warn("Could not remove what ended jobs left behind ({}); `edl cleanup` does it on demand", e.toString());
    }
  }

  private Fate fate(String app) {
    ApplicationId id;
    try {
      id = ApplicationId.fromString(app);
    } catch (IllegalArgumentException e) {
      return Fate.UNKNOWN;
    }
    try {
      YarnApplicationState s = yarn.getApplicationReport(id).getYarnApplicationState();
      return s == YarnApplicationState.FINISHED || s == YarnApplicationState.FAILED || s == YarnApplicationState.KILLED
          ? Fate.ENDED : Fate.LIVE;
    } catch (ApplicationNotFoundException e) {
      return Fate.UNKNOWN;
    } catch (YarnException | IOException e) {
      LOG.debug("Cannot tell whether {} ended: {}", app, e.toString());
      return Fate.LIVE;
    }
  }
}
