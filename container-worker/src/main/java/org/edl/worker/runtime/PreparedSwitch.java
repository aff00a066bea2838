package org.edl.worker.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.edl.thrift.SwitchOrder;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.collective.DataPlane;
import org.edl.worker.collective.ModelBroadcast;
import org.edl.worker.collective.PeerLink;
import org.edl.worker.collective.Ring;
import org.edl.worker.collective.RingTopology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connections a member of the next ring makes before a switch, on background threads while
 * the old ring trains on: the next ring's links, and, for the broadcaster, a link to each
 * newcomer. Started from the order in a sync reply, or earlier from a heartbeat's news of it.
 */
final class PreparedSwitch {
  private static final Logger LOG = LoggerFactory.getLogger(PreparedSwitch.class);

  private final long version;
  private final Future<Ring> ring;
  /** Null unless this worker sends the model to the newcomers. */
  private final Future<List<PeerLink>> newcomerLinks;

  private PreparedSwitch(long version, Future<Ring> ring, Future<List<PeerLink>> newcomerLinks) {
    this.version = version;
    this.ring = ring;
    this.newcomerLinks = newcomerLinks;
  }

  /** Starts connecting for {@code o}, of which {@code workerId} is a member after the switch. */
  static PreparedSwitch start(SwitchOrder o, String workerId, DataPlane plane, ExecutorService background,
      Duration timeout) {
    RingTopology next = ElasticMembership.toRingTopology(o.getTopology());
    Future<Ring> ring = background.submit(() -> Ring.form(plane, next, timeout));
    Future<List<PeerLink>> links = null;
    if (workerId.equals(o.getBroadcasterId())) {
      List<WorkerInfo> joiners = o.getTopology().getRing().stream()
          .filter(w -> o.getJoiners().contains(w.getWorkerId())).toList();
      links = background.submit(() -> {
        List<PeerLink> dialled = new ArrayList<>();
        for (WorkerInfo w : joiners) {
          dialled.add(plane.connect(w.getWorkerId(), w.getHost(), w.getDataPort(), ModelBroadcast.TAG,
              o.getTopologyVersion(), timeout));
        }
        return dialled;
      });
    }
    return new PreparedSwitch(o.getTopologyVersion(), ring, links);
  }

  long version() {
    return version;
  }

  Future<Ring> ring() {
    return ring;
  }

  /** The links to the newcomers; null unless this worker is the switch's broadcaster. */
  Future<List<PeerLink>> newcomerLinks() {
    return newcomerLinks;
  }

  /** The switch will not happen (a recovery, another order): stops connecting and closes what connected. */
  void discard() {
    ring.cancel(true);
    if (ring.isDone() && !ring.isCancelled()) {
      try {
        ring.get().close();
      } catch (Exception e) {
        LOG.debug("abandoned ring: {}", e.toString());
      }
    }
    if (newcomerLinks != null) {
      closeWhenDialled(newcomerLinks);
    }
  }

  /** Stops dialling the newcomers and closes the links already dialled. */
  static void closeWhenDialled(Future<List<PeerLink>> links) {
    links.cancel(true);
    if (links.isDone() && !links.isCancelled()) {
      try {
        links.get().forEach(PeerLink::close);
      } catch (Exception e) {
        LOG.debug("newcomer links: {}", e.toString());
      }
    }
  }
}
