package org.edl.worker.collective;

import java.io.IOException;
import java.time.Duration;

/**
 * This worker's place in one topology: its rank, a link it sends on (to the right neighbour) and
 * a link it receives on (from the left neighbour). A ring of one has no links.
 */
public final class Ring implements AutoCloseable {
  static final String TAG = "ring";
  /**
   * A recovery's ring has the version the switch it cancels had (the failed ring's plus one): its
   * own tag keeps a connection dialled for that switch from being taken for the recovery's.
   */
  static final String RECOVERY_TAG = "ring-recovery";

  private final RingTopology topology;
  private final int rank;
  private final PeerLink left;
  private final PeerLink right;
  private final SharedMemoryOffer.Agreed shared;

  private Ring(RingTopology topology, int rank, PeerLink left, PeerLink right, SharedMemoryOffer.Agreed shared) {
    this.topology = topology;
    this.rank = rank;
    this.left = left;
    this.right = right;
    this.shared = shared;
  }

  /**
   * Dials the right neighbour, then waits for the left one. Dialling never waits on the peer's
   * own thread (its data plane accepts on its own), so all members may call this at once.
   */
  public static Ring form(DataPlane plane, RingTopology topology, Duration timeout) throws IOException {
    return form(plane, topology, timeout, RingAllReduce.DEFAULT_CHUNK_BYTES);
  }

  /** {@link #form(DataPlane, RingTopology, Duration)} for the survivors of a failure. */
  public static Ring formForRecovery(DataPlane plane, RingTopology topology, Duration timeout) throws IOException {
    return form(plane, topology, timeout, RingAllReduce.DEFAULT_CHUNK_BYTES, RECOVERY_TAG);
  }

  /**
   * As {@link #form(DataPlane, RingTopology, Duration)}, then agrees with both neighbours which
   * links carry frames through shared memory (those to a peer on the same host, where the plane
   * has a {@link DataPlane#sharedMemoryDir}), in slots of {@code slotBytes}: the largest chunk an
   * all-reduce over this ring may use.
   */
  public static Ring form(DataPlane plane, RingTopology topology, Duration timeout, int slotBytes)
      throws IOException {
    return form(plane, topology, timeout, slotBytes, TAG);
  }

  private static Ring form(DataPlane plane, RingTopology topology, Duration timeout, int slotBytes, String tag)
      throws IOException {
    int rank = topology.rankOf(plane.selfId());
    if (topology.size() == 1) {
      return new Ring(topology, rank, null, null, new SharedMemoryOffer.Agreed(null, null));
    }
    Deadline deadline = Deadline.after(timeout);
    RingTopology.Member r = topology.rightOf(rank);
    PeerLink right = plane.connect(r.workerId(), r.host(), r.dataPort(), tag, topology.version(), timeout);
    PeerLink left = null;
    try {
      left = plane.accept(topology.leftOf(rank).workerId(), tag, topology.version(), timeout);
      SharedMemoryOffer.Agreed shared =
          SharedMemoryOffer.negotiate(plane.sharedMemoryDir(), left, right, slotBytes, deadline);
      return new Ring(topology, rank, left, right, shared);
    } catch (IOException | RuntimeException e) {
      right.close();
      if (left != null) {
        left.close();
      }
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

  /** The segment frames to the right neighbour go through, or null where they go over TCP. */
  SharedMemorySegment sharedOut() {
    return shared.out();
  }

  /** The segment frames from the left neighbour arrive in, or null where they come over TCP. */
  SharedMemorySegment sharedIn() {
    return shared.in();
  }

  /** How frames travel, for logs: "tcp", "shared memory", or which way each direction goes. */
  public String transport() {
    if (size() == 1) {
      return "none";
    }
    boolean out = shared.out() != null;
    boolean in = shared.in() != null;
    if (out == in) {
      return out ? "shared memory" : "tcp";
    }
    return (out ? "shared memory" : "tcp") + " to the right, " + (in ? "shared memory" : "tcp") + " from the left";
  }

  /**
   * Closes both links and the segments: an all-reduce still running on another thread fails on
   * its closed link, and a segment is unmapped once that call has let go of it.
   */
  @Override
  public void close() {
    if (shared.out() != null) {
      shared.out().close();
    }
    if (shared.in() != null) {
      shared.in().close();
    }
    if (left != null) {
      left.close();
    }
    if (right != null) {
      right.close();
    }
  }
}
