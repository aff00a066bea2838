package org.edl.am;

import static org.edl.am.ExitVerdict.Kind.AFTER_TRAINING;
import static org.edl.am.ExitVerdict.Kind.FAILURE_FATAL;
import static org.edl.am.ExitVerdict.Kind.FAILURE_REPLACE;
import static org.edl.am.ExitVerdict.Kind.FAILURE_REPLACE_ON_HOST;
import static org.edl.am.ExitVerdict.Kind.FINISHED_TRAINING;
import static org.edl.am.ExitVerdict.Kind.IGNORE;
import static org.edl.am.ExitVerdict.Kind.LEFT;
import static org.edl.am.ExitVerdict.Kind.PREEMPTED_RELAUNCH;
import static org.edl.am.ExitVerdict.Kind.PREEMPTED_SHRINK;
import static org.edl.am.ExitVerdict.Kind.REMOVED_REPLACE;
import static org.edl.am.ExitVerdict.Kind.REMOVED_SHRINK;
import static org.edl.am.ExitVerdict.Kind.STOPPED_FOR_RESTART;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.edl.am.ExitVerdict.Kind;
import org.edl.am.FleetChange.Departure;
import org.edl.am.WorkerFleet.Phase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link ExitRules#judge} as a table: every kind of end (each {@link End}) in every circumstance
 * (each {@link Circumstance}), with the verdict worked out by hand in each row's reason. Unless a
 * circumstance says otherwise the job is RUNNING, the container {@code c9} is a ring member that
 * nobody asked to leave, another member ({@code c1}) runs, and 1 of 2 allowed failures was
 * counted before.
 */
class ExitRulesTest {
  private static final String ID = "c9";

  /** How the container ended. */
  enum End {
    EXIT_0(ContainerExit.exited(0, "")),
    EXIT_LEFT(ContainerExit.exited(3, "")),
    WORKER_ERROR(ContainerExit.exited(1, "EDL worker failed")),
    KILLED(ContainerExit.exited(137, "Container killed on request. Exit code is 137")),
    PREEMPTED(ContainerExit.exited(ContainerExitStatus.PREEMPTED, "Container preempted by scheduler")),
    LOST_NODE(ContainerExit.exited(ContainerExitStatus.ABORTED, "Container released on a *lost* node")),
    NOT_STARTED(ContainerExit.notStarted(new java.io.IOException("node manager unreachable")));

    final ContainerExit exit;

    End(ContainerExit exit) {
      this.exit = exit;
    }
  }

  /** What the fleet knows, each a variation of the steady member described above. */
  enum Circumstance {
    MEMBER(facts(), fleet()),
    SCALE_IN_LEAVER(facts().departing(Departure.SCALE_IN), fleet()),
    MIGRATION_LEAVER(facts().departing(Departure.MIGRATION), fleet()),
    STOPPING_FOR_RESTART(facts().departing(Departure.RESTART), fleet().restarting()),
    NEWCOMER(facts().newcomer(), fleet()),
    MIGRATION_NEWCOMER(facts().newcomer().migrationNewcomer(), fleet()),
    WARNED_BY_SCHEDULER(facts().warned(), fleet()),
    REMOVALS_REPLACED(facts(), fleet().replacingRemoved()),
    /** c1 is gone; c5, a started newcomer, is the only other worker, and the leader's report does not name members. */
    LAST_MEMBER(facts(), fleet().noOtherMember()),
    /** As LAST_MEMBER, and the resource manager warned of it. */
    LAST_MEMBER_WARNED(facts().warned(), fleet().noOtherMember()),
    /** As LAST_MEMBER, but the leader's latest report names c5 in the ring. */
    LAST_MEMBER_NEWCOMER_IN_REPORT(facts(), fleet().noOtherMember().reportNaming("c1", "c5", ID)),
    /** 2 of 2 allowed failures counted already. */
    AT_FAILURE_LIMIT(facts(), fleet().failures(2)),
    /** 2 of 2 counted already, this container's among them (its end reported again). */
    COUNTED_BEFORE(facts().counted(), fleet().failures(2)),
    /** The first ring has not formed: no other worker started. */
    STARTING(facts(), fleet().phase(Phase.STARTING).noOtherMember()),
    /** As STARTING, and the resource manager warned of it (a job it pauses before the ring forms). */
    STARTING_WARNED(facts().warned(), fleet().phase(Phase.STARTING).noOtherMember()),
    /** A worker relaunched for a stop-resume, before the new ring formed: nobody else started yet. */
    RELAUNCHED_FOR_RESTART(facts().newcomer(), fleet().restarting().noOtherMember()),
    FINISHING_MEMBER(facts(), fleet().phase(Phase.FINISHING)),
    FINISHING_LEAVER(facts().departing(Departure.SCALE_IN), fleet().phase(Phase.FINISHING)),
    FINISHING_NEWCOMER(facts().newcomer(), fleet().phase(Phase.FINISHING)),
    FINISHING_NEWCOMER_IN_REPORT(facts().newcomer(), fleet().phase(Phase.FINISHING).reportNaming("c1", ID)),
    FINISHING_WARNED(facts().warned(), fleet().phase(Phase.FINISHING)),
    UNKNOWN_CONTAINER(facts().unknown(), fleet()),
    JOB_SUCCEEDED(facts(), fleet().phase(Phase.SUCCEEDED)),
    JOB_FAILED(facts(), fleet().phase(Phase.FAILED));

    final ContainerFacts container;
    final FleetFacts fleet;

    Circumstance(Facts container, Fleet fleet) {
      this.container = container.build();
      this.fleet = fleet.build();
    }
  }

  /** A row: expected {@code kind}; {@code counted}: a worker failure; {@code why}: the rule that decides. */
  private record Row(Circumstance when, End end, Kind kind, boolean counted, String why) {
    @Override
    public String toString() {
      return when + " / " + end + " -> " + kind + (counted ? " (a worker failure)" : "") + ": " + why;
    }
  }

  private static final boolean FAILURE = true;
  private static final boolean NO_FAILURE = false;

  static Stream<Row> table() {
    List<Row> rows = new ArrayList<>();
    // Replaced: within the limit, with another member to hand on the model.
    String replaced = "a failure within the limit while c1 holds the model: one new container";
    block(rows, Circumstance.MEMBER,
        FINISHED_TRAINING, NO_FAILURE, "exit 0 of a worker nobody asked to leave: training finished",
        REMOVED_SHRINK, NO_FAILURE, "EXIT_LEFT nobody asked for: the leader removed it; the target shrinks",
        FAILURE_REPLACE, FAILURE, replaced,
        FAILURE_REPLACE, FAILURE, replaced,
        FAILURE_REPLACE, FAILURE, "preempted without a warning: a failure; " + replaced,
        FAILURE_REPLACE, FAILURE, "lost node: " + replaced,
        FAILURE_REPLACE, FAILURE, "could not start: " + replaced);
    for (Circumstance leaver : List.of(Circumstance.SCALE_IN_LEAVER, Circumstance.MIGRATION_LEAVER)) {
      block(rows, leaver,
          LEFT, NO_FAILURE, "asked to leave and exited 0: its departure is complete",
          LEFT, NO_FAILURE, "asked to leave and exited EXIT_LEFT: its departure is complete",
          LEFT, FAILURE, "a leaver that failed within the limit has left; nothing is replaced",
          LEFT, FAILURE, "a leaver killed within the limit has left; nothing is replaced",
          LEFT, NO_FAILURE, "the resource manager took a container that was leaving anyway",
          LEFT, FAILURE, "a leaver on a lost node has left; nothing is replaced",
          LEFT, FAILURE, "a leaver that could not start has left (counted)");
    }
    block(rows, Circumstance.STOPPING_FOR_RESTART,
        STOPPED_FOR_RESTART, NO_FAILURE, "a stopper's exit 0: stopped with its checkpoint",
        STOPPED_FOR_RESTART, NO_FAILURE, "a stopper's EXIT_LEFT: stopped",
        STOPPED_FOR_RESTART, FAILURE, "a stopper that failed counts as stopped; the relaunch replaces it",
        STOPPED_FOR_RESTART, FAILURE, "a killed stopper counts as stopped (the checkpoint holds the model)",
        STOPPED_FOR_RESTART, FAILURE, "a preempted stopper did not stop by itself: a failure, counted as stopped",
        STOPPED_FOR_RESTART, FAILURE, "a stopper on a lost node counts as stopped",
        STOPPED_FOR_RESTART, FAILURE, "a stopper that could not start counts as stopped");
    block(rows, Circumstance.NEWCOMER,
        FINISHED_TRAINING, NO_FAILURE, "exit 0 nobody asked for: training finished",
        REMOVED_SHRINK, NO_FAILURE, "EXIT_LEFT nobody asked for: removed by the leader",
        FAILURE_REPLACE, FAILURE, "a newcomer that failed while training goes on: replaced",
        FAILURE_REPLACE, FAILURE, "killed while training goes on: replaced",
        FAILURE_REPLACE, FAILURE, "unwarned preemption: replaced",
        FAILURE_REPLACE, FAILURE, "lost node: replaced",
        FAILURE_REPLACE, FAILURE, "could not start: replaced");
    String onHost = "a migration newcomer that failed: one new container on the target host";
    block(rows, Circumstance.MIGRATION_NEWCOMER,
        FINISHED_TRAINING, NO_FAILURE, "exit 0 nobody asked for: training finished",
        REMOVED_SHRINK, NO_FAILURE, "EXIT_LEFT nobody asked for: removed by the leader",
        FAILURE_REPLACE_ON_HOST, FAILURE, onHost,
        FAILURE_REPLACE_ON_HOST, FAILURE, onHost,
        FAILURE_REPLACE_ON_HOST, FAILURE, "unwarned preemption: " + onHost,
        FAILURE_REPLACE_ON_HOST, FAILURE, onHost,
        FAILURE_REPLACE_ON_HOST, FAILURE, onHost);
    block(rows, Circumstance.WARNED_BY_SCHEDULER,
        FINISHED_TRAINING, NO_FAILURE, "the warning does not change an exit 0: training finished",
        REMOVED_SHRINK, NO_FAILURE, "EXIT_LEFT nobody asked for: removed by the leader",
        FAILURE_REPLACE, FAILURE, "a worker error is a failure, warned or not",
        FAILURE_REPLACE, FAILURE, "a kill is not the preemption it was warned of: a failure",
        PREEMPTED_SHRINK, NO_FAILURE, "preempted after its warning while running: the job shrinks",
        FAILURE_REPLACE, FAILURE, "a lost node is a failure, warned or not",
        FAILURE_REPLACE, FAILURE, "could not start: a failure");
    block(rows, Circumstance.REMOVALS_REPLACED,
        FINISHED_TRAINING, NO_FAILURE, "training finished",
        REMOVED_REPLACE, NO_FAILURE, "removed by the leader, and removed workers are replaced",
        FAILURE_REPLACE, FAILURE, replaced,
        FAILURE_REPLACE, FAILURE, replaced,
        FAILURE_REPLACE, FAILURE, replaced,
        FAILURE_REPLACE, FAILURE, replaced,
        FAILURE_REPLACE, FAILURE, replaced);
    String noModel = "no other ring member holds the model for a replacement: the job fails";
    block(rows, Circumstance.LAST_MEMBER,
        FINISHED_TRAINING, NO_FAILURE, "training finished",
        REMOVED_SHRINK, NO_FAILURE, "removed by the leader: no failure, so the model question does not arise",
        FAILURE_FATAL, FAILURE, noModel,
        FAILURE_FATAL, FAILURE, noModel,
        FAILURE_FATAL, FAILURE, noModel,
        FAILURE_FATAL, FAILURE, noModel,
        FAILURE_FATAL, FAILURE, noModel);
    block(rows, Circumstance.LAST_MEMBER_WARNED,
        FINISHED_TRAINING, NO_FAILURE, "training finished, warned or not",
        REMOVED_SHRINK, NO_FAILURE, "removed by the leader: no failure, so the model question does not arise",
        FAILURE_FATAL, FAILURE, noModel,
        FAILURE_FATAL, FAILURE, noModel,
        PREEMPTED_RELAUNCH, NO_FAILURE, "the scheduler took the ring's last member after its warning: no failure;"
            + " with nobody to hand the model on, the job starts again from its newest checkpoint",
        FAILURE_FATAL, FAILURE, noModel,
        FAILURE_FATAL, FAILURE, noModel);
    String named = "the leader's report names c5 in the ring: it holds the model, so a replacement can join";
    block(rows, Circumstance.LAST_MEMBER_NEWCOMER_IN_REPORT,
        FINISHED_TRAINING, NO_FAILURE, "training finished",
        REMOVED_SHRINK, NO_FAILURE, "removed by the leader",
        FAILURE_REPLACE, FAILURE, named,
        FAILURE_REPLACE, FAILURE, named,
        FAILURE_REPLACE, FAILURE, named,
        FAILURE_REPLACE, FAILURE, named,
        FAILURE_REPLACE, FAILURE, named);
    String beyond = "a third failure with max-worker-failures=2: the job fails";
    block(rows, Circumstance.AT_FAILURE_LIMIT,
        FINISHED_TRAINING, NO_FAILURE, "no failure: training finished",
        REMOVED_SHRINK, NO_FAILURE, "no failure: removed by the leader",
        FAILURE_FATAL, FAILURE, beyond,
        FAILURE_FATAL, FAILURE, beyond,
        FAILURE_FATAL, FAILURE, beyond,
        FAILURE_FATAL, FAILURE, beyond,
        FAILURE_FATAL, FAILURE, beyond);
    String once = "its failure is among the 2 counted: still 2 of 2, so within the limit: replaced";
    block(rows, Circumstance.COUNTED_BEFORE,
        FINISHED_TRAINING, NO_FAILURE, "training finished",
        REMOVED_SHRINK, NO_FAILURE, "removed by the leader",
        FAILURE_REPLACE, FAILURE, once,
        FAILURE_REPLACE, FAILURE, once,
        FAILURE_REPLACE, FAILURE, once,
        FAILURE_REPLACE, FAILURE, once,
        FAILURE_REPLACE, FAILURE, once);
    String starting = "nobody needs a model before the first ring forms: replaced";
    block(rows, Circumstance.STARTING,
        FINISHED_TRAINING, NO_FAILURE, "exit 0: training finished (the job goes to FINISHING)",
        REMOVED_SHRINK, NO_FAILURE, "EXIT_LEFT nobody asked for: removed by the leader",
        FAILURE_REPLACE, FAILURE, starting,
        FAILURE_REPLACE, FAILURE, starting,
        FAILURE_REPLACE, FAILURE, "never warned: " + starting,
        FAILURE_REPLACE, FAILURE, starting,
        FAILURE_REPLACE, FAILURE, starting);
    block(rows, Circumstance.STARTING_WARNED,
        FINISHED_TRAINING, NO_FAILURE, "exit 0: training finished, warned or not",
        REMOVED_SHRINK, NO_FAILURE, "EXIT_LEFT nobody asked for: removed by the leader",
        FAILURE_REPLACE, FAILURE, "a worker error is a failure, warned or not: " + starting,
        FAILURE_REPLACE, FAILURE, "a kill is not the preemption it was warned of: " + starting,
        PREEMPTED_SHRINK, NO_FAILURE, "preempted after its warning before the first ring: the scheduler's doing,"
            + " no failure (never below min-workers: replaced then)",
        FAILURE_REPLACE, FAILURE, starting,
        FAILURE_REPLACE, FAILURE, starting);
    String checkpoint = "the stop-resume's checkpoint holds the model: replaced";
    block(rows, Circumstance.RELAUNCHED_FOR_RESTART,
        FINISHED_TRAINING, NO_FAILURE, "not a stopper: its exit 0 means training finished",
        REMOVED_SHRINK, NO_FAILURE, "not a stopper: removed by the leader",
        FAILURE_REPLACE, FAILURE, checkpoint,
        FAILURE_REPLACE, FAILURE, checkpoint,
        FAILURE_REPLACE, FAILURE, checkpoint,
        FAILURE_REPLACE, FAILURE, checkpoint,
        FAILURE_REPLACE, FAILURE, checkpoint);
    String unwritten = "a ring member failed after training finished: counted, nothing more (the model is"
        + " written before any worker exits 0; the job's output decides its end)";
    block(rows, Circumstance.FINISHING_MEMBER,
        FINISHED_TRAINING, NO_FAILURE, "another worker finished training",
        AFTER_TRAINING, NO_FAILURE, "removed by the leader after training finished: the job waits for the others",
        AFTER_TRAINING, FAILURE, unwritten,
        AFTER_TRAINING, FAILURE, unwritten,
        AFTER_TRAINING, FAILURE, unwritten,
        AFTER_TRAINING, FAILURE, unwritten,
        AFTER_TRAINING, FAILURE, unwritten);
    block(rows, Circumstance.FINISHING_LEAVER,
        LEFT, NO_FAILURE, "asked to leave and exited 0: its departure is complete",
        LEFT, NO_FAILURE, "asked to leave and exited EXIT_LEFT: its departure is complete",
        AFTER_TRAINING, FAILURE, unwritten,
        AFTER_TRAINING, FAILURE, unwritten,
        LEFT, NO_FAILURE, "the resource manager took a container that was leaving anyway",
        AFTER_TRAINING, FAILURE, unwritten,
        AFTER_TRAINING, FAILURE, unwritten);
    String neverJoined = "a newcomer never in the ring before training finished: not counted";
    block(rows, Circumstance.FINISHING_NEWCOMER,
        FINISHED_TRAINING, NO_FAILURE, "exit 0: finished",
        AFTER_TRAINING, NO_FAILURE, "removed after training finished",
        AFTER_TRAINING, NO_FAILURE, neverJoined,
        AFTER_TRAINING, NO_FAILURE, neverJoined,
        AFTER_TRAINING, NO_FAILURE, neverJoined,
        AFTER_TRAINING, NO_FAILURE, neverJoined,
        AFTER_TRAINING, NO_FAILURE, neverJoined);
    String joined = "the leader's report names it in the ring: " + unwritten;
    block(rows, Circumstance.FINISHING_NEWCOMER_IN_REPORT,
        FINISHED_TRAINING, NO_FAILURE, "exit 0: finished",
        AFTER_TRAINING, NO_FAILURE, "removed after training finished",
        AFTER_TRAINING, FAILURE, joined,
        AFTER_TRAINING, FAILURE, joined,
        AFTER_TRAINING, FAILURE, joined,
        AFTER_TRAINING, FAILURE, joined,
        AFTER_TRAINING, FAILURE, joined);
    block(rows, Circumstance.FINISHING_WARNED,
        FINISHED_TRAINING, NO_FAILURE, "exit 0: finished",
        AFTER_TRAINING, NO_FAILURE, "removed after training finished",
        AFTER_TRAINING, FAILURE, unwritten,
        AFTER_TRAINING, FAILURE, unwritten,
        AFTER_TRAINING, FAILURE, "a warning shrinks a running job only; after training: " + unwritten,
        AFTER_TRAINING, FAILURE, unwritten,
        AFTER_TRAINING, FAILURE, unwritten);
    for (Circumstance nothing : List.of(Circumstance.UNKNOWN_CONTAINER, Circumstance.JOB_SUCCEEDED,
        Circumstance.JOB_FAILED)) {
      String why = nothing == Circumstance.UNKNOWN_CONTAINER
          ? "released by the fleet or reported before: nothing to do" : "the job has ended: nothing changes";
      block(rows, nothing, IGNORE, NO_FAILURE, why, IGNORE, NO_FAILURE, why, IGNORE, NO_FAILURE, why,
          IGNORE, NO_FAILURE, why, IGNORE, NO_FAILURE, why, IGNORE, NO_FAILURE, why, IGNORE, NO_FAILURE, why);
    }
    return rows.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table")
  void judges(Row row) {
    ExitVerdict verdict = ExitRules.judge(row.end().exit, row.when().container, row.when().fleet);
    assertEquals(row.kind(), verdict.kind(), verdict.reason());
    assertEquals(row.counted(), verdict.failure(), verdict.reason());
  }

  @Test
  void theTableHasEveryEndInEveryCircumstanceOnce() {
    Set<String> seen = new HashSet<>();
    table().forEach(r -> assertTrue(seen.add(r.when() + "/" + r.end()), "twice: " + r));
    assertEquals(Circumstance.values().length * End.values().length, seen.size());
  }

  @Test
  void everyKindOfVerdictIsInTheTable() {
    Set<Kind> kinds = EnumSet.noneOf(Kind.class);
    table().forEach(r -> kinds.add(r.kind()));
    assertEquals(EnumSet.allOf(Kind.class), kinds);
  }

  @Test
  void aFatalVerdictSaysWhy() {
    assertTrue(ExitRules.judge(End.KILLED.exit, Circumstance.AT_FAILURE_LIMIT.container,
        Circumstance.AT_FAILURE_LIMIT.fleet).reason().contains("max-worker-failures=2"));
    assertTrue(ExitRules.judge(End.KILLED.exit, Circumstance.LAST_MEMBER.container,
        Circumstance.LAST_MEMBER.fleet).reason().contains("no running worker is left"));
    assertTrue(ExitRules.judge(End.KILLED.exit, Circumstance.FINISHING_MEMBER.container,
        Circumstance.FINISHING_MEMBER.fleet).reason().contains("after training finished"));
  }

  /** Seven verdicts, one per {@link End} in declaration order. */
  private static void block(List<Row> rows, Circumstance when, Object... verdicts) {
    End[] ends = End.values();
    assertEquals(ends.length * 3, verdicts.length, when + ": one verdict per end");
    for (int i = 0; i < ends.length; i++) {
      rows.add(new Row(when, ends[i], (Kind) verdicts[3 * i], (Boolean) verdicts[3 * i + 1],
          (String) verdicts[3 * i + 2]));
    }
  }

  private static Facts facts() {
    return new Facts();
  }

  private static Fleet fleet() {
    return new Fleet();
  }

  /** Builds the {@link ContainerFacts} of {@code c9}. */
  private static final class Facts {
    private boolean known = true;
    private Departure departure;
    private boolean newcomer;
    private boolean migrationNewcomer;
    private boolean warned;
    private boolean counted;

    Facts departing(Departure why) {
      departure = why;
      return this;
    }

    Facts newcomer() {
      newcomer = true;
      return this;
    }

    Facts migrationNewcomer() {
      migrationNewcomer = true;
      return this;
    }

    Facts warned() {
      warned = true;
      return this;
    }

    Facts counted() {
      counted = true;
      return this;
    }

    Facts unknown() {
      known = false;
      return this;
    }

    ContainerFacts build() {
      return known ? new ContainerFacts(ID, true, departure, newcomer, migrationNewcomer, warned, counted)
          : ContainerFacts.unknown(ID);
    }
  }

  /** Builds the {@link FleetFacts}. */
  private static final class Fleet {
    private Phase phase = Phase.RUNNING;
    private int failures = 1;
    private boolean replaceRemoved;
    private boolean restart;
    private Set<String> inRing = Set.of("c1");
    private Set<String> joining = Set.of();
    private Optional<LeaderReport> latest = Optional.of(LeaderReport.ofSize(2));

    Fleet phase(Phase p) {
      phase = p;
      return this;
    }

    Fleet failures(int counted) {
      failures = counted;
      return this;
    }

    Fleet replacingRemoved() {
      replaceRemoved = true;
      return this;
    }

    Fleet restarting() {
      restart = true;
      return this;
    }

    Fleet noOtherMember() {
      inRing = Set.of();
      joining = Set.of("c5");
      return this;
    }

    Fleet reportNaming(String... members) {
      latest = Optional.of(new LeaderReport(members.length, Optional.of(List.of(members)), 1));
      return this;
    }

    FleetFacts build() {
      return new FleetFacts(phase, failures, 2, replaceRemoved, restart, inRing, joining, latest);
    }
  }
}
