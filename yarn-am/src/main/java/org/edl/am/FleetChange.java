package org.edl.am;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The one elastic change a {@link WorkerFleet} has under way, as a value: what it started, what
 * it still waits for, and ({@link #landed}) the rule for when it has landed. The fleet holds at
 * most one; a user's change is refused while one is under way. What the ring loses meanwhile (a
 * failed worker, one the leader removed, one preempted after its warning) does not queue behind
 * it: it joins the change under way ({@link #lost}), because the leader's next reports show both
 * at once; with none under way it starts a {@link Replacement}.
 *
 * <p>Every change waits for the same things on the fleet's side (every container requested has
 * started, every container it expects to leave has gone) and on the leader's side
 * ({@link Shown}: a report since the ring last lost a worker, the recovery from every failed
 * member, and a ring of the target's size). A {@link Migration} also waits for its newcomers on
 * the target host. Values only: the fleet replaces the one it holds as events arrive.
 */
sealed interface FleetChange permits FleetChange.ScaleOut, FleetChange.ScaleIn, FleetChange.Migration,
    FleetChange.Restart, FleetChange.Replacement {

  /** Why a container is expected to exit 0 (or EXIT_LEFT) without that meaning "training finished". */
  enum Departure { SCALE_IN, MIGRATION, RESTART }

  /** What the leader's reports have shown of this change so far. */
  Shown shown();

  /** This change with {@code shown} instead. */
  FleetChange with(Shown shown);

  /** Why this change expects {@code containerId} to leave the job, or null. */
  default Departure departureOf(String containerId) {
    return null;
  }

  /** For the log and the status: "scale-out by 2", "migration of [c1] from h1 to h3". */
  String what();

  /**
   * This change as a new AM attempt takes it over, given which containers still run; null when
   * nothing of it can be taken over (a migration the leader had not accepted: the dead attempt
   * never heard whether it would, so nothing was requested for it and nobody leaves).
   */
  FleetChange takenOver(Predicate<String> running);

  /** The ring lost a worker: only a report after this one can show the change. */
  default FleetChange lost() {
    return with(shown().lost());
  }

  /** A ring member failed while the leader reported {@code ringBefore} workers (see {@link Shown}). */
  default FleetChange lost(String containerId, int ringBefore) {
    return with(shown().lost(containerId, ringBefore));
  }

  default FleetChange after(LeaderReport report) {
    return with(shown().after(report));
  }

  /**
   * Whether everything this change started has landed: every container requested has started,
   * none it expects to leave still runs, a migration has all its newcomers, and the leader has
   * reported, since the ring last lost a worker and after showing every recovery, a ring of the
   * target's size (for a stop-resume, one without the stopped workers, and since the relaunch).
   */
  default boolean landed(FleetView fleet) {
    boolean leaversGone = fleet.live().stream().noneMatch(id -> departureOf(id) != null);
    boolean migrated = !(this instanceof Migration m)
        || (m.awaited() == 0 && m.leavers().stream().noneMatch(fleet::isLive));
    // A change that keeps the ring's size (a pause, a migration) would otherwise land on the old
    // ring's report: the reported ring must hold none of the workers it replaces.
    List<String> replaced = this instanceof Restart r ? r.stopping()
        : this instanceof Migration m ? m.leavers() : List.of();
    boolean newRing = replaced.isEmpty() || shown().report() == null
        || shown().report().members().map(ms -> ms.stream().noneMatch(replaced::contains)).orElse(true);
    return fleet.containersIn() && leaversGone && migrated && newRing && shown().ringIs(fleet.target());
  }

  /** {@code count} more workers join the running ring by themselves. */
  record ScaleOut(int count, Shown shown) implements FleetChange {
    @Override
    public FleetChange with(Shown s) {
      return new ScaleOut(count, s);
    }

    @Override
    public String what() {
      return "scale-out by " + count;
    }

    @Override
    public FleetChange takenOver(Predicate<String> running) {
      return with(Shown.NOTHING);
    }
  }

  /** {@code leavers} leave the ring at a step the leader picks, and exit 0 or EXIT_LEFT. */
  record ScaleIn(List<String> leavers, Shown shown) implements FleetChange {
    public ScaleIn {
      leavers = List.copyOf(leavers);
    }

    @Override
    public FleetChange with(Shown s) {
      return new ScaleIn(leavers, s);
    }

    @Override
    public Departure departureOf(String containerId) {
      return leavers.contains(containerId) ? Departure.SCALE_IN : null;
    }

    /** The leader refused {@code containerId}'s leave: it stays in the ring. */
    ScaleIn staying(String containerId) {
      List<String> rest = new ArrayList<>(leavers);
      rest.remove(containerId);
      return new ScaleIn(rest, shown);
    }

    @Override
    public String what() {
      return "scale-in: " + leavers + " leaving";
    }

    @Override
    public FleetChange takenOver(Predicate<String> running) {
      return new ScaleIn(leavers.stream().filter(running).toList(), Shown.NOTHING);
    }
  }

  /**
   * The leader holds ({@code held}) the leave of {@code leavers} on {@code fromHost} for as many
   * newcomers on {@code toHost}; {@code awaited} of those are requested and not yet allocated,
   * {@code newcomers} were launched there.
   */
  record Migration(String fromHost, String toHost, List<String> leavers, boolean held, int awaited,
      List<String> newcomers, Shown shown) implements FleetChange {
    public Migration {
      leavers = List.copyOf(leavers);
      newcomers = List.copyOf(newcomers);
    }

    /** Asked of the leader; nothing requested before it holds the leave. */
    static Migration asked(String fromHost, String toHost, List<String> leavers, Shown shown) {
      return new Migration(fromHost, toHost, leavers, false, 0, List.of(), shown);
    }

    @Override
    public FleetChange with(Shown s) {
      return new Migration(fromHost, toHost, leavers, held, awaited, newcomers, s);
    }

    @Override
    public Departure departureOf(String containerId) {
      return leavers.contains(containerId) ? Departure.MIGRATION : null;
    }

    /** The leader holds the leave: one newcomer is requested per leaver. */
    Migration heldByLeader() {
      return new Migration(fromHost, toHost, leavers, true, leavers.size(), newcomers, shown);
    }

    Migration admitted(String newcomer) {
      List<String> more = new ArrayList<>(newcomers);
      more.add(newcomer);
      return new Migration(fromHost, toHost, leavers, held, awaited - 1, more, shown);
    }

    /** A newcomer failed: one more is requested on the target host in its place. */
    Migration newcomerLost(String newcomer) {
      List<String> rest = new ArrayList<>(newcomers);
      rest.remove(newcomer);
      return new Migration(fromHost, toHost, leavers, held, awaited + 1, rest, shown);
    }

    @Override
    public String what() {
      return "migration of " + leavers + " from " + fromHost + " to " + toHost;
    }

    /** Whatever the old attempt had requested and not yet launched is requested again. */
    @Override
    public FleetChange takenOver(Predicate<String> running) {
      if (!held) {
        return null;
      }
      List<String> kept = newcomers.stream().filter(running).toList();
      return new Migration(fromHost, toHost, leavers, true, Math.max(0, leavers.size() - kept.size()), kept,
          Shown.NOTHING);
    }
  }

  /**
   * Stop-resume: {@code stopping} (every worker when it began) stop with a checkpoint; once the
   * last has exited, {@code plan.size()} new ones start from it.
   */
  record Restart(StopResume plan, List<String> stopping, Shown shown) implements FleetChange {
    public Restart {
      stopping = List.copyOf(stopping);
    }

    @Override
    public FleetChange with(Shown s) {
      return new Restart(plan, stopping, s);
    }

    @Override
    public Departure departureOf(String containerId) {
      return stopping.contains(containerId) ? Departure.RESTART : null;
    }

    @Override
    public String what() {
      return plan.pausedFor() != null ? "pause (" + plan.pausedFor() + "), to resume " + plan.size()
          + " workers from " + plan.directory() : "stop-resume to " + plan.size() + " workers from " + plan.directory();
    }

    @Override
    public FleetChange takenOver(Predicate<String> running) {
      return new Restart(plan, stopping.stream().filter(running).toList(), Shown.NOTHING);
    }
  }

  /**
   * The ring lost workers nobody asked to leave (failed, removed by the leader, preempted after
   * its warning): new containers where the target still counts them, and the leader's report of
   * the target once it shows the recoveries.
   */
  record Replacement(Shown shown) implements FleetChange {
    @Override
    public FleetChange with(Shown s) {
      return new Replacement(s);
    }

    @Override
    public String what() {
      return "replacement of lost workers";
    }

    @Override
    public FleetChange takenOver(Predicate<String> running) {
      return with(Shown.NOTHING);
    }
  }

  /**
   * What the leader's reports have shown of a change: {@code report}, the latest one that can show
   * it (null: none since the ring last lost a worker, whose size still counted that worker), and
   * the failed ring members whose recovery the leader has not shown yet, each with the ring size it
   * reported before the failure. Until it shows a recovery (a ring without the member, or a smaller
   * one), a report of the old size still counts the dead worker, not its replacement.
   */
  record Shown(LeaderReport report, Map<String, Integer> unrecovered) {
    /** Nothing yet: a new AM attempt, or a change that waits for the leader's next report. */
    static final Shown NOTHING = new Shown(null, Map.of());

    public Shown {
      unrecovered = Map.copyOf(unrecovered);
    }

    /** A change that begins now: the leader's latest report counts until the ring loses a worker. */
    static Shown since(LeaderReport latest) {
      return new Shown(latest, Map.of());
    }

    Shown lost() {
      return new Shown(null, unrecovered);
    }

    Shown lost(String containerId, int ringBefore) {
      Map<String, Integer> more = new LinkedHashMap<>(unrecovered);
      more.put(containerId, ringBefore);
      return new Shown(null, more);
    }

    Shown after(LeaderReport r) {
      Map<String, Integer> still = new LinkedHashMap<>(unrecovered);
      still.entrySet().removeIf(e -> r.recoveredFrom(e.getKey(), e.getValue()));
      return new Shown(still.isEmpty() ? r : null, still);
    }

    boolean ringIs(int workers) {
      return report != null && report.workers() == workers;
    }
  }
}
