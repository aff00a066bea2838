package org.edl.am;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.edl.job.JobPaths;

/**
 * Where the fleet keeps its {@link FleetIntent} for a later AM attempt. The one in ZooKeeper
 * lives under {@code /edl/<appId>/fleet}, next to the AM's address and the workers' GPU indices,
 * and goes with them when the job ends.
 */
interface FleetJournal {
  /** Keeps {@code intent}, replacing the last one; called on the fleet's thread when it changes. */
  void record(FleetIntent intent) throws Exception;

  /** The last intent kept, if any. */
  Optional<FleetIntent> last() throws Exception;

  /** Keeps nothing: a fleet without AM failover (tests, a fixed-size job's defaults). */
  FleetJournal NONE = new FleetJournal() {
    @Override
    public void record(FleetIntent intent) {}

    @Override
    public Optional<FleetIntent> last() {
      return Optional.empty();
    }
  };

  static FleetJournal zooKeeper(CuratorFramework zk, String appId) {
    String path = JobPaths.fleet(appId);
    return new FleetJournal() {
      @Override
      public void record(FleetIntent intent) throws Exception {
        byte[] data = intent.encode().getBytes(StandardCharsets.UTF_8);
        try {
          zk.setData().forPath(path, data);
        } catch (KeeperException.NoNodeException e) {
          zk.create().creatingParentsIfNeeded().forPath(path, data);
        }
      }

      @Override
      public Optional<FleetIntent> last() throws Exception {
        try {
          return Optional.of(FleetIntent.decode(new String(zk.getData().forPath(path), StandardCharsets.UTF_8)));
        } catch (KeeperException.NoNodeException e) {
          return Optional.empty();
        }
      }
    };
  }
}
