package org.edl.worker.collective;

import java.util.List;
import java.util.Objects;

/**
 * The ordered ring as the data plane needs it: members in ring order and the topology version
 * (epoch). Built from the control protocol's {@code org.edl.thrift.Topology} by the runtime.
 */
public record RingTopology(long version, List<Member> members) {

  /**
   * One worker's data-plane address, the node it runs on (for the ring's placement), and for a
   * script job the port of the rendezvous store its script serves (-1: none).
   */
  public record Member(String workerId, String host, int dataPort, String node, int scriptPort) {
    public Member {
      Objects.requireNonNull(workerId, "workerId");
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(node, "node");
    }

    /** A member with no script. */
    public Member(String workerId, String host, int dataPort, String node) {
      this(workerId, host, dataPort, node, -1);
    }

    /** A member whose node is its host. */
    public Member(String workerId, String host, int dataPort) {
      this(workerId, host, dataPort, host);
    }
  }

  public RingTopology {
    members = List.copyOf(members);
    if (members.isEmpty()) {
      throw new IllegalArgumentException("a ring needs at least one member");
    }
    if (members.stream().map(Member::workerId).distinct().count() != members.size()) {
      throw new IllegalArgumentException("a worker appears twice in ring " + members);
    }
  }

  public int size() {
    return members.size();
  }

  /** Position of {@code workerId} in the ring. */
  public int rankOf(String workerId) {
    for (int i = 0; i < members.size(); i++) {
      if (members.get(i).workerId().equals(workerId)) {
        return i;
      }
    }
    throw new IllegalArgumentException(workerId + " is not in ring version " + version);
  }

  public Member member(int rank) {
    return members.get(rank);
  }

  public Member rightOf(int rank) {
    return members.get((rank + 1) % members.size());
  }

  public Member leftOf(int rank) {
    return members.get((rank - 1 + members.size()) % members.size());
  }
}
