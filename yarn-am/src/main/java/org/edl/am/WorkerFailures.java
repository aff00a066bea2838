package org.edl.am;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The worker containers of a job that ended in failure, and what each one means for the job
 * ({@link #judge}). The job survives as many as {@code edl submit --max-worker-failures} allows
 * (each gets a replacement container); the next one fails it, naming every failure so far,
 * because a worker that keeps dying (a bad node, a bug the data triggers) would otherwise be
 * replaced forever.
 */
final class WorkerFailures {
  /** What the fleet does about one failure. */
  enum Response {
    /** Not counted: a newcomer that never joined died after training finished. */
    IGNORE,
    /** The job fails; the verdict's reason says why. */
    FAIL,
    /** A worker stopping for a stop-resume: it counts as stopped, the relaunch replaces it. */
    STOPPED,
    /** A scale-in or migration leaver: its departure is complete, the target already excludes it. */
    LEFT,
    /** A migration newcomer: one new container on the migration's target host. */
    REPLACE_ON_MIGRATION_HOST,
    /** One new container that joins like a scale-out newcomer. */
    REPLACE
  }

  /** {@code reason}: why the job fails, or what it does instead, for the log and the status. */
  record Verdict(Response response, String reason) {}

  /**
   * What the fleet knows about the failed container.
   *
   * @param trainingFinished a worker has exited 0 (the job is FINISHING)
   * @param joining          a newcomer the leader has not reported in the ring
   * @param departure        why it was expected to exit, or null
   * @param migrationNewcomer one of a migration's newcomers
   * @param modelSurvives    a running ring member can hand the model on, or nobody needs one yet
   *                         (the job is starting, or a stop-resume loads its checkpoint)
   */
  record Circumstances(boolean trainingFinished, boolean joining, WorkerFleet.Departure departure,
      boolean migrationNewcomer, boolean modelSurvives) {}
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

  /**
   * Counts {@code failure} (unless it is ignored) and says what it means. The job fails beyond
   * the limit; after training finished (the last model might not have been written); and with no
   * ring member left to hand the model to a replacement. Otherwise nothing waits for something
   * that cannot come: a leaver has left, a stopping worker has stopped, anybody else is replaced.
   */
  Verdict judge(Failure failure, Circumstances c) {
    if (c.trainingFinished() && c.joining()) {
      return new Verdict(Response.IGNORE, "it had not joined the ring before training finished");
    }
    failures.add(failure);
    if (failures.size() > allowed) {
      return new Verdict(Response.FAIL, "more worker failures (" + failures.size() + ") than"
          + " max-worker-failures=" + allowed + " allows");
    }
    if (c.trainingFinished()) {
      return new Verdict(Response.FAIL, "training had finished: the model might not have been written");
    }
    if (!c.modelSurvives()) {
      return new Verdict(Response.FAIL, "no running worker is left to hand the model on");
    }
    if (c.departure() == WorkerFleet.Departure.RESTART) {
      return new Verdict(Response.STOPPED, "it counts as stopped for the stop-resume");
    }
    if (c.departure() != null) {
      return new Verdict(Response.LEFT, "it was leaving the job; nothing is replaced");
    }
    return c.migrationNewcomer()
        ? new Verdict(Response.REPLACE_ON_MIGRATION_HOST, "requesting a replacement on the migration's target host")
        : new Verdict(Response.REPLACE, "requesting a replacement");
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
