package org.edl.worker.coord;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import org.edl.job.Recovery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's side of failures: who is suspected (by the {@link FailureDetector}'s timing rules
 * and the members' heartbeats), who is fenced, the recovery being gathered, and the order it
 * ends in. Pure bookkeeping with the time passed in; {@link CoordinatorState} applies the order
 * to the ring and the step ledger.
 *
 * <p>A recovery is decided once every member of the ring that was not declared failed has asked
 * with the last step its model holds. The mode: {@link RecoveryPlan.Mode#RESUME} when the only
 * members lost are newcomers that never trained and every survivor holds the same step (nothing
 * is lost, nothing is redone); otherwise the job's mode: approximate takes the survivor with the
 * highest completed step as the model's source (none when all hold the same step: each keeps its
 * own), consistent goes back to the newest usable
 * checkpoint or the job's initial state (so does approximate when no survivor's model is intact).
 */
final class FailureRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(FailureRecovery.class);
  /**
   * A member whose ring link broke, that has not asked for the recovery and whose heartbeats
   * (about two a second) have stopped this long, is declared failed without waiting for the sync
   * timeout: a live member that abandoned its ring sends heartbeats and asks within milliseconds.
   */
  static final long LINK_SILENCE_NANOS = 2_000_000_000L;
  /** A recovering worker whose model was lost half way (a broadcast that broke) asks with this. */
  static final long MODEL_LOST = Long.MIN_VALUE;

  /** A failure being recovered from: who failed (and why), who asked (with step and cursor). */
  private static final class Gathering {
    long sinceNanos;
    final Map<String, String> failed = new LinkedHashMap<>();
    final Map<String, long[]> asked = new LinkedHashMap<>();
    /** Peer -> the members that saw their link to it break. */
    final Map<String, Set<String>> brokenLinks = new LinkedHashMap<>();

    Gathering(long sinceNanos) {
      this.sinceNanos = sinceNanos;
    }
  }

  /** The decided order and the job position it sets. */
  record Decision(RecoveryPlan plan, JobPosition position, List<String> events) {}

  private final Recovery.Mode mode;
  private final FailureDetector detector;
  private final Map<String, String> fenced = new LinkedHashMap<>();
  private final Map<String, Long> heartbeats = new HashMap<>();
  private Gathering gathering;
  private RecoveryPlan last;
  private final Set<String> awaitingFirstSync = new HashSet<>();
  private final Set<String> receivedOrder = new HashSet<>();
  private final RecoveryPoints points;

  FailureRecovery(Recovery.Mode mode, FailureDetector detector, JobPosition initial) {
    this.mode = mode;
    this.detector = detector;
    this.points = new RecoveryPoints(initial);
  }

  FailureDetector detector() {
    return detector;
  }

  void checkpointCheck(CheckpointCheck c) {
    points.checkWith(c);
  }

  void initial(JobPosition p) {
    points.initial(p);
  }

  JobPosition initial() {
    return points.initial();
  }

  Optional<CheckpointRef> newestCheckpoint() {
    return points.newest();
  }

  /**
   * A complete checkpoint at {@code ref.at()}. One of a timeline that a recovery went back past
   * (ahead of the job while nothing is being recovered) is ignored.
   *
   * @return whether it is the newest now
   */
  boolean checkpointWritten(CheckpointRef ref, long jobStep) {
    if (ref.at().step() > jobStep && gathering == null) {
      LOG.info("Ignoring checkpoint {} at step {}: the job is at step {}", ref.path(), ref.at().step(), jobStep);
      return false;
    }
    return points.written(ref);
  }

  // ------------------------------------------------------------------ fencing

  Map<String, String> fenced() {
    return Map.copyOf(fenced);
  }

  boolean isFenced(String id) {
    return fenced.containsKey(id);
  }

  /** Inherited from an earlier leader's record: refused here too. */
  void fencedEarlier(List<String> ids) {
    ids.forEach(id -> fenced.putIfAbsent(id, "declared failed under an earlier leader"));
  }

  void requireNotFenced(String id) throws Refused {
    String why = fenced.get(id);
    if (why != null) {
      throw new Refused(Refused.Kind.FENCED, "workerId", id, CoordinatorState.FENCED + " (" + why
          + ") and is fenced out of the job; it exits and may rejoin under a new worker id");
    }
  }

  // ------------------------------------------------------------------ detection

  void heartbeat(String id, long now) {
    heartbeats.put(id, now);
  }

  /** {@code id} became a member at {@code now}: from then on its silence counts as a heartbeat's. */
  void joined(String id, long now) {
    heartbeats.putIfAbsent(id, now);
  }

  /**
   * The leader itself was paused (a long GC, SIGSTOP, a starved machine) until {@code now}: the
   * members' silence meanwhile says nothing about them, so every wait starts again from here.
   */
  void pardon(long now) {
    heartbeats.replaceAll((id, last) -> Math.max(last, now));
    if (gathering != null) {
      gathering.sinceNanos = Math.max(gathering.sinceNanos, now);
    }
  }

  /** Whether {@code id} sent a heartbeat within the sync timeout (alive, whatever its training thread does). */
  private boolean alive(String id, long now) {
    Long last = heartbeats.get(id);
    return last != null && now - last <= detector.timeoutNanos(false);
  }

  /**
   * The members to declare failed now, with why: with no recovery being gathered, those that
   * missed the sync of the open step or stopped sending heartbeats; while one is gathered, those
   * that have neither asked nor sent a heartbeat within the sync timeout (one that sends
   * heartbeats gets the longer grace: it is alive, its training thread may still be on its way).
   *
   * @param candidates ring members that may be suspected (never the leader itself)
   * @param open       the oldest step not complete, if anybody reported it
   * @param openRing   the members that run that step
   */
  Map<String, String> suspects(List<String> candidates, Optional<StepLedger.OpenStep> open, List<String> openRing,
      boolean grace, long now) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String id : candidates) {
      Long last = heartbeats.get(id);
      if (last != null && now - last > detector.timeoutNanos(false)) {
        out.put(id, "sent no heartbeat for " + (now - last) / 1_000_000 + " ms");
      }
    }
    if (gathering == null) {
      open.ifPresent(o -> {
        List<String> members = openRing.stream().filter(candidates::contains).toList();
        for (String id : detector.missedSync(members, o.reporters(), o.firstNanos(), grace, now)) {
          out.putIfAbsent(id, "missed the sync of step " + o.step() + " by more than "
              + detector.timeoutNanos(grace) / 1_000_000 + " ms");
        }
      });
    } else {
      for (String id : candidates) {
        if (gathering.asked.containsKey(id)) {
          continue;
        }
        Set<String> reporters = gathering.brokenLinks.get(id);
        long silent = now - heartbeats.getOrDefault(id, gathering.sinceNanos);
        if (reporters != null && silent > LINK_SILENCE_NANOS) {
          out.putIfAbsent(id, "its ring link broke (seen by " + String.join(", ", reporters)
              + ") and it sent no heartbeat for " + silent / 1_000_000 + " ms");
          continue;
        }
        boolean alive = alive(id, now);
        if (now - gathering.sinceNanos > detector.timeoutNanos(alive)) {
          out.putIfAbsent(id, "silent for " + detector.timeoutNanos(alive) / 1_000_000
              + " ms while a recovery was asked for");
        }
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ gathering and deciding

  boolean gathering() {
    return gathering != null;
  }

  /** The members declared failed in the recovery being gathered. */
  Set<String> failedNow() {
    return gathering == null ? Set.of() : Set.copyOf(gathering.failed.keySet());
  }

  /** {@code id} failed: fenced from now on, and a recovery is gathered. */
  void declare(String id, String why, long now) {
    if (gathering == null) {
      gathering = new Gathering(now);
    }
    gathering.failed.put(id, why);
    gathering.asked.remove(id);
    fenced.put(id, why);
    heartbeats.remove(id);
  }

  /** A recovery with nobody failed (a successor whose predecessor lost leadership but lives). */
  void gatherWithoutFailure(long now) {
    if (gathering == null) {
      gathering = new Gathering(now);
    }
  }

  /**
   * The order already decided, for a survivor that asks again before its first report on it (its
   * call timed out); empty when it has it already (carrying it out failed: a new recovery).
   */
  Optional<RecoveryPlan> orderAgain(String id) {
    if (gathering != null || last == null || !awaitingFirstSync.contains(id)) {
      return Optional.empty();
    }
    if (receivedOrder.add(id)) {
      return Optional.of(last);
    }
    LOG.warn("{} could not carry out recovery v{}; recovering again", id, last.version());
    return Optional.empty();
  }

  /** {@code id} asks how to go on; its model holds {@code completed} ({@link #MODEL_LOST}: none intact). */
  void asked(String id, long completed, long batchStart, long now) {
    if (gathering == null) {
      gathering = new Gathering(now);
      LOG.warn("{} asks for a recovery after step {}", id, completed);
    }
    gathering.asked.put(id, new long[] {completed, batchStart});
  }

  /** {@code reporter} saw its ring link to {@code peer} closed or reset (during the recovery it asks for). */
  void linkBroke(String peer, String reporter, long now) {
    if (gathering == null) {
      gathering = new Gathering(now);
    }
    if (!peer.equals(reporter)) {
      gathering.brokenLinks.computeIfAbsent(peer, p -> new java.util.TreeSet<>()).add(reporter);
    }
  }

  /** The survivors in ring order once every member not declared failed has asked; empty before. */
  Optional<List<Member>> survivors(MemberRing ring) {
    if (gathering == null) {
      return Optional.empty();
    }
    List<Member> survivors = new ArrayList<>();
    for (Member m : ring.members()) {
      if (fenced.containsKey(m.id())) {
        continue;
      }
      if (!gathering.asked.containsKey(m.id())) {
        return Optional.empty();
      }
      survivors.add(m);
    }
    return survivors.isEmpty() ? Optional.empty() : Optional.of(survivors);
  }

  /**
   * The order for {@code survivors} of {@code ring}.
   *
   * @param untrained  newcomers of applied switches that have not reported a step yet
   * @param jobStep    the job's step now (for the event)
   * @param positionAt the job position at (step, cursor)
   */
  Decision decide(MemberRing ring, List<Member> survivors, Set<String> untrained, long jobStep, long leaderEpoch,
      BiFunction<Long, Long, JobPosition> positionAt) {
    Gathering g = gathering;
    MemberRing next = new MemberRing(ring.version() + 1, survivors);
    List<String> failed = List.copyOf(g.failed.keySet());
    RecoveryPlan plan;
    JobPosition position;
    List<String> events = new ArrayList<>();
    long[] common = commonStep(survivors, g);
    if (!failed.isEmpty() && untrained.containsAll(failed) && common != null) {
      plan = new RecoveryPlan(next, RecoveryPlan.Mode.RESUME, failed, common[0] + 1, common[1], null, null,
          leaderEpoch);
      position = positionAt.apply(plan.nextStep(), plan.batchStart());
    } else if (mode == Recovery.Mode.APPROXIMATE && source(survivors, g) != null) {
      // Survivors at one step hold one model (the all-reduce gives every member the same sum):
      // nothing to send, the batch in flight is all that is redone.
      String source = common != null ? null : source(survivors, g);
      long[] at = common != null ? common : g.asked.get(source);
      plan = new RecoveryPlan(next, RecoveryPlan.Mode.APPROXIMATE, failed, at[0] + 1, at[1], null, source,
          leaderEpoch);
      position = positionAt.apply(plan.nextStep(), plan.batchStart());
    } else {
      points.dropDamaged(jobStep).ifPresent(events::add);
      JobPosition from = points.from();
      plan = new RecoveryPlan(next, RecoveryPlan.Mode.CONSISTENT, failed, from.step(), from.samplesSeen(),
          points.path(), null, leaderEpoch);
      position = from;
    }
    last = plan;
    awaitingFirstSync.clear();
    receivedOrder.clear();
    survivors.forEach(m -> awaitingFirstSync.add(m.id()));
    gathering = null;
    String event = "step " + jobStep + ": " + (failed.isEmpty() ? "a recovery was asked for"
        : String.join(", ", g.failed.entrySet().stream().map(e -> e.getKey() + " failed (" + e.getValue() + ")")
            .toList())) + "; " + plan.describe();
    events.add(event);
    return new Decision(plan, position, List.copyOf(events));
  }

  /** Hands the decided order to {@code id} (it asked, or asks again before its first report). */
  Optional<RecoveryPlan> handOut(String id) {
    if (last == null || !last.ring().contains(id)) {
      return Optional.empty();
    }
    receivedOrder.add(id);
    return Optional.of(last);
  }

  /** The last order decided, while it is the ring's. */
  Optional<RecoveryPlan> last() {
    return Optional.ofNullable(last);
  }

  /** {@code id}'s first report on the recovered ring: the order is behind it. */
  void reported(String id) {
    awaitingFirstSync.remove(id);
    receivedOrder.remove(id);
  }

  /** The step and cursor every survivor holds, when they all hold the same intact one; else null. */
  private static long[] commonStep(List<Member> survivors, Gathering g) {
    long[] common = null;
    for (Member m : survivors) {
      long[] at = g.asked.get(m.id());
      if (at[0] == MODEL_LOST || (common != null && (common[0] != at[0] || common[1] != at[1]))) {
        return null;
      }
      common = at;
    }
    return common;
  }

  /** The survivor whose model holds the highest completed step; null when none is intact. */
  private static String source(List<Member> survivors, Gathering g) {
    String source = null;
    long best = MODEL_LOST;
    for (Member m : survivors) {
      long completed = g.asked.get(m.id())[0];
      if (completed != MODEL_LOST && (source == null || completed > best)) {
        source = m.id();
        best = completed;
      }
    }
    return source;
  }
}
