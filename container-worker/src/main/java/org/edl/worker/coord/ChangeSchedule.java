package org.edl.worker.coord;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The ring and how it changes: who registered, the running ring, and the next change with the
 * one queued behind it. Pure bookkeeping with no clock, I/O or lock; {@link CoordinatorState}
 * decides when to call what.
 *
 * <p>Formation: registrations are collected until the first ring's size is known; ring v1 is
 * ordered by worker id (the YARN container id), so it does not depend on arrival order.
 *
 * <p>Changes: once v1 runs, a registration is a newcomer and a leave names a leaver, both in one
 * pending {@link RingChange} (a migration is one switch): the next ring is the surviving ring in its
 * order followed by the newcomers by id. It is scheduled once every newcomer is ready (and, for a
 * replacement, once the awaited number of newcomers is in it), at step {@code t + k}; changes
 * asked for while a switch is scheduled wait in the queued change for the next one.
 */
final class ChangeSchedule {
  /** What a registration led to: the ring the worker is in or will join, and whether it waits for a switch. */
  record Registered(MemberRing ring, boolean pending) {}

  private final String leaderId;
  private final int maxWorkers;
  private final long lastStep;
  private int firstRingSize;
  private final Map<String, Member> registered = new LinkedHashMap<>();
  private MemberRing ring = MemberRing.NONE;
  private RingChange change;
  private RingChange queued;
  private final Set<String> ready = new LinkedHashSet<>();
  /**
   * Orders that added a worker, kept until its first report: a newcomer may ask after the switch,
   * even after a hand-over at it (the record carries them to the successor).
   */
  private final Map<String, SwitchPlan> joinedBy = new LinkedHashMap<>();

  /**
   * @param firstRingSize workers of the first ring (registrations awaited before v1)
   * @param lastStep      the job's last step: no switch is scheduled past it
   */
  ChangeSchedule(String leaderId, int firstRingSize, int maxWorkers, long lastStep) {
    this.leaderId = leaderId;
    this.firstRingSize = firstRingSize;
    this.maxWorkers = maxWorkers;
    this.lastStep = lastStep;
  }

  /**
   * A successor's schedule: the ring it inherits, the change on its way, if any, and the orders
   * that admitted the ring's untrained newcomers ({@code joinOrders}, by newcomer). A newcomer
   * may ask for its order only after the leader handed over at that very switch; the successor
   * (leader epoch {@code leaderEpoch}) hands it out as its own answer, since a member drops an
   * answer naming an older epoch than one it has heard.
   */
  static ChangeSchedule inherited(String leaderId, int maxWorkers, long lastStep, MemberRing ring,
      Optional<SwitchPlan> pending, Map<String, SwitchPlan> joinOrders, long leaderEpoch) {
    ChangeSchedule s = new ChangeSchedule(leaderId, ring.size(), maxWorkers, lastStep);
    s.ring = ring;
    ring.members().forEach(m -> s.registered.put(m.id(), m));
    joinOrders.forEach((id, o) -> {
      if (ring.contains(id)) {
        s.joinedBy.put(id, o.handedOutBy(leaderEpoch));
      }
    });
    pending.ifPresent(s::resume);
    return s;
  }

  private void resume(SwitchPlan p) {
    Map<String, Member> joiners = new LinkedHashMap<>();
    for (Member m : p.next().members()) {
      if (p.joiners().contains(m.id())) {
        joiners.put(m.id(), m);
        registered.put(m.id(), m);
        if (p.scheduled()) {
          ready.add(m.id());
        }
      }
    }
    Set<String> leavers = new LinkedHashSet<>();
    p.leavers().stream().filter(ring::contains).forEach(leavers::add);
    // A replacement the previous leader still waited on keeps waiting for the same newcomers.
    Set<String> replacing = !p.scheduled() && p.awaitedJoiners() > 0 ? leavers : Set.of();
    int awaited = replacing.isEmpty() ? 0 : p.awaitedJoiners();
    SwitchPlan order = !p.scheduled() ? null : new SwitchPlan(p.atStep(), p.next(), p.joiners(), p.leavers(),
        p.broadcasterId(), leavers.contains(leaderId), 0, p.leaderEpoch(), p.joinerShare());
    change = new RingChange(joiners, leavers, replacing, awaited, order);
  }

  MemberRing ring() {
    return ring;
  }

  boolean formed() {
    return ring.version() > 0;
  }

  /** Forms the first ring with the workers registered so far (the job starts at its minimum). */
  MemberRing formWithRegistered() {
    if (formed() || registered.isEmpty()) {
      throw new IllegalStateException("no first ring to form: formed " + formed() + ", registered " + registered.size());
    }
    List<Member> members = new ArrayList<>(registered.values());
    members.sort(Comparator.comparing(Member::id));
    ring = new MemberRing(1, members);
    return ring;
  }

  /** The first ring of a restarted job may have another size than the one submitted. */
  void firstRingSize(int size) {
    firstRingSize = size;
  }

  /** The newest ring: the next one when a change is on its way, else the running one. */
  MemberRing latest() {
    return change == null ? ring : next(change);
  }

  int registeredCount() {
    return registered.size();
  }

  Optional<Member> registration(String id) {
    return Optional.ofNullable(registered.get(id));
  }

  /**
   * Records a worker: one of the first ring before it forms, a newcomer for the next switch
   * after. Registering again with the same id and address is harmless (a retried call).
   *
   * @param unavailable ring members declared failed but not yet recovered from: they leave room
   */
  Registered register(Member m, int unavailable) throws Refused {
    Member known = registered.get(m.id());
    if (known != null) {
      if (known.sameAddress(m)) {
        return registeredAs(m.id());
      }
      throw Refused.invalid("workerId", m.id(), "already registered at " + known.address() + ", now from "
          + m.address());
    }
    if (!formed()) {
      registered.put(m.id(), m);
      if (registered.size() >= firstRingSize) {
        formWithRegistered();
      }
      return registeredAs(m.id());
    }
    int after = workersAfterChanges() - unavailable;
    if (after + 1 > maxWorkers) {
      throw Refused.invalid("workerId", m.id(), "the job would exceed max-workers=" + maxWorkers + " ("
          + after + " workers after the pending changes)");
    }
    registered.put(m.id(), m);
    RingChange target = openChange();
    set(target, target.withJoiner(m));
    return registeredAs(m.id());
  }

  private Registered registeredAs(String id) {
    if (!formed() || ring.contains(id)) {
      return new Registered(ring, false);
    }
    return new Registered(latest(), true);
  }

  /** A newcomer's context is prepared. */
  Optional<SwitchPlan> ready(String id) throws Refused {
    if (joinedBy.containsKey(id)) {
      return orderFor(id);
    }
    if (!isJoiner(change, id) && !isJoiner(queued, id)) {
      throw Refused.invalid("workerId", id, "is not a newcomer waiting for a switch");
    }
    ready.add(id);
    return orderFor(id);
  }

  /** The scheduled order that adds {@code id}, if there is one yet. */
  Optional<SwitchPlan> orderFor(String id) {
    SwitchPlan applied = joinedBy.get(id);
    if (applied != null) {
      return Optional.of(applied);
    }
    if (change != null && change.scheduled() && change.joiners().containsKey(id)) {
      return Optional.of(change.order());
    }
    return Optional.empty();
  }

  /** Asks {@code id} to leave at a future switch; merged into the change not scheduled yet, else queued. */
  SwitchPlan leave(String id, int unavailable) throws Refused {
    if (change != null && change.leavers().contains(id)) {
      return view(change);
    }
    if (queued != null && queued.leavers().contains(id)) {
      return view(queued);
    }
    if (!ring.contains(id)) {
      throw Refused.invalid("workerId", id, "is not a member of the running ring v" + ring.version());
    }
    if (workersAfterChanges() - unavailable - 1 < 1) {
      throw Refused.invalid("workerId", id, "is the last worker of the job; it cannot leave");
    }
    RingChange target = openChange();
    return view(set(target, target.withLeavers(Set.of(id))));
  }

  /** Migration in one switch: {@code leavers} go at the switch that admits the next {@code joiners} newcomers. */
  SwitchPlan replace(List<String> leavers, int joiners) throws Refused {
    String value = leavers == null ? "null" : String.join(",", leavers);
    if (leavers == null || leavers.isEmpty()) {
      throw Refused.invalid("leavers", value, "a replacement names at least one worker to leave");
    }
    Set<String> wanted = new LinkedHashSet<>();
    for (String id : leavers) {
      if (id == null || id.isBlank()) {
        throw Refused.invalid("leavers", String.valueOf(id), "must not be empty");
      }
      wanted.add(id);
    }
    for (RingChange c : pendingChanges()) {
      if (!c.replacing().isEmpty()) {
        if (c.replacing().equals(wanted)) {
          return view(c);
        }
        throw Refused.invalid("leavers", value, "a replacement of " + c.replacing() + " is already pending");
      }
    }
    if (joiners < 1) {
      throw Refused.invalid("joiners", Integer.toString(joiners),
          "a replacement admits at least one newcomer (leave removes without one)");
    }
    for (String id : wanted) {
      if (!ring.contains(id)) {
        throw Refused.invalid("leavers", id, "is not a member of the running ring v" + ring.version());
      }
      if (leaving(id)) {
        throw Refused.invalid("leavers", id, "is already leaving with a pending change");
      }
    }
    boolean someoneStays = ring.ids().stream().anyMatch(id -> !wanted.contains(id) && !leaving(id));
    if (!someoneStays) {
      throw Refused.invalid("leavers", value, "every worker of the ring would leave: one must stay to send"
          + " the model to the newcomers");
    }
    RingChange target = openChange();
    RingChange now = target.withLeavers(wanted);
    return view(set(target, now.replacing(wanted, now.joiners().size() + joiners)));
  }

  /** Withdraws the replacement of exactly {@code leavers} while its switch is not scheduled. */
  boolean cancelReplace(List<String> leavers) throws Refused {
    Set<String> wanted = leavers == null ? Set.of() : new LinkedHashSet<>(leavers);
    for (RingChange c : pendingChanges()) {
      if (c.replacing().isEmpty() || !c.replacing().equals(wanted)) {
        continue;
      }
      if (c.scheduled()) {
        throw Refused.invalid("leavers", String.join(",", leavers), "their switch is already scheduled at step "
            + c.order().atStep());
      }
      RingChange w = c.withdrawn();
      set(c, w.isEmpty() ? null : w);
      return true;
    }
    return false;
  }

  private boolean leaving(String id) {
    return (change != null && change.leavers().contains(id)) || (queued != null && queued.leavers().contains(id));
  }

  boolean changePending() {
    return change != null;
  }

  boolean somethingPending() {
    return change != null || queued != null;
  }

  Optional<SwitchPlan> scheduled() {
    return change == null || !change.scheduled() ? Optional.empty() : Optional.of(change.order());
  }

  /** The next change as it stands (scheduled or not), for a successor; empty with none. */
  Optional<SwitchPlan> pending(long leaderEpoch) {
    if (change == null) {
      return Optional.empty();
    }
    if (change.scheduled()) {
      return Optional.of(change.order());
    }
    SwitchPlan v = view(change);
    return Optional.of(new SwitchPlan(-1, next(change), v.joiners(), v.leavers(), null, false, v.awaitedJoiners(),
        leaderEpoch));
  }

  /** Whether the change can be scheduled now: not yet scheduled, every newcomer ready, none awaited. */
  boolean schedulable() {
    return change != null && !change.scheduled() && change.joiners().size() >= change.awaited()
        && ready.containsAll(change.joiners().keySet()) && !change.isEmpty();
  }

  /** {@link #schedule(long, long, long, double, double)} with even parts in the joiners' first step. */
  SwitchPlan schedule(long t, long k, long leaderEpoch) {
    return schedule(t, k, leaderEpoch, 0, 0);
  }

  /**
   * Schedules the change at step {@code t + k}, never past the job's last step and never before
   * the step after {@code t} ({@code t}: the highest step anybody reported); joiners take the
   * {@link JoinerShare} of their first step that {@code computeSeconds} and {@code joinLagSeconds} give.
   */
  SwitchPlan schedule(long t, long k, long leaderEpoch, double computeSeconds, double joinLagSeconds) {
    MemberRing next = next(change);
    long atStep = t + k;
    if (atStep > lastStep) {
      atStep = Math.max(t + 1, lastStep);
    }
    String broadcaster = null;
    if (!change.joiners().isEmpty()) {
      // The first survivor sends the model: it is a member before and after the switch.
      broadcaster = next.ids().stream().filter(ring::contains).findFirst().orElse(null);
    }
    int joiners = change.joiners().size();
    double share = JoinerShare.of(next.size() - joiners, joiners, computeSeconds, joinLagSeconds);
    SwitchPlan plan = new SwitchPlan(atStep, next, List.copyOf(change.joiners().keySet()),
        List.copyOf(change.leavers()), broadcaster, change.leavers().contains(leaderId), 0, leaderEpoch, share);
    change = change.scheduledAs(plan);
    return plan;
  }

  /** The ring whose members run {@code step}: the next one past a scheduled switch. */
  MemberRing membersFor(long step) {
    if (change != null && change.scheduled() && step > change.order().atStep()) {
      return change.order().next();
    }
    return ring;
  }

  /** Applies the scheduled switch when {@code completedStep} is its step. */
  Optional<SwitchPlan> applyIfDue(long completedStep) {
    if (change == null || !change.scheduled() || change.order().atStep() != completedStep) {
      return Optional.empty();
    }
    SwitchPlan o = change.order();
    ring = o.next();
    o.leavers().forEach(registered::remove);
    ready.removeAll(o.joiners());
    o.joiners().forEach(id -> joinedBy.put(id, o));
    change = queued;
    queued = null;
    if (change != null) {
      // Built against the ring that just ended: leavers already gone are dropped.
      change = change.keepingLeavers(ring::contains);
      if (change.isEmpty()) {
        change = null;
      }
    }
    return Optional.of(o);
  }

  /**
   * A newcomer's first report: it no longer needs its order.
   *
   * @return whether {@code id} was such a newcomer
   */
  boolean reported(String id) {
    return joinedBy.remove(id) != null;
  }

  /** The orders of applied switches kept for newcomers that have not reported a step yet, by newcomer. */
  Map<String, SwitchPlan> joinOrders() {
    return Map.copyOf(joinedBy);
  }

  /** Joiners of applied switches that have not reported a step yet. */
  Set<String> untrainedJoiners() {
    return Set.copyOf(joinedBy.keySet());
  }

  /**
   * A failure made the survivors' ring {@code survivors}: a change scheduled on the old ring
   * cannot happen there and waits for the next switch (its newcomers are asked to be ready again);
   * the failed are dropped from it.
   */
  void recovered(MemberRing survivors, Set<String> failed) {
    ring = survivors;
    failed.forEach(registered::remove);
    failed.forEach(joinedBy::remove);
    for (RingChange c : pendingChanges()) {
      RingChange u = c.unscheduled();
      for (String id : failed) {
        u = u.withoutJoiner(id);
      }
      u = u.keepingLeavers(id -> !failed.contains(id) && ring.contains(id));
      set(c, u);
    }
    if (change != null && change.isEmpty()) {
      change = null;
    }
    if (change == null) {
      change = queued;
      queued = null;
    }
  }

  /**
   * A newcomer that is gone before its switch was scheduled (its session ended): dropped from the
   * change so that the others are not held up by it.
   *
   * @return whether it was such a newcomer
   */
  boolean dropJoiner(String id) {
    for (RingChange c : pendingChanges()) {
      if (c.joiners().containsKey(id) && !c.scheduled()) {
        RingChange d = c.withoutJoiner(id);
        set(c, d.isEmpty() ? null : d);
        registered.remove(id);
        ready.remove(id);
        return true;
      }
    }
    return false;
  }

  boolean isJoiner(String id) {
    return isJoiner(change, id) || isJoiner(queued, id);
  }

  /** Whether {@code id} leaves at the scheduled switch (its last step is the switch's). */
  OptionalLong leavesAt(String id) {
    if (change != null && change.scheduled() && change.order().leavers().contains(id)) {
      return OptionalLong.of(change.order().atStep());
    }
    return OptionalLong.empty();
  }

  /** The ring's size after every pending change. */
  int workersAfterChanges() {
    int n = ring.size();
    for (RingChange c : pendingChanges()) {
      n += c.joiners().size() - c.leavers().size();
    }
    return n;
  }

  /** A switch was scheduled and not applied: the joiners it names never trained. */
  private List<RingChange> pendingChanges() {
    List<RingChange> l = new ArrayList<>(2);
    if (change != null) {
      l.add(change);
    }
    if (queued != null) {
      l.add(queued);
    }
    return l;
  }

  /** The change new requests go into: the pending one unless it is already scheduled. */
  private RingChange openChange() {
    if (change == null) {
      change = RingChange.EMPTY;
      return change;
    }
    if (!change.scheduled()) {
      return change;
    }
    if (queued == null) {
      queued = RingChange.EMPTY;
    }
    return queued;
  }

  /** Replaces {@code old} (the pending or the queued change, by identity) with {@code now}. */
  private RingChange set(RingChange old, RingChange now) {
    if (old == change) {
      change = now;
    } else if (old == queued) {
      queued = now;
    } else {
      throw new IllegalStateException("not a pending change");
    }
    return now;
  }

  private MemberRing next(RingChange c) {
    if (c.scheduled()) {
      return c.order().next();
    }
    List<Member> members = new ArrayList<>();
    for (Member m : ring.members()) {
      if (!c.leavers().contains(m.id())) {
        members.add(m);
      }
    }
    c.joiners().values().stream().sorted(Comparator.comparing(Member::id)).forEach(members::add);
    return new MemberRing(ring.version() + (c == queued && change != null ? 2 : 1), members);
  }

  /** The change as the caller sees it: its order once scheduled, else atStep -1. */
  private SwitchPlan view(RingChange c) {
    if (c.scheduled()) {
      return c.order();
    }
    MemberRing n = next(c);
    return new SwitchPlan(-1, n, List.copyOf(c.joiners().keySet()), List.copyOf(c.leavers()), null, false,
        c.awaited(), 0);
  }

  private static boolean isJoiner(RingChange c, String id) {
    return c != null && c.joiners().containsKey(id);
  }
}
