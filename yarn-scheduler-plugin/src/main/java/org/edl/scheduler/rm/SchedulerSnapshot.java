package org.edl.scheduler.rm;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.PendingAsk;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.edl.scheduler.core.fair.ClusterSnapshot;
import org.edl.scheduler.core.fair.NodeState;
import org.edl.scheduler.core.fair.PendingRequest;
import org.edl.scheduler.core.fair.RunningContainer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the FairScheduler's state into the policy core's {@link ClusterSnapshot}, in GPUs.
 *
 * <ul>
 *   <li>A "user" is the application's leaf queue (one per user under the
 *       {@code nestedUserQueue} placement rule of the shipped allocation file), with that queue's weight.
 *   <li>A job's guaranteed minimum comes from its application tag {@value #MIN_GPUS_TAG}N
 *       (EDL's client sets it from the job's minimum workers). Its oldest containers up to N
 *       GPUs are guaranteed and the newer ones elastic extras. An application without the tag
 *       cannot scale in gracefully, so all of it is guaranteed; so is every AM container.
 *   <li>Pending requests are the applications' outstanding asks for GPUs, one per container,
 *       with the application's priority and submit time.
 * </ul>
 */
final class SchedulerSnapshot {
  private static final Logger LOG = LoggerFactory.getLogger(SchedulerSnapshot.class);

  /** Application tag prefix naming a job's guaranteed GPUs, e.g. {@code edl-min-gpus=2}. */
  static final String MIN_GPUS_TAG = "edl-min-gpus=";
  /** Application tag prefix naming the GPUs a job asks for, e.g. {@code edl-gpus=4}. */
  static final String GPUS_TAG = "edl-gpus=";
  /** Application tag prefix naming the most GPUs a job grows to, e.g. {@code edl-max-gpus=8}. */
  static final String MAX_GPUS_TAG = "edl-max-gpus=";

  private SchedulerSnapshot() {}

  static ClusterSnapshot take(FairScheduler fs, RMContext rm, long now) {
    List<NodeState> nodes = new ArrayList<>();
    for (FSSchedulerNode n : fs.getNodeTracker().getAllNodes()) {
      nodes.add(new NodeState(n.getNodeID().toString(), (int) Gpus.of(n.getUnallocatedResource())));
    }
    Map<String, Double> weights = new HashMap<>();
    List<RunningContainer> containers = new ArrayList<>();
    List<PendingRequest> pending = new ArrayList<>();
    for (SchedulerApplication<FSAppAttempt> sa : fs.getSchedulerApplications().values()) {
      FSAppAttempt app = sa.getCurrentAppAttempt();
      if (app == null || app.getQueue() == null) {
        continue;
      }
      String user = app.getQueue().getName();
      double w = app.getQueue().getWeight();
      if (!(w >= 0)) {
        LOG.warn("queue {} has weight {}; counted as 0", user, w);
        w = 0;
      }
      weights.put(user, w);
      ApplicationId id = app.getApplicationId();
      RMApp rmApp = rm.getRMApps().get(id);
      long minGpus = minGpus(rmApp == null ? Set.of() : rmApp.getApplicationTags());
      int priority = AppPriorities.of(id, 0);
      long submit = rmApp == null ? app.getStartTime() : rmApp.getSubmitTime();
      String job = id.toString();

      List<RMContainer> live = new ArrayList<>(app.getLiveContainers());
      live.sort(Comparator.comparingLong(RMContainer::getCreationTime)
          .thenComparing(RMContainer::getContainerId));
      long guaranteed = 0;
      for (RMContainer c : live) {
        int gpus = (int) Gpus.of(c.getAllocatedResource());
        if (gpus == 0 || c.getAllocatedNode() == null) {
          continue;
        }
        boolean extra = !c.isAMContainer() && guaranteed >= minGpus;
        if (!extra) {
          guaranteed += gpus;
        }
        containers.add(new RunningContainer(c.getContainerId().toString(), job, user,
            c.getAllocatedNode().toString(), gpus, priority, c.getCreationTime(), extra));
      }
      for (SchedulerRequestKey key : app.getAppSchedulingInfo().getSchedulerKeys()) {
        PendingAsk ask = app.getPendingAsk(key, ResourceRequest.ANY);
        int gpus = (int) Gpus.of(ask.getPerAllocationResource());
        for (int i = 0; gpus > 0 && i < ask.getCount(); i++) {
          pending.add(new PendingRequest(job + "/" + key.getPriority().getPriority() + "/"
              + key.getAllocationRequestId() + "/" + i, user, job, priority, submit, gpus));
        }
      }
    }
    return new ClusterSnapshot(now, weights, nodes, containers, pending);
  }

  /**
   * The applications whose leaf queue runs {@link ElasticTiresiasPolicy}, for a
   * {@link TiresiasRanking} round. Attained service is the RM's own count of the application's
   * {@code yarn.io/gpu} seconds (finished containers and, refreshed every few seconds, the live
   * ones), over all its attempts.
   */
  static List<TiresiasRanking.AppFacts> tiresiasApps(FairScheduler fs, RMContext rm, AmSpeedups published) {
    List<TiresiasRanking.AppFacts> apps = new ArrayList<>();
    for (SchedulerApplication<FSAppAttempt> sa : fs.getSchedulerApplications().values()) {
      FSAppAttempt app = sa.getCurrentAppAttempt();
      if (app == null || app.getQueue() == null || !(app.getQueue().getPolicy() instanceof ElasticTiresiasPolicy)) {
        continue;
      }
      ApplicationId id = app.getApplicationId();
      RMApp rmApp = rm.getRMApps().get(id);
      long submit = rmApp == null ? app.getStartTime() : rmApp.getSubmitTime();
      double attained = 0;
      if (rmApp != null) {
        Long seconds = rmApp.getRMAppMetrics().getResourceSecondsMap().get(ResourceInformation.GPU_URI);
        attained = seconds == null ? 0 : seconds;
      }
      long asked = 0;
      for (SchedulerRequestKey key : app.getAppSchedulingInfo().getSchedulerKeys()) {
        PendingAsk ask = app.getPendingAsk(key, ResourceRequest.ANY);
        asked += Gpus.of(ask.getPerAllocationResource()) * ask.getCount();
      }
      int held = (int) Gpus.of(app.getResourceUsage());
      long tagged = rmApp == null ? -1 : tagValue(rmApp.getApplicationTags(), GPUS_TAG);
      // Capped by what it holds and asks for: a finishing job gives its containers back while its
      // AM writes the model, and counted at its tag it would keep newer jobs out of the walk
      // (they were warned for GPUs that were about to be free).
      long wants = held + asked;
      Set<String> tags = rmApp == null ? Set.of() : rmApp.getApplicationTags();
      boolean oneSize = isOneSize(tags);
      apps.add(new TiresiasRanking.AppFacts(id, app.getQueue().getName(), submit / 1000.0, held,
          (int) (tagged >= 0 ? Math.min(tagged, wants) : wants), attained, curve(rmApp, tags, published),
          !oneSize, oneSize, (int) Math.max(0, Math.min(Integer.MAX_VALUE, tagValue(tags, MIN_GPUS_TAG)))));
    }
    published.retainOnly(apps.stream().map(TiresiasRanking.AppFacts::id).collect(java.util.stream.Collectors.toSet()));
    return apps;
  }

  /**
   * The curve the job's AM publishes (what it measured as it ran, or its profile), else its tag's;
   * null: linear. Only EDL jobs (those with the minimum tag) are asked: another application's
   * tracking URL has no curve to give.
   */
  private static SpeedupCurve curve(RMApp rmApp, Set<String> tags, AmSpeedups published) {
    if (rmApp == null) {
      return null;
    }
    SpeedupCurve fromAm = tagValue(tags, MIN_GPUS_TAG) < 0 ? null
        : published.curveOf(rmApp.getApplicationId(), rmApp.getOriginalTrackingUrl());
    return fromAm != null ? fromAm : SpeedupCurve.of(tags);
  }

  /**
   * Whether the tags say an EDL job of one size: min = max. Such a job cannot scale in, but
   * answers a warning for all its containers by stopping with a checkpoint (a pause). A job
   * without the max tag (submitted by an older client) is taken as elastic, as before.
   */
  static boolean isOneSize(Set<String> tags) {
    long min = tagValue(tags, MIN_GPUS_TAG);
    long max = tagValue(tags, MAX_GPUS_TAG);
    return min >= 0 && max >= 0 && max <= min;
  }

  /** The tag's N; {@code Long.MAX_VALUE} (all guaranteed) without a well-formed tag. */
  static long minGpus(Set<String> tags) {
    long n = tagValue(tags, MIN_GPUS_TAG);
    return n < 0 ? Long.MAX_VALUE : n;
  }

  /** The number after {@code prefix} in the first such tag; -1 without a well-formed one. */
  static long tagValue(Set<String> tags, String prefix) {
    for (String t : tags) {
      if (t.startsWith(prefix)) {
        try {
          long n = Long.parseLong(t.substring(prefix.length()).trim());
          if (n >= 0) {
            return n;
          }
        } catch (NumberFormatException e) {
          // Treated as untagged below.
        }
        LOG.warn("ignoring application tag '{}': expected {}<GPUs >= 0>", t, prefix);
      }
    }
    return -1;
  }
}
