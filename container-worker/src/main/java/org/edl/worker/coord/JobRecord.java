package org.edl.worker.coord;

import java.util.List;
import java.util.Map;

/**
 * Everything a successor needs, as the leader publishes it in ZooKeeper ({@code /edl/<appId>/job})
 * whenever it changes; see {@link Succession}. Nullable: {@code checkpoint} (none yet),
 * {@code pending} (no change on its way), {@code output} (the job is not finished),
 * {@code stoppedInto} (the job did not stop for a restart), {@code stop} (no stop is scheduled).
 * {@code joinOrders}: the applied switch that admitted each newcomer of the ring which has not
 * reported a step yet, by newcomer (the newcomer may ask for it after the hand-over at that switch).
 */
public record JobRecord(String leaderId, long leaderEpoch, MemberRing ring, JobPosition position,
    CheckpointRef checkpoint, JobPosition initial, List<String> fenced, SwitchPlan pending,
    Map<String, Integer> stragglerRuns, double firstLoss, boolean departed, JobOutput output, String stoppedInto,
    StopPlan stop, Map<String, SwitchPlan> joinOrders) {

  public JobRecord {
    fenced = List.copyOf(fenced);
    stragglerRuns = Map.copyOf(stragglerRuns);
    joinOrders = Map.copyOf(joinOrders);
  }
}
