package org.edl.am;

import java.util.List;
import java.util.Optional;
import org.edl.thrift.JobProgress;

/**
 * What the fleet takes from one of the leader's progress reports: the running ring's size and,
 * when the leader names them, its members, and the workers it declared failed in the job so far.
 * A failed container is known to be recovered from once the ring the leader reports no longer
 * holds it; nothing is read out of event text.
 */
public record LeaderReport(int workers, Optional<List<String>> members, long leaderEpoch, List<String> failed) {

  public LeaderReport {
    members = members.map(List::copyOf);
    failed = List.copyOf(failed);
  }

  public LeaderReport(int workers, Optional<List<String>> members, long leaderEpoch) {
    this(workers, members, leaderEpoch, List.of());
  }

  /** A report that gives only the ring's size (an older leader, or a test). */
  public static LeaderReport ofSize(int workers) {
    return new LeaderReport(workers, Optional.empty(), 0);
  }

  public static LeaderReport of(JobProgress p) {
    return new LeaderReport(p.getWorkers(), p.isSetMembers() ? Optional.of(p.getMembers()) : Optional.empty(),
        p.isSetLeaderEpoch() ? p.getLeaderEpoch() : 0, p.isSetFailed() ? p.getFailed() : List.of());
  }

  /**
   * Whether the reported ring no longer counts {@code containerId}, which failed while the ring had
   * {@code workersBefore} members: it is not among the members, or (members unknown) the ring shrank.
   */
  boolean recoveredFrom(String containerId, int workersBefore) {
    return members.map(m -> !m.contains(containerId)).orElse(workers < workersBefore);
  }
}
