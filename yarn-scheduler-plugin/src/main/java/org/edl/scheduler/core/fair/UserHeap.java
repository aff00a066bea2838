package org.edl.scheduler.core.fair;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The two-level heap of the Run:AI talk: a heap of users ordered by {@link FairOrder#compareUsers}
 * (GPUs held relative to weight), each holding a heap of its pending requests ordered by
 * {@link FairOrder#REQUESTS} (priority, then submit time). A user who submits more requests, or
 * requests of higher priority, therefore gets no more than its turn.
 *
 * <p>Not thread-safe; build one per decision or keep one in a single-threaded simulator.
 */
public final class UserHeap {
  private static final class Entry {
    final String name;
    final double weight;
    int held;
    final PriorityQueue<PendingRequest> requests = new PriorityQueue<>(FairOrder.REQUESTS);

    Entry(String name, double weight, int held) {
      this.name = name;
      this.weight = weight;
      this.held = held;
    }
  }

  private static int compare(Entry a, Entry b) {
    return FairOrder.compareUsers(a.name, a.held, a.weight, b.name, b.held, b.weight);
  }

  private final Map<String, Entry> users = new HashMap<>();
  // Only users with pending requests; an entry's key (held) changes only while it is out of it.
  private final PriorityQueue<Entry> heap = new PriorityQueue<>(UserHeap::compare);

  /** Users known in advance with their weights and the GPUs they hold now. */
  public UserHeap(Collection<UserState> knownUsers) {
    for (UserState u : knownUsers) {
      if (users.putIfAbsent(u.name(), new Entry(u.name(), u.weight(), u.gpusHeld())) != null) {
        throw new IllegalArgumentException("user " + u.name() + " appears twice");
      }
    }
  }

  /** Queues a request; a user not given to the constructor joins with weight 1 and no GPUs. */
  public void add(PendingRequest request) {
    Entry e = users.computeIfAbsent(request.user(), n -> new Entry(n, 1.0, 0));
    if (e.requests.isEmpty()) {
      e.requests.add(request);
      heap.add(e);
    } else {
      // The user's key does not depend on its requests, so the heap stays valid.
      e.requests.add(request);
    }
  }

  /** Gives GPUs back to a user whose container ended (for callers that keep the heap). */
  public void release(String user, int gpus) {
    Entry e = users.get(user);
    if (e == null || gpus > e.held) {
      throw new IllegalArgumentException(
          "user " + user + " does not hold " + gpus + " GPUs (holds " + (e == null ? 0 : e.held)
              + ")");
    }
    boolean queued = !e.requests.isEmpty();
    if (queued) {
      heap.remove(e);
    }
    e.held -= gpus;
    if (queued) {
      heap.add(e);
    }
  }

  /**
   * One allocation pass over the free GPUs of {@code nodes}: pop the most starved user, place its
   * first request on the fullest node that fits it, count the GPUs as held, push the user back,
   * and repeat while GPUs are free. A user whose first request fits no node waits for the next
   * pass with all its requests (its order is kept; smaller later requests do not jump ahead).
   *
   * @return the placements in the order they were made; placed requests leave the heap
   */
  public List<Placement> allocate(Collection<NodeState> nodes) {
    FreeGpus free = new FreeGpus(nodes);
    List<Placement> placed = new ArrayList<>();
    List<Entry> waiting = new ArrayList<>();
    while (free.total() > 0 && !heap.isEmpty()) {
      Entry e = heap.poll();
      PendingRequest r = e.requests.peek();
      String node = free.bestFit(r.gpus());
      if (node == null) {
        waiting.add(e);
        continue;
      }
      e.requests.poll();
      free.add(node, -r.gpus());
      e.held += r.gpus();
      placed.add(new Placement(r, node));
      if (!e.requests.isEmpty()) {
        heap.add(e);
      }
    }
    heap.addAll(waiting);
    return placed;
  }

  /** GPUs the user holds, counting what {@link #allocate} placed. */
  public int gpusHeld(String user) {
    Entry e = users.get(user);
    return e == null ? 0 : e.held;
  }

  /** Requests not yet placed, in no particular order. */
  public List<PendingRequest> pending() {
    List<PendingRequest> all = new ArrayList<>();
    for (Entry e : heap) {
      all.addAll(e.requests);
    }
    return all;
  }
}
