package org.edl.worker.collective;

import java.io.IOException;
import java.time.Duration;

/**
 * This worker's place in one topology: its rank, a link it sends on (to the right neighbour) and
 * a link it receives on (from the left neighbour). A ring of one has no links. Where the members
 * share hosts it is, instead of those links, a ring inside this member's host and one across the
 * hosts ({@link #levels}), for an all-reduce by host.
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
  /** The rings inside this member's host and across the hosts; null: the flat ring is all there is. */
  private final Levels levels;

  /** Whether a ring whose members share hosts also forms the rings of an all-reduce over hosts. */
  public enum Layout {
    /** Where {@link HostLayout} allows it (the default). */
    BY_HOST,
    /** Never: the flat ring only (to compare the two). */
    FLAT
  }

  /** The two rings of an all-reduce over hosts. */
  record Levels(Ring inside, Ring across) {}

  private Ring(RingTopology topology, int rank, PeerLink left, PeerLink right, SharedMemoryOffer.Agreed shared,
      Levels levels) {
    this.topology = topology;
    this.rank = rank;
    this.left = left;
    this.right = right;
    this.shared = shared;
    this.levels = levels;
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

  /** {@link #form(DataPlane, RingTopology, Duration, int)}, flat or by host as {@code layout} says. */
  public static Ring form(DataPlane plane, RingTopology topology, Duration timeout, int slotBytes, Layout layout)
      throws IOException {
    return form(plane, topology, timeout, slotBytes, TAG, layout);
  }

  private static Ring form(DataPlane plane, RingTopology topology, Duration timeout, int slotBytes, String tag)
      throws IOException {
    return form(plane, topology, timeout, slotBytes, tag, Layout.BY_HOST);
  }

  /**
   * The flat ring, or, where its members share hosts ({@link HostLayout}), the ring inside this
   * member's host and then the one across the hosts, each under a tag of its own (and no flat ring:
   * its links would only hold connections and shared memory). Every member forms them in this
   * order, and dialling never waits on a peer's thread, so no member waits for one still forming
   * an earlier ring.
   */
  private static Ring form(DataPlane plane, RingTopology topology, Duration timeout, int slotBytes, String tag,
      Layout layout) throws IOException {
    HostLayout hosts = layout == Layout.FLAT ? null : HostLayout.of(topology, plane.selfId()).orElse(null);
    if (hosts == null) {
      return formFlat(plane, topology, timeout, slotBytes, tag);
    }
    Ring inside = formFlat(plane, hosts.inside(), timeout, slotBytes, tag + "-host");
    try {
      Ring across = formFlat(plane, hosts.across(), timeout, slotBytes, tag + "-across");
      return new Ring(topology, topology.rankOf(plane.selfId()), null, null, new SharedMemoryOffer.Agreed(null, null),
          new Levels(inside, across));
    } catch (IOException | RuntimeException e) {
      inside.close();
      throw e;
    }
  }

  private static Ring formFlat(DataPlane plane, RingTopology topology, Duration timeout, int slotBytes, String tag)
      throws IOException {
    int rank = topology.rankOf(plane.selfId());
    if (topology.size() == 1) {
      return new Ring(topology, rank, null, null, new SharedMemoryOffer.Agreed(null, null), null);
    }
    Deadline deadline = Deadline.after(timeout);
    RingTopology.Member r = topology.rightOf(rank);
    PeerLink right = plane.connect(r.workerId(), r.host(), r.dataPort(), tag, topology.version(), timeout);
    PeerLink left = null;
    try {
      left = plane.accept(topology.leftOf(rank).workerId(), tag, topology.version(), timeout);
      SharedMemoryOffer.Agreed shared =
          SharedMemoryOffer.negotiate(plane.sharedMemoryDir(), left, right, slotBytes, deadline);
      return new Ring(topology, rank, left, right, shared, null);
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

  /** Link from the left neighbour (receive side); null in a ring of one or one by host. */
  PeerLink left() {
    return left;
  }

  /** Link to the right neighbour (send side); null in a ring of one or one by host. */
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

  /** The rings inside this member's host and across the hosts; null where the ring is flat. */
  Levels levels() {
    return levels;
  }

  /**
   * How frames travel, for logs: "tcp", "shared memory", or which way each direction goes; by host,
   * how they travel inside a host and between hosts.
   */
  public String transport() {
    if (levels != null) {
      return levels.inside().transport() + " inside each host, " + levels.across().transport() + " between "
          + levels.across().size() + " hosts";
    }
    return flatTransport();
  }

  private String flatTransport() {
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
    if (levels != null) {
      levels.inside().close();
      levels.across().close();
    }
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
