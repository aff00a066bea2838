package org.edl.worker.collective;

import java.io.IOException;
import java.time.Duration;

/**
 * This worker's place in one topology: its rank, a link it sends on (to the right neighbour) and
 * a link it receives on (from the left neighbour). A ring of one has no links.
 */
public final class Ring implements AutoCloseable {
  static final String TAG = "ring";

  private final RingTopology topology;
  private final int rank;
  private final PeerLink left;
  private final PeerLink right;

  private Ring(RingTopology topology, int rank, PeerLink left, PeerLink right) {
    this.topology = topology;
    this.rank = rank;
    this.left = left;
    this.right = right;
  }

  /**
   * Dials the right neighbour, then waits for the left one. Dialling never waits on the peer's
   * own thread (its data plane accepts on its own), so all members may call this at once.
   */
  public static Ring form(DataPlane plane, RingTopology topology, Duration timeout) throws IOException {
    int rank = topology.rankOf(plane.selfId());
    if (topology.size() == 1) {
      return new Ring(topology, rank, null, null);
    }
    RingTopology.Member r = topology.rightOf(rank);
    PeerLink right = plane.connect(r.workerId(), r.host(), r.dataPort(), TAG, topology.version(), timeout);
    try {
      PeerLink left = plane.accept(topology.leftOf(rank).workerId(), TAG, topology.version(), timeout);
      return new Ring(topology, rank, left, right);
    } catch (IOException | RuntimeException e) {
      right.close();
      throw e;
    }
  }

  public RingTopology topology() {
    return topology;
  }

  public long version() {
    return topology.version();
  }

  public int rank() {
    return rank;
  }

  public int size() {
    return topology.size();
  }

  /** Link from the left neighbour (receive side); null in a ring of one. */
  PeerLink left() {
    return left;
  }

  /** Link to the right neighbour (send side); null in a ring of one. */
  PeerLink right() {
    return right;
  }

  @Override
  public void close() {
    if (left != null) {
      left.close();
    }
    if (right != null) {
      right.close();
    }
  }
}
