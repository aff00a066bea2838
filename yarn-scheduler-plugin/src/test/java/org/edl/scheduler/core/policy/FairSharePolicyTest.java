package org.edl.scheduler.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FairSharePolicyTest {
  private final List<FakeJob> jobs = new ArrayList<>();

  private Map<Long, Integer> decide(FairSharePolicy p, double now) {
    Map<Long, Integer> out = new HashMap<>();
    p.schedule(now, (j, g) -> out.put(j.id(), g));
    for (FakeJob j : jobs) {
      if (out.containsKey(j.id)) {
        j.gpus = out.get(j.id);
      }
    }
    return out;
  }

  private int held(String user) {
    return jobs.stream().filter(j -> j.user.equals(user)).mapToInt(j -> j.gpus).sum();
  }

  private FakeJob arrive(FairSharePolicy p, long id, String user, int gpus, double t) {
    FakeJob j = new FakeJob(id, user, gpus, t);
    jobs.add(j);
    p.arrived(j, t);
    return j;
  }

  @Test
  void oneUserAloneGetsEveryGpu() {
    FairSharePolicy p = new FairSharePolicy(8, 0.5, Map.of());
    for (int i = 0; i < 5; i++) {
      arrive(p, i, "alice", 2, 0);
    }
    decide(p, 0);
    assertEquals(8, held("alice"));
  }

  @Test
  void twoUsersWithDemandGetEqualGpusEvenIfOneCameFirstWithMore() {
    FairSharePolicy p = new FairSharePolicy(8, 0.5, Map.of());
    // Alice fills the cluster with two 4-GPU elastic jobs (guaranteed 2 each).
    arrive(p, 1, "alice", 4, 0);
    arrive(p, 2, "alice", 4, 0);
    decide(p, 0);
    assertEquals(8, held("alice"));
    // Bob arrives with as much demand: the planner takes Alice's extras, and Bob gets 4.
    arrive(p, 3, "bob", 4, 10);
    arrive(p, 4, "bob", 4, 10);
    decide(p, 10);
    assertEquals(4, held("alice"));
    assertEquals(4, held("bob"));
    assertEquals(2, p.preemptedContainers());
    // Deciding again changes nothing: no ping-pong.
    assertEquals(Map.of(), decide(p, 11));
  }

  @Test
  void theUserHeapServesTheUserWithFewerGpusFirst() {
    FairSharePolicy p = new FairSharePolicy(4, 1.0, Map.of());
    arrive(p, 1, "alice", 1, 0);
    arrive(p, 2, "alice", 1, 0);
    arrive(p, 3, "alice", 1, 0);
    arrive(p, 4, "alice", 1, 0);
    arrive(p, 5, "bob", 1, 1);
    arrive(p, 6, "bob", 1, 1);
    decide(p, 1);
    // Alice submitted first and more, but the heap alternates users: 2 GPUs each.
    assertEquals(2, held("alice"));
    assertEquals(2, held("bob"));
  }
}
