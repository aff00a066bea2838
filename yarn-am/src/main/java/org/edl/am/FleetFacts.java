package org.edl.am;

import java.util.Optional;
import java.util.Set;

/**
 * What the fleet knows of itself when one of its containers ends ({@link ExitRules#judge}).
 *
 * @param failures        worker failures counted so far
 * @param failuresAllowed {@code --max-worker-failures}
 * @param replaceRemoved  a worker the leader removed on its own gets a new container
 * @param restartUnderWay a stop-resume is under way: its workers start from the checkpoint
 * @param othersInRing    the other containers that started and that the fleet counts in the ring
 * @param othersJoining   the other containers that started and that the fleet does not count in
 *                        the ring yet (the leader's report may name them)
 * @param latest          the leader's latest progress report, if any
 */
record FleetFacts(WorkerFleet.Phase phase, int failures, int failuresAllowed, boolean replaceRemoved,
    boolean restartUnderWay, Set<String> othersInRing, Set<String> othersJoining, Optional<LeaderReport> latest) {

  FleetFacts {
    othersInRing = Set.copyOf(othersInRing);
    othersJoining = Set.copyOf(othersJoining);
  }

  /** The leader's latest report names {@code containerId} as a ring member. */
  boolean leaderNames(String containerId) {
    return latest.flatMap(LeaderReport::members).map(m -> m.contains(containerId)).orElse(false);
  }
}
