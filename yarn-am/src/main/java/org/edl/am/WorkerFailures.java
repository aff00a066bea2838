package org.edl.am;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The worker containers of a job that ended in failure, and whether the job survives one more.
 * The job survives as many as {@code edl submit --max-worker-failures} allows (each gets a
 * replacement container); the next one fails it, naming every failure so far, because a worker
 * that keeps dying (a bad node, a bug the data triggers) would otherwise be replaced forever.
 */
final class WorkerFailures {
  /** One worker container that ended in failure. */
  record Failure(String containerId, String host, String how) {
    static Failure exited(WorkerContainer c, int exitStatus) {
      return new Failure(c.id(), c.host(), "exit status " + ExitStatusText.of(exitStatus));
    }

    static Failure notStarted(WorkerContainer c, Throwable cause) {
      return new Failure(c.id(), c.host(), "could not be started: " + cause);
    }

    /** {@code c2 on h2 (exit status 137 (killed))}: what the logs and the status show. */
    String describe() {
      return containerId + " on " + host + " (" + how + ")";
    }
  }

  private final int allowed;
  private final List<Failure> failures = new ArrayList<>();

  /** @param allowed failures the job survives; 0: the first fails it */
  WorkerFailures(int allowed) {
    if (allowed < 0) {
      throw new IllegalArgumentException("allowed failures must be 0 or more: " + allowed);
    }
    this.allowed = allowed;
  }

  /** Counts {@code failure}; true while the job survives it (this one included). */
  boolean record(Failure failure) {
    failures.add(failure);
    return failures.size() <= allowed;
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
