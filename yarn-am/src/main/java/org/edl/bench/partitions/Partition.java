package org.edl.bench.partitions;

import java.util.Locale;

/**
 * One network partition of a job: which links are cut ({@link Kind}), when after the job started
 * training, and for how long before every cut heals.
 *
 * @param atSeconds        after the job was first seen training with all its workers
 * @param healAfterSeconds how long the cut lasts
 * @param timeoutSeconds   the timeout that decides what the cut costs ({@link Kind#timeout}):
 *                         a cut that heals before it costs no worker
 */
public record Partition(Kind kind, double atSeconds, double healAfterSeconds, double timeoutSeconds) {

  /** Which links a partition cuts, and the timeout that decides what it costs. */
  public enum Kind {
    /** The leader's host cut off, both ways, from every follower's host, but not from ZooKeeper. */
    LEADER_FROM_FOLLOWERS("leader-followers", Timeout.SYNC),
    /**
     * The leader's host cut off, both ways, from every ZooKeeper server's host, but not from its
     * followers. On this cluster the first ZooKeeper host also runs the NameNode and the
     * ResourceManager, so the leader loses those too.
     */
    LEADER_FROM_ZOOKEEPER("leader-zookeeper", Timeout.SESSION),
    /** One follower's packets to its ring successor dropped; the other way and the leader still reach it. */
    FOLLOWER_TO_SUCCESSOR("follower-successor", Timeout.SYNC),
    /** One ZooKeeper server (not the first: that host has the NameNode) cut off from every host. */
    ZOOKEEPER_MINORITY("zookeeper-minority", Timeout.SESSION),
    /** Two of the three ZooKeeper servers cut off from every host for 20 s: the quorum is lost. */
    ZOOKEEPER_QUORUM("zookeeper-quorum", Timeout.QUORUM),
    /** The ApplicationMaster's host cut off, both ways, from the ResourceManager's. */
    AM_FROM_RESOURCEMANAGER("am-resourcemanager", Timeout.AM_EXPIRY);

    private final String flag;
    private final Timeout timeout;

    Kind(String flag, Timeout timeout) {
      this.flag = flag;
      this.timeout = timeout;
    }

    /** How it appears in the CSV's schedule column. */
    public String flag() {
      return flag;
    }

    public Timeout timeout() {
      return timeout;
    }
  }

  /** The timeout a partition is healed below or above. */
  public enum Timeout {
    /** The job's sync timeout: a member silent this long is declared failed. */
    SYNC,
    /** The workers' ZooKeeper session timeout. */
    SESSION,
    /** The quorum's loss lasts a fixed 20 s, below or above nothing. */
    QUORUM,
    /** The ResourceManager's AM liveness expiry: an AM silent this long is replaced. */
    AM_EXPIRY
  }

  /** Whether the cut lasts past the timeout that decides its cost. */
  public boolean longerThanTimeout() {
    return healAfterSeconds > timeoutSeconds;
  }

  /** As the CSV's schedule column has it: {@code leader-followers@31.2/6.0s}. */
  public String compact() {
    return String.format(Locale.ROOT, "%s@%.1f/%.1fs", kind.flag(), atSeconds, healAfterSeconds);
  }
}
