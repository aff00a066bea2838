package org.edl.am;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The worker containers of a job that ended in failure, each counted once however often YARN
 * reports its end (a container that could not start is given back, and its completion comes
 * later). The job survives as many as {@code edl submit --max-worker-failures} allows (each gets
 * a replacement container, see {@link ExitRules}); the next one fails it, naming every failure
 * so far, because a worker that keeps dying (a bad node, a bug the data triggers) would otherwise
 * be replaced forever.
 */
final class WorkerFailures {
  /** One worker container that ended in failure. */
  record Failure(String containerId, String host, String how) {
    static Failure exited(WorkerContainer c, int exitStatus) {
      return of(c, ContainerExit.exited(exitStatus, ""));
    }

    static Failure notStarted(WorkerContainer c, Throwable cause) {
      return of(c, ContainerExit.notStarted(cause));
    }

    static Failure of(WorkerContainer c, ContainerExit exit) {
      return new Failure(c.id(), c.host(), exit.how());
    }

    /** {@code c2 on h2 (exit status 137 (killed))}: what the logs and the status show. */
    String describe() {
      return containerId + " on " + host + " (" + how + ")";
    }
  }

  private final int allowed;
  private final List<Failure> failures = new ArrayList<>();
  private final Set<String> counted = new HashSet<>();

  /** @param allowed failures the job survives; 0: the first fails it */
  WorkerFailures(int allowed) {
    if (allowed < 0) {
      throw new IllegalArgumentException("allowed failures must be 0 or more: " + allowed);
    }
    this.allowed = allowed;
  }

  /** Counts {@code failure} unless its container was counted before; returns whether it counted now. */
  boolean record(Failure failure) {
    if (!counted.add(failure.containerId())) {
      return false;
    }
    failures.add(failure);
    return true;
  }

  /** Every failure counted so far, oldest first (for a later AM attempt). */
  List<Failure> all() {
    return List.copyOf(failures);
  }

  /** Goes on from the failures an earlier AM attempt counted. */
  void restore(List<Failure> earlier) {
    earlier.forEach(this::record);
  }

  boolean counted(String containerId) {
    return counted.contains(containerId);
  }

  int count() {
    return failures.size();
  }

  int allowed() {
    return allowed;
  }

  /** {@code "worker failures: 1 of 3 allowed (c2 on h2 (exit status 137 (killed)))"}; empty with none. */
  String summary() {
    if (failures.isEmpty()) {
      return "";
    }
    return "worker failures: " + failures.size() + " of " + allowed + " allowed ("
        + failures.stream().map(Failure::describe).collect(Collectors.joining(", ")) + ")";
  }
}
