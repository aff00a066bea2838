package org.edl.worker.coord;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Where a worker's coordinator is. Every transition the protocol allows is in {@link #NEXT};
 * {@link Lifecycle} refuses any other.
 *
 * <pre>
 *   CANDIDATE --elected--> FORMING | RUNNING | CHANGING | RECOVERING | FINISHING | FINISHED
 *   FORMING   --ring v1--> RUNNING
 *   RUNNING   --switch scheduled--> CHANGING --switch applied--> RUNNING | HANDED_OVER
 *   RUNNING | CHANGING | STOPPING | FINISHING --member declared failed--> RECOVERING
 *   RECOVERING --order decided--> RUNNING | CHANGING | STOPPING | FINISHING
 *   RUNNING   --stop scheduled--> STOPPING --checkpoint written--> RETIRED
 *   RUNNING | CHANGING --last step complete--> FINISHING --output written--> FINISHED
 *   any but FENCED --run over, or leaving--> RETIRED
 *   any --session suspended or lost, or a newer epoch seen--> FENCED
 * </pre>
 *
 * HANDED_OVER, RETIRED and FENCED are final: a worker that left leadership never leads again.
 */
public enum Phase {
  /** Not leading; may lead when elected, from the record the last leader published. */
  CANDIDATE,
  /** Leading a job whose first ring has not formed yet. */
  FORMING,
  /** Leading a training ring with no switch scheduled (a change may wait for newcomers). */
  RUNNING,
  /** A topology switch is scheduled. */
  CHANGING,
  /** A member was declared failed; the survivors are asked for their positions. */
  RECOVERING,
  /** A stop for a restart (stop-resume) is scheduled. */
  STOPPING,
  /** The last step is complete; the model and metrics are being written. */
  FINISHING,
  /** The model and metrics are written; members are told they may exit. */
  FINISHED,
  /** Left the ring at a switch; a successor leads from the record it published. */
  HANDED_OVER,
  /** This worker's run is over or it leaves: it never leads. */
  RETIRED,
  /** Lost its ZooKeeper session or saw a newer leader epoch: it never acts again. */
  FENCED;

  private static final Map<Phase, Set<Phase>> NEXT = Map.ofEntries(
      Map.entry(CANDIDATE, EnumSet.of(FORMING, RUNNING, CHANGING, RECOVERING, FINISHING, FINISHED, RETIRED, FENCED)),
      Map.entry(FORMING, EnumSet.of(RUNNING, RETIRED, FENCED)),
      Map.entry(RUNNING, EnumSet.of(CHANGING, RECOVERING, STOPPING, FINISHING, RETIRED, FENCED)),
      Map.entry(CHANGING, EnumSet.of(RUNNING, RECOVERING, HANDED_OVER, FINISHING, RETIRED, FENCED)),
      Map.entry(RECOVERING, EnumSet.of(RUNNING, CHANGING, STOPPING, FINISHING, RETIRED, FENCED)),
      Map.entry(STOPPING, EnumSet.of(RECOVERING, RETIRED, FENCED)),
      Map.entry(FINISHING, EnumSet.of(FINISHED, RECOVERING, RETIRED, FENCED)),
      Map.entry(FINISHED, EnumSet.of(RETIRED, FENCED)),
      Map.entry(HANDED_OVER, EnumSet.noneOf(Phase.class)),
      Map.entry(RETIRED, EnumSet.noneOf(Phase.class)),
      Map.entry(FENCED, EnumSet.noneOf(Phase.class)));

  private static final Set<Phase> LEADING = EnumSet.of(FORMING, RUNNING, CHANGING, RECOVERING, STOPPING,
      FINISHING, FINISHED);

  public boolean mayBecome(Phase next) {
    return NEXT.get(this).contains(next);
  }

  /** This coordinator answers as the job's leader. */
  public boolean leading() {
    return LEADING.contains(this);
  }

  /** Nothing follows: the worker never leads again. */
  public boolean isFinal() {
    return NEXT.get(this).isEmpty();
  }
}
