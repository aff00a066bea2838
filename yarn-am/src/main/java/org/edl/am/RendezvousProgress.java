package org.edl.am;

import java.util.List;
import org.edl.thrift.JobProgress;

/**
 * A {@code --torchrun} job's progress report: it has no steps (they are the script's own), only the
 * rendezvous round that completed last and its number of nodes (worker containers).
 */
public final class RendezvousProgress {
  static final String PHASE = "RENDEZVOUS";

  private RendezvousProgress() {}

  /**
   * @param members the round's worker containers, as their agents announced them: named, a
   *                container that failed is known to be recovered from once a round leaves it out
   *                ({@link LeaderReport#recoveredFrom}), even when its replacement keeps the size
   */
  static JobProgress of(long round, int nodes, List<String> members) {
    JobProgress p = new JobProgress(0, 0, Double.NaN, 0, nodes);
    if (members.size() == nodes && members.stream().noneMatch(String::isEmpty)) {
      p.setMembers(List.copyOf(members));
    }
    p.setTopologyVersion(round);
    p.setPhase(PHASE);
    p.setEvents(List.of("rendezvous round " + round + " complete: " + nodes + " nodes"));
    return p;
  }

  public static boolean is(JobProgress p) {
    return PHASE.equals(p.getPhase());
  }

  /** "rendezvous round 3: 2 workers", for the status and the client's progress line. */
  public static String describe(JobProgress p) {
    return "rendezvous round " + p.getTopologyVersion() + ": " + p.getWorkers() + " workers";
  }
}
