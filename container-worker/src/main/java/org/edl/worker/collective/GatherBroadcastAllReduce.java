package org.edl.worker.collective;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The naive all-reduce, kept as the benchmark's baseline: every member sends its whole array to
 * rank 0, which sums them one after another and sends the result back to each. Rank 0's links
 * carry {@code 2 (n-1)} full arrays, against {@code 2 (n-1)/n} per link for the ring.
 */
public final class GatherBroadcastAllReduce implements AllReduce, AutoCloseable {
  static final String TAG = "gather";

  private final int rank;
  private final int size;
  private final Duration timeout;
  /** Rank 0: one pair of links per other member, in rank order. Others: one pair to rank 0. */
  private final List<PeerLink> inbound;
  private final List<PeerLink> outbound;
  private final FloatTransfer transfer = new FloatTransfer();

  private GatherBroadcastAllReduce(int rank, int size, Duration timeout, List<PeerLink> inbound,
      List<PeerLink> outbound) {
    this.rank = rank;
    this.size = size;
    this.timeout = timeout;
    this.inbound = inbound;
    this.outbound = outbound;
  }

  /** Connects every member with rank 0 in both directions; all members call this at once. */
  public static GatherBroadcastAllReduce form(DataPlane plane, RingTopology topology,
      Duration timeout) throws IOException {
    int rank = topology.rankOf(plane.selfId());
    List<PeerLink> inbound = new ArrayList<>();
    List<PeerLink> outbound = new ArrayList<>();
    try {
      long v = topology.version();
      if (rank == 0) {
        for (int r = 1; r < topology.size(); r++) {
          RingTopology.Member m = topology.member(r);
          outbound.add(plane.connect(m.workerId(), m.host(), m.dataPort(), TAG, v, timeout));
        }
        for (int r = 1; r < topology.size(); r++) {
          inbound.add(plane.accept(topology.member(r).workerId(), TAG, v, timeout));
        }
      } else if (topology.size() > 1) {
        RingTopology.Member root = topology.member(0);
        outbound.add(plane.connect(root.workerId(), root.host(), root.dataPort(), TAG, v, timeout));
        inbound.add(plane.accept(root.workerId(), TAG, v, timeout));
      }
    } catch (IOException | RuntimeException e) {
      inbound.forEach(PeerLink::close);
      outbound.forEach(PeerLink::close);
      throw e;
    }
    return new GatherBroadcastAllReduce(rank, topology.size(), timeout, inbound, outbound);
  }

  @Override
  public int rank() {
    return rank;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public void sum(float[] data) throws IOException {
    if (size == 1) {
      return;
    }
    Deadline deadline = Deadline.after(timeout);
    if (rank == 0) {
      for (PeerLink in : inbound) {
        transfer.expectLength(in, data.length, deadline);
        transfer.receiveFloats(in, data, true, deadline);
      }
      for (PeerLink out : outbound) {
        transfer.sendLength(out, data.length, deadline);
        transfer.sendFloats(out, data, deadline);
      }
    } else {
      transfer.sendLength(outbound.get(0), data.length, deadline);
      transfer.sendFloats(outbound.get(0), data, deadline);
      transfer.expectLength(inbound.get(0), data.length, deadline);
      transfer.receiveFloats(inbound.get(0), data, false, deadline);
    }
  }

  @Override
  public void close() {
    inbound.forEach(PeerLink::close);
    outbound.forEach(PeerLink::close);
  }
}
