package org.edl.scheduler.rm;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.SchedulingEditPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerPreemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairSchedulerConfiguration;
import org.edl.scheduler.core.fair.ClusterSnapshot;
import org.edl.scheduler.core.fair.GracePeriod;
import org.edl.scheduler.core.fair.PreemptionPlan;
import org.edl.scheduler.core.fair.PreemptionPlanner;
import org.edl.scheduler.core.fair.RunningContainer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deserved-share preemption for the FairScheduler, run by the RM's scheduling monitor
 * ({@code yarn.resourcemanager.scheduler.monitor.enable=true},
 * {@code yarn.resourcemanager.scheduler.monitor.policies=} this class).
 *
 * <p>Every interval: snapshot the scheduler ({@link SchedulerSnapshot}), run the {@link
 * PreemptionPlanner}, and through {@link GracePeriod} mark newly planned containers for
 * preemption (FairScheduler then lists them in the application master's {@code
 * PreemptionMessage} strict contract, so an EDL job scales those workers in) and kill those
 * still running a grace period later (the AM sees exit status PREEMPTED, -102).
 *
 * <p>FairScheduler's own preemption ({@code yarn.scheduler.fair.preemption}) must be off: it
 * picks its own victims by memory/DRF fair share, including guaranteed workers and jobs that
 * cannot scale in, and kills them without regard to this policy's grace period; the two would
 * take the same GPUs twice. {@link #init} refuses to start otherwise.
 *
 * <p>Settings: {@value #GRACE_MS} (default 30000, the EDL paper's allowance for a graceful
 * exit) and {@value #INTERVAL_MS} (default 3000).
 */
public class GpuFairPreemptionPolicy implements SchedulingEditPolicy {
  private static final Logger LOG = LoggerFactory.getLogger(GpuFairPreemptionPolicy.class);

  public static final String GRACE_MS = "edl.scheduler.preemption.grace-ms";
  public static final long DEFAULT_GRACE_MS = 30_000;
  public static final String INTERVAL_MS = "edl.scheduler.preemption.interval-ms";
  public static final long DEFAULT_INTERVAL_MS = 3_000;

  private final PreemptionPlanner planner = new PreemptionPlanner();
  private FairScheduler scheduler;
  private RMContext rmContext;
  private GracePeriod grace;
  private long intervalMs;
  private TiresiasRanking ranking;
  private final AmSpeedups published = new AmSpeedups(System::currentTimeMillis);

  @Override
  public void init(Configuration conf, RMContext context, ResourceScheduler sched) {
    if (!(sched instanceof FairScheduler fs)) {
      throw new YarnRuntimeException(getClass().getName() + " needs the FairScheduler, not "
          + sched.getClass().getName() + " (yarn.resourcemanager.scheduler.class)");
    }
    if (conf.getBoolean(FairSchedulerConfiguration.PREEMPTION, false)) {
      throw new YarnRuntimeException(getClass().getName() + " replaces FairScheduler's own"
          + " preemption: set " + FairSchedulerConfiguration.PREEMPTION + "=false (it is true)");
    }
    long graceMs = positiveOrZero(conf, GRACE_MS, DEFAULT_GRACE_MS);
    intervalMs = positiveOrZero(conf, INTERVAL_MS, DEFAULT_INTERVAL_MS);
    if (intervalMs == 0) {
      throw new YarnRuntimeException(INTERVAL_MS + " must be > 0, was 0");
    }
    scheduler = fs;
    rmContext = context;
    grace = new GracePeriod(graceMs);
    ranking = new TiresiasRanking(TiresiasSettings.from(conf));
    LOG.info("GPU fair-share preemption on: grace {} ms, every {} ms", graceMs, intervalMs);
  }

  private static long positiveOrZero(Configuration conf, String key, long dflt) {
    String raw = conf.getTrimmed(key);
    if (raw == null) {
      return dflt;
    }
    long v;
    try {
      v = Long.parseLong(raw);
    } catch (NumberFormatException e) {
      throw new YarnRuntimeException(key + " must be a whole number of milliseconds, was '"
          + raw + "'");
    }
    if (v < 0) {
      throw new YarnRuntimeException(key + " must be >= 0, was " + v);
    }
    return v;
  }

  @Override
  public void editSchedule() {
    long now = scheduler.getClock().getTime();
    TiresiasRanking.Round round = rankTiresiasQueues(now);
    ClusterSnapshot snapshot = SchedulerSnapshot.take(scheduler, rmContext, now);
    PreemptionPlan plan = planner.plan(round.targets().isEmpty() ? snapshot : withoutJobs(snapshot, round));
    if (!round.targets().isEmpty()) {
      List<RunningContainer> victims = new ArrayList<>(plan.victims());
      victims.addAll(TiresiasRanking.victims(snapshot.containers().stream()
          .filter(c -> isRanked(c.job(), round)).toList(), round));
      plan = new PreemptionPlan(plan.createdAt(), plan.deserved(), victims, plan.placements());
    }
    Set<String> running = new HashSet<>();
    for (RunningContainer c : snapshot.containers()) {
      running.add(c.id());
    }
    GracePeriod.Actions actions = grace.next(plan, running, now);
    if (actions.none()) {
      return;
    }
    LOG.info("deserved GPUs {}; warning {}, killing {}", plan.deserved(), actions.warn(),
        actions.kill());
    send(actions.warn(), SchedulerEventType.MARK_CONTAINER_FOR_PREEMPTION);
    send(actions.kill(), SchedulerEventType.MARK_CONTAINER_FOR_KILLABLE);
  }

  /**
   * The order {@link ElasticTiresiasPolicy} gives the applications of its queues until the next
   * round; an empty one when no queue runs it (after a refresh back to fair share).
   */
  private TiresiasRanking.Round rankTiresiasQueues(long now) {
    try {
      List<TiresiasRanking.AppFacts> apps = SchedulerSnapshot.tiresiasApps(scheduler, rmContext, published);
      TiresiasRanking.Round round = ranking.round(apps, (int) Gpus.of(scheduler.getClusterResource()), now / 1000.0);
      TiresiasRanks.publish(round.ranks(), TiresiasRanking.bestPerQueue(apps, round.ranks()));
      return round;
    } catch (RuntimeException e) {
      // The monitor would skip the whole run: the fair-share queues keep their preemption.
      LOG.error("Elastic-Tiresias round failed; its queues keep the previous order and lose no containers", e);
      return TiresiasRanking.Round.NONE;
    }
  }

  private static boolean isRanked(String job, TiresiasRanking.Round round) {
    return round.targets().containsKey(ApplicationId.fromString(job));
  }

  /** The fair-share planner's part of the cluster: the applications of the other queues. */
  private static ClusterSnapshot withoutJobs(ClusterSnapshot s, TiresiasRanking.Round round) {
    return new ClusterSnapshot(s.takenAt(), s.weights(), s.nodes(),
        s.containers().stream().filter(c -> !isRanked(c.job(), round)).toList(),
        s.pending().stream().filter(p -> !isRanked(p.job(), round)).toList());
  }

  private void send(List<String> ids, SchedulerEventType type) {
    for (String id : ids) {
      RMContainer c = scheduler.getRMContainer(ContainerId.fromString(id));
      if (c == null) {
        continue;
      }
      rmContext.getDispatcher().getEventHandler().handle(
          new ContainerPreemptEvent(c.getApplicationAttemptId(), c, type));
    }
  }

  @Override
  public long getMonitoringInterval() {
    return intervalMs;
  }

  @Override
  public String getPolicyName() {
    return "EDL GPU fair-share preemption";
  }
}
