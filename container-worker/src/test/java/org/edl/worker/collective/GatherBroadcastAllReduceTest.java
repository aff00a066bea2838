package org.edl.worker.collective;

import java.util.ArrayList;
import java.util.List;
import org.edl.job.JobSecret;
import org.junit.jupiter.api.Test;

class GatherBroadcastAllReduceTest {

  @Test
  void everyMemberGetsTheSum() throws Exception {
    for (int size = 1; size <= 5; size++) {
      try (LoopbackMembers members = new LoopbackMembers(size, JobSecret.generate(), 7)) {
        List<List<float[]>> perRank = members.onAll(r -> {
          try (GatherBroadcastAllReduce g = GatherBroadcastAllReduce.form(
              members.planes.get(r), members.topology, LoopbackMembers.TIMEOUT)) {
            List<float[]> out = new ArrayList<>();
            for (int length : RingAllReduceTest.LENGTHS) {
              float[] a = RingAllReduceTest.input(r, length);
              g.sum(a);
              out.add(a);
            }
            return out;
          }
        });
        for (int i = 0; i < RingAllReduceTest.LENGTHS.length; i++) {
          int li = i;
          RingAllReduceTest.assertSums(size, RingAllReduceTest.LENGTHS[i],
              perRank.stream().map(l -> l.get(li)).toList());
        }
      }
    }
  }
}
