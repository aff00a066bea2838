package org.edl.scheduler.core.fair;

import java.util.Comparator;

/**
 * The two orders of the two-level heap, as static functions so that the ResourceManager's
 * comparators (which see Hadoop types) and the simulator (which sees these records) order
 * exactly alike.
 */
public final class FairOrder {
  private FairOrder() {}

  /**
   * GPUs held relative to weight: the user heap's key, smaller is more starved. A user of weight
   * 0 is infinitely served, so anyone of positive weight goes before it.
   */
  public static double usage(long gpusHeld, double weight) {
    return weight > 0 ? gpusHeld / weight : Double.POSITIVE_INFINITY;
  }

  /**
   * Users, most starved first: by {@link #usage}, then by fewer GPUs held (which orders users of
   * weight 0 among themselves), then by name so that every decision is deterministic.
   */
  public static int compareUsers(
      String nameA, long heldA, double weightA, String nameB, long heldB, double weightB) {
    int c = compareStarvation(heldA, weightA, heldB, weightB);
    return c != 0 ? c : nameA.compareTo(nameB);
  }

  /**
   * {@link #compareUsers} without the name: 0 when the two are equally starved, so that a caller
   * can break the tie its own way (the ResourceManager's {@code UserFairPolicy} goes on with
   * memory held relative to weight, then the queue name, which matters on a cluster or queue
   * where nobody holds GPUs).
   */
  public static int compareStarvation(long heldA, double weightA, long heldB, double weightB) {
    int c = Double.compare(usage(heldA, weightA), usage(heldB, weightB));
    return c != 0 ? c : Long.compare(heldA, heldB);
  }

  /** Requests (or applications) of one user: higher priority first, then earlier submitted. */
  public static int compareRequests(int priorityA, long submitA, int priorityB, long submitB) {
    int c = Integer.compare(priorityB, priorityA);
    return c != 0 ? c : Long.compare(submitA, submitB);
  }

  /** {@link #compareUsers} over {@link UserState}. */
  public static final Comparator<UserState> USERS =
      (a, b) ->
          compareUsers(a.name(), a.gpusHeld(), a.weight(), b.name(), b.gpusHeld(), b.weight());

  /** {@link #compareRequests}, then by id. */
  public static final Comparator<PendingRequest> REQUESTS =
      (a, b) -> {
        int c = compareRequests(a.priority(), a.submitTime(), b.priority(), b.submitTime());
        return c != 0 ? c : a.id().compareTo(b.id());
      };
}
