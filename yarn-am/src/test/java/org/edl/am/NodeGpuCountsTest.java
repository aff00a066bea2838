package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.OptionalLong;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.Resource;
import org.junit.jupiter.api.Test;

class NodeGpuCountsTest {
  @Test
  void aNodeSeenOnceIsNotAskedAgain() {
    int[] calls = {0};
    NodeId a = NodeId.newInstance("a", 1);
    NodeGpuCounts counts = new NodeGpuCounts(() -> {
      calls[0]++;
      return List.of(NodeReport.newInstance(a, NodeState.RUNNING, "a:2", "", null,
          Resource.newInstance(1024, 1), 0, "", 0));
    });
    counts.of(a);
    counts.of(a);
    assertEquals(1, calls[0]);
  }

  @Test
  void aListingThatFailedIsNotTriedAgainForTheNextNode() {
    int[] calls = {0};
    NodeGpuCounts counts = new NodeGpuCounts(() -> {
      calls[0]++;
      throw new java.io.IOException("Client cannot authenticate via:[TOKEN, KERBEROS]");
    });
    assertEquals(OptionalLong.empty(), counts.of(NodeId.newInstance("a", 1)));
    assertEquals(OptionalLong.empty(), counts.of(NodeId.newInstance("b", 1)));
    assertEquals(1, calls[0], "each try would wait out the RPC client's retries on the AM's main thread");
  }
}
