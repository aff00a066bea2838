package org.edl.scheduler.core.fair;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class UserHeapTest {

  private static PendingRequest req(String id, String user, int priority, long submit, int gpus) {
    return new PendingRequest(id, user, "job-" + id, priority, submit, gpus);
  }

  private static List<String> ids(List<Placement> ps) {
    return ps.stream().map(p -> p.request().id()).toList();
  }

  /**
   * The monopoly of a plain priority queue: bob submits six requests, two at high priority,
   * all earlier than alice's two. 4 free GPUs. Pass: both hold 0, tie -> alice (name); alice 1,
   * bob 0 -> bob's high-priority b5; 1:1 -> alice; 2:1 -> bob's other high-priority b6. Each
   * gets 2, bob's in his own order (priority first).
   */
  @Test
  void moreOrHigherPriorityRequestsDoNotBuyMoreThanATurn() {
    UserHeap heap = new UserHeap(List.of());
    for (int i = 1; i <= 4; i++) {
      heap.add(req("b" + i, "bob", 0, i, 1));
    }
    heap.add(req("b5", "bob", 9, 5, 1));
    heap.add(req("b6", "bob", 9, 6, 1));
    heap.add(req("a1", "alice", 0, 100, 1));
    heap.add(req("a2", "alice", 0, 101, 1));
    List<Placement> placed = heap.allocate(List.of(new NodeState("n1", 4)));
    assertEquals(List.of("a1", "b5", "a2", "b6"), ids(placed));
    assertEquals(2, heap.gpusHeld("alice"));
    assertEquals(2, heap.gpusHeld("bob"));
    assertEquals(4, heap.pending().size());
  }

  /**
   * Held GPUs count: carol already holds 6 (weight 2 -> usage 3), dave 2 (weight 1 -> usage 2).
   * 3 free GPUs of 1-GPU requests: dave (usage 2) -> holds 3, usage 3; carol's usage is 3 too,
   * equal, and the tie goes to fewer GPUs held (dave 3 < carol 6) -> dave holds 4, usage 4;
   * carol 3 < 4 -> carol.
   */
  @Test
  void usersAreOrderedByGpusHeldRelativeToWeight() {
    UserHeap heap =
        new UserHeap(List.of(new UserState("carol", 2.0, 6), new UserState("dave", 1.0, 2)));
    for (int i = 0; i < 3; i++) {
      heap.add(req("c" + i, "carol", 0, i, 1));
      heap.add(req("d" + i, "dave", 0, i, 1));
    }
    assertEquals(List.of("d0", "d1", "c0"), ids(heap.allocate(List.of(new NodeState("n", 3)))));
  }

  /**
   * Best fit and head of line: nodes n1 with 1 free, n2 with 4. eve's 4-GPU request goes first
   * (tie by name) and fills n2; frank's 2-GPU request then fits nowhere, so frank waits with his
   * order kept: his later 1-GPU request does not jump ahead into n1.
   */
  @Test
  void aRequestThatFitsNowhereHoldsItsUserBack() {
    UserHeap heap = new UserHeap(List.of());
    heap.add(req("e", "eve", 0, 0, 4));
    heap.add(req("f1", "frank", 0, 1, 2));
    heap.add(req("f2", "frank", 0, 2, 1));
    List<Placement> placed =
        heap.allocate(List.of(new NodeState("n1", 1), new NodeState("n2", 4)));
    assertEquals(List.of(new Placement(req("e", "eve", 0, 0, 4), "n2")), placed);
    assertEquals(2, heap.pending().size());
    // frank's GPUs free up later: the next pass serves him in order.
    assertEquals(List.of("f1", "f2"), ids(heap.allocate(List.of(new NodeState("n3", 3)))));
  }

  /** Best fit: a 1-GPU request goes to the fullest node that fits (2 free before 8 free). */
  @Test
  void placesOnTheFullestNodeThatFits() {
    UserHeap heap = new UserHeap(List.of());
    heap.add(req("x", "u", 0, 0, 1));
    List<Placement> placed =
        heap.allocate(List.of(new NodeState("big", 8), new NodeState("small", 2)));
    assertEquals("small", placed.get(0).node());
  }

  /** A user alone takes every free GPU (utilisation first). */
  @Test
  void aLoneUserTakesEverything() {
    UserHeap heap = new UserHeap(List.of());
    for (int i = 0; i < 10; i++) {
      heap.add(req("r" + i, "solo", 0, i, 1));
    }
    assertEquals(8, heap.allocate(List.of(new NodeState("a", 4), new NodeState("b", 4))).size());
    assertEquals(8, heap.gpusHeld("solo"));
  }
}
