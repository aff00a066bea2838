package org.edl.scheduler.rm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.PreemptionContainer;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.client.ClientRMProxy;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.security.AMRMTokenIdentifier;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.api.ResourceManagerAdministrationProtocol;
import org.apache.hadoop.yarn.server.api.protocolrecords.RefreshQueuesRequest;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairSchedulerConfiguration;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin inside a real ResourceManager (MiniYARNCluster, one NodeManager with 4 GPUs):
 * policies loaded from the allocation file, refreshQueues with bad and good files, and the
 * warn-then-kill preemption path seen from two application masters (unmanaged AMs driven by
 * this test, so that every GPU goes to workers).
 */
class FairPluginOnResourceManagerTest {
  private static final int GPUS = 4;
  private static final long GRACE_MS = 1_500;

  @TempDir static Path dir;
  private static MiniYARNCluster yarn;
  private static Path allocationFile;

  static String allocations(String aliceWeight, String alicePolicy) {
    return """
        <?xml version="1.0"?>
        <allocations>
          <defaultQueueSchedulingPolicy>org.edl.scheduler.rm.AppOrderPolicy</defaultQueueSchedulingPolicy>
          <queue name="root">
            <schedulingPolicy>drf</schedulingPolicy>
            <queue name="default"><schedulingPolicy>drf</schedulingPolicy></queue>
            <queue name="users" type="parent">
              <schedulingPolicy>org.edl.scheduler.rm.UserFairPolicy</schedulingPolicy>
              <queue name="alice">
                <weight>%s</weight>
                <schedulingPolicy>%s</schedulingPolicy>
              </queue>
            </queue>
          </queue>
          <queuePlacementPolicy>
            <rule name="specified" create="false"/>
            <rule name="nestedUserQueue" create="true">
              <rule name="default" queue="users"/>
            </rule>
          </queuePlacementPolicy>
        </allocations>
        """.formatted(aliceWeight, alicePolicy);
  }

  private static final String GOOD = allocations("1.0", "org.edl.scheduler.rm.AppOrderPolicy");

  @BeforeAll
  static void startYarn() throws Exception {
    allocationFile = dir.resolve("fair-scheduler.xml");
    Files.writeString(allocationFile, GOOD);
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(YarnConfiguration.RESOURCE_TYPES, ResourceInformation.GPU_URI);
    conf.setInt(YarnConfiguration.NM_RESOURCES_PREFIX + ResourceInformation.GPU_URI, GPUS);
    conf.setInt(YarnConfiguration.NM_PMEM_MB, 16384);
    conf.setInt("yarn.minicluster.yarn.nodemanager.resource.memory-mb", 16384);
    conf.setInt(YarnConfiguration.NM_VCORES, 16);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    conf.set(YarnConfiguration.RM_SCHEDULER, EdlFairScheduler.class.getName());
    conf.set(FairSchedulerConfiguration.ALLOCATION_FILE, allocationFile.toString());
    conf.setBoolean(FairSchedulerConfiguration.PREEMPTION, false);
    conf.setBoolean(FairSchedulerConfiguration.ASSIGN_MULTIPLE, true);
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
    conf.set(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES,
        GpuFairPreemptionPolicy.class.getName());
    conf.setLong(GpuFairPreemptionPolicy.GRACE_MS, GRACE_MS);
    conf.setLong(GpuFairPreemptionPolicy.INTERVAL_MS, 200);
    // Elastic-Tiresias' first queue ends at 2 GPU-seconds: a job holding 4 GPUs leaves it at once.
    conf.set(TiresiasSettings.QUEUE_LIMITS, "2,10000");
    conf.setInt(YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY, 10);
    conf.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 200);
    conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    conf.setBoolean("yarn.nodemanager.disk-health-checker.enable", false);
    ResourceUtils.resetResourceTypes(conf);
    ResourceUtils.resetNodeResources();
    System.setProperty("test.build.data", dir.resolve("yarn").toString());
    yarn = new MiniYARNCluster("fair", 1, 1, 1, 1);
    yarn.init(conf);
    yarn.start();
    ResourceManager rm = yarn.getResourceManager();
    await(() -> rm.getResourceScheduler().getClusterResource()
        .getResourceValue(ResourceInformation.GPU_URI) == GPUS, "4 GPUs registered");
  }

  @AfterAll
  static void stopYarn() {
    if (yarn != null) {
      yarn.stop();
    }
  }

  private static FairScheduler scheduler() {
    return (FairScheduler) yarn.getResourceManager().getResourceScheduler();
  }

  private static FSQueue queue(String name) {
    return scheduler().getQueueManager().getQueue(name);
  }

  @Test
  void thePoliciesNamedInTheAllocationFileRunTheQueues() {
    assertInstanceOf(EdlFairScheduler.class, scheduler());
    assertInstanceOf(UserFairPolicy.class, queue("root.users").getPolicy());
    assertInstanceOf(AppOrderPolicy.class, queue("root.users.alice").getPolicy());
  }

  /**
   * Each bad file: refreshQueues fails naming file, queue and value, and the queues keep the
   * previous configuration; then a good change applies. The bad files are dated in the past so
   * that FairScheduler's own 10-second reloader (which only looks at newer files) stays out.
   */
  @Test
  void refreshQueuesRefusesABadFileAndKeepsThePreviousConfiguration() throws Exception {
    String[][] bad = {
      {allocations("-2", "org.edl.scheduler.rm.AppOrderPolicy"), "weight -2"},
      {allocations("1.0", "org.edl.NoSuchPolicy"), "org.edl.NoSuchPolicy"},
      {GOOD.replace("</allocations>", ""), "line"},
    };
    for (String[] b : bad) {
      Files.writeString(allocationFile, b[0]);
      assertTrue(allocationFile.toFile().setLastModified(1_000));
      Exception e = assertThrows(Exception.class, () -> refreshQueues());
      String m = String.valueOf(e.getMessage());
      assertTrue(m.contains(allocationFile.toString()) && m.contains(b[1]), m);
      if (!b[1].equals("line")) {
        assertTrue(m.contains("root.users.alice"), m);
      }
      assertEquals(1.0f, queue("root.users.alice").getWeight());
      assertInstanceOf(AppOrderPolicy.class, queue("root.users.alice").getPolicy());
    }
    org.apache.hadoop.yarn.api.records.Resource maximum = scheduler().getMaximumResourceCapability();
    assertTrue(maximum.getResourceValue(ResourceInformation.GPU_URI) >= GPUS, maximum.toString());
    Files.writeString(allocationFile, allocations("3.0", "org.edl.scheduler.rm.AppOrderPolicy"));
    // As the admin does it: `yarn rmadmin -refreshQueues`.
    assertEquals(0, new org.apache.hadoop.yarn.client.cli.RMAdminCLI(new YarnConfiguration(yarn.getConfig()))
        .run(new String[] {"-refreshQueues"}));
    assertEquals(3.0f, queue("root.users.alice").getWeight());
    // A refresh changes the queues and nothing else: the RM reads no yarn-site.xml here, as the
    // embedded cluster's does not, and the largest container must still have its GPUs.
    assertEquals(maximum, scheduler().getMaximumResourceCapability());
    Files.writeString(allocationFile, GOOD);
    refreshQueues();
    assertEquals(1.0f, queue("root.users.alice").getWeight());
  }

  /**
   * FairScheduler's own reload of a changed file (its thread calls {@code reloadAllocations} about
   * 10 s after each change; called here directly) refuses what refreshQueues refuses.
   */
  @Test
  void theSchedulersOwnReloadRefusesWhatRefreshQueuesRefuses() throws Exception {
    java.lang.reflect.Field f = FairScheduler.class.getDeclaredField("allocsLoader");
    f.setAccessible(true);
    org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.AllocationFileLoaderService loader =
        (org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.AllocationFileLoaderService) f.get(scheduler());
    try {
      Files.writeString(allocationFile, allocations("-2.5", "org.edl.scheduler.rm.AppOrderPolicy"));
      assertTrue(allocationFile.toFile().setLastModified(1_000), "the reload thread stays out");
      java.io.IOException e = assertThrows(java.io.IOException.class, loader::reloadAllocations);
      assertTrue(e.getMessage().contains("weight -2.5") && e.getMessage().contains("root.users.alice"), e.getMessage());
      assertEquals(1.0f, queue("root.users.alice").getWeight());
      Files.writeString(allocationFile, allocations("2.0", "org.edl.scheduler.rm.AppOrderPolicy"));
      assertTrue(allocationFile.toFile().setLastModified(2_000));
      loader.reloadAllocations();
      assertEquals(2.0f, queue("root.users.alice").getWeight(), "a good change applies");
    } finally {
      Files.writeString(allocationFile, GOOD);
      assertTrue(allocationFile.toFile().setLastModified(3_000));
      loader.reloadAllocations();
    }
  }

  /** What {@code yarn rmadmin -refreshQueues} does: the admin protocol over RPC. */
  private static void refreshQueues() throws Exception {
    ResourceManagerAdministrationProtocol admin = ClientRMProxy.createRMProxy(
        yarn.getConfig(), ResourceManagerAdministrationProtocol.class);
    try {
      admin.refreshQueues(RefreshQueuesRequest.newInstance());
    } finally {
      org.apache.hadoop.ipc.RPC.stopProxy(admin);
    }
  }

  @Test
  void aBadAllocationFileStopsTheSchedulerFromStarting() throws Exception {
    Path f = dir.resolve("bad.xml");
    Files.writeString(f, allocations("-1", "drf"));
    Configuration conf = new Configuration(false);
    conf.set(FairSchedulerConfiguration.ALLOCATION_FILE, f.toString());
    Exception e = assertThrows(Exception.class, () -> new EdlFairScheduler().init(conf));
    assertTrue(String.valueOf(e.getMessage()).contains("weight -1"), e.getMessage());
  }

  /**
   * bob (job tagged with a guaranteed minimum of 1 GPU) takes all 4 GPUs; alice asks for 2.
   * Deserved: 2 and 2. bob's AM is told about exactly two of his containers (never his oldest),
   * before any is killed; he keeps them past the grace period, so they end PREEMPTED (-102); alice
   * gets her 2 GPUs; bob keeps 2.
   */
  @Test
  void anOverShareJobIsWarnedThenPreemptedAndTheStarvedUserGetsItsShare() throws Exception {
    Configuration conf = yarn.getConfig();
    YarnClient client = YarnClient.createYarnClient();
    client.init(conf);
    client.start();
    try {
      Am bob = Am.start(client, conf, "bob", Set.of(SchedulerSnapshot.MIN_GPUS_TAG + "1"));
      List<Container> bobs = bob.allocate(GPUS);
      bobs.sort((a, b) -> a.getId().compareTo(b.getId()));
      ContainerId oldest = bobs.get(0).getId();

      Am alice = Am.start(client, conf, "alice", Set.of());
      alice.ask(2);

      Set<ContainerId> warned = new HashSet<>();
      List<ContainerStatus> ended = new ArrayList<>();
      List<Container> alices = new ArrayList<>();
      await(() -> {
        AllocateResponse r = bob.heartbeat();
        for (ContainerId id : strict(r.getPreemptionMessage())) {
          assertTrue(ended.isEmpty(), "a warning came after a kill");
          warned.add(id);
        }
        ended.addAll(r.getCompletedContainersStatuses());
        alices.addAll(alice.heartbeat().getAllocatedContainers());
        return ended.size() >= 2 && alices.size() >= 2;
      }, "bob's two extras preempted and alice's two containers allocated");

      assertEquals(2, warned.size(), "warned " + warned);
      assertFalse(warned.contains(oldest), "the guaranteed container was warned");
      Set<ContainerId> endedIds = new HashSet<>();
      for (ContainerStatus s : ended) {
        assertEquals(ContainerExitStatus.PREEMPTED, s.getExitStatus(), s.toString());
        endedIds.add(s.getContainerId());
      }
      assertEquals(warned, endedIds);
      assertEquals(2, alices.size());
      assertEquals(2, scheduler().getQueueManager().getQueue("root.users.bob")
          .getResourceUsage().getResourceValue(ResourceInformation.GPU_URI));
      bob.finish();
      alice.finish();
    } finally {
      client.stop();
    }
  }

  /**
   * The stock FairScheduler reports priority 0 for every application (and its attempts 1);
   * EdlFairScheduler keeps the submitted one, capped at the cluster maximum (10 here), and a
   * user's queue orders its applications by it: carol's priority-7 application before her
   * earlier priority-2 one, and the priority-20 request counts as 10.
   */
  @Test
  void applicationPrioritiesAreKeptAndOrderAUsersApplications() throws Exception {
    Configuration conf = yarn.getConfig();
    YarnClient client = YarnClient.createYarnClient();
    client.init(conf);
    client.start();
    try {
      Am low = Am.start(client, conf, "carol", Set.of(), 2);
      Am high = Am.start(client, conf, "carol", Set.of(), 7);
      Am capped = Am.start(client, conf, "carol", Set.of(), 20);
      var apps = yarn.getResourceManager().getRMContext().getRMApps();
      assertEquals(2, apps.get(low.app).getApplicationPriority().getPriority());
      assertEquals(7, apps.get(high.app).getApplicationPriority().getPriority());
      assertEquals(10, apps.get(capped.app).getApplicationPriority().getPriority());
      var order = queue("root.users.carol").getPolicy().getComparator();
      var attempts = scheduler().getSchedulerApplications();
      List<org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.Schedulable> sorted =
          new ArrayList<>(List.of(attempts.get(low.app).getCurrentAppAttempt(),
              attempts.get(high.app).getCurrentAppAttempt(),
              attempts.get(capped.app).getCurrentAppAttempt()));
      sorted.sort(order);
      assertEquals(List.of(capped.app, high.app, low.app), sorted.stream()
          .map(a -> ((org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSAppAttempt) a)
              .getApplicationId()).toList());
      low.finish();
      high.finish();
      capped.finish();
    } finally {
      client.stop();
    }
  }

  /**
   * The allocation file switches the users' queues to Elastic-Tiresias and back, each time by
   * refreshQueues without a restart. Under it a user's newer job, with less attained GPU service,
   * gets two freed GPUs before the user's older job, which under the fair-share mode's
   * AppOrderPolicy goes first (same priority, earlier submit).
   */
  @Test
  void refreshQueuesSwitchesToElasticTiresiasWhichServesTheLeastAttainedServiceFirst() throws Exception {
    underElasticTiresias((client, conf, started) -> {
      assertInstanceOf(ElasticTiresiasPolicy.class, queue("root.users").getPolicy());
      assertInstanceOf(ElasticTiresiasPolicy.class, queue("root.users.alice").getPolicy());

      Am first = started(started, Am.start(client, conf, "dave", Set.of()));
      List<Container> held = first.allocate(GPUS);
      await(() -> TiresiasRanks.of(first.app).queue() == 1, "dave's first job demoted to the second queue");
      Am second = started(started, Am.start(client, conf, "dave", Set.of()));
      second.ask(2);
      first.ask(2);
      // Both asks reach the scheduler (and wait: every GPU is held) before any GPU comes free.
      await(() -> {
        assertEquals(List.of(), second.heartbeat().getAllocatedContainers());
        assertEquals(List.of(), first.heartbeat().getAllocatedContainers());
        return pendingGpus(second.app) >= 2 && pendingGpus(first.app) >= 2
            && TiresiasRanks.of(second.app).position() < Integer.MAX_VALUE;
      }, "both jobs' asks pending and ranked");
      assertTrue(TiresiasRanks.of(second.app).compareTo(TiresiasRanks.of(first.app)) < 0);
      assertEquals(0, TiresiasRanks.of(second.app).queue());
      assertEquals(List.of(second.app, first.app), sortedBy("root.users.dave", first.app, second.app));

      first.release(held.subList(0, 2));
      List<Container> got = new ArrayList<>();
      await(() -> {
        assertEquals(List.of(), first.heartbeat().getAllocatedContainers(), "the older job gets none");
        got.addAll(second.heartbeat().getAllocatedContainers());
        return got.size() >= 2;
      }, "the freed GPUs go to the job with the least attained service");

      Files.writeString(allocationFile, GOOD);
      refreshQueues();
      assertInstanceOf(AppOrderPolicy.class, queue("root.users.dave").getPolicy());
      assertEquals(List.of(first.app, second.app), sortedBy("root.users.dave", first.app, second.app),
          "fair share again: the older job first");
    });
  }

  /**
   * In the Elastic-Tiresias mode the victims are the policy's. Frank's first job, whose four GPUs
   * have taken it out of the first queue, is not reached by the walk once his new job asks for two
   * of the four: it is warned for its two elastic extras (never the two its tag guarantees),
   * scales them in (releases them here, as the EDL AM does) and the new job gets them. The fair
   * share would take nothing: frank is the only user, and users are what it balances.
   */
  @Test
  void elasticTiresiasWarnsTheJobItDoesNotReachForItsExtrasAndTheUsersNewJobGetsThem() throws Exception {
    underElasticTiresias((client, conf, started) -> {
      Am old = started(started, Am.start(client, conf, "frank",
          Set.of(SchedulerSnapshot.MIN_GPUS_TAG + "2", SchedulerSnapshot.GPUS_TAG + "4")));
      List<Container> held = old.allocate(GPUS);
      held.sort((x, y) -> x.getId().compareTo(y.getId()));
      await(() -> TiresiasRanks.of(old.app).queue() == 1, "frank's job demoted to the second queue");

      Am fresh = started(started, Am.start(client, conf, "frank", Set.of()));
      fresh.ask(2);
      Set<ContainerId> warned = new HashSet<>();
      await(() -> {
        assertEquals(List.of(), fresh.heartbeat().getAllocatedContainers());
        warned.addAll(strict(old.heartbeat().getPreemptionMessage()));
        return warned.size() >= 2;
      }, "frank warned for two containers");
      assertEquals(Set.of(held.get(2).getId(), held.get(3).getId()), warned, "the two newest: his extras");

      old.release(held.stream().filter(c -> warned.contains(c.getId())).toList());
      List<Container> got = new ArrayList<>();
      await(() -> {
        old.heartbeat();
        got.addAll(fresh.heartbeat().getAllocatedContainers());
        return got.size() >= 2;
      }, "the new job gets the two GPUs the old one gave back");
      assertEquals(2, scheduler().getSchedulerApplications().get(old.app).getCurrentAppAttempt()
          .getResourceUsage().getResourceValue(ResourceInformation.GPU_URI));
    });
  }

  /**
   * A job of one size (its tags: minimum = maximum) that Tiresias passes over is paused: every
   * one of its containers is warned, and once it has given them back (an EDL job stops with a
   * checkpoint) and asks again, the new job runs first and the paused one gets its GPUs back
   * when the new job is done with them.
   */
  @Test
  void elasticTiresiasPausesAJobOfOneSizeItDoesNotReachAndResumesItAfterwards() throws Exception {
    underElasticTiresias((client, conf, started) -> {
      Set<String> oneSize = Set.of(SchedulerSnapshot.MIN_GPUS_TAG + "4", SchedulerSnapshot.GPUS_TAG + "4",
          SchedulerSnapshot.MAX_GPUS_TAG + "4");
      Am old = started(started, Am.start(client, conf, "heidi", oneSize));
      List<Container> held = old.allocate(GPUS);
      await(() -> TiresiasRanks.of(old.app).queue() == 1, "heidi's job demoted to the second queue");

      Am fresh = started(started, Am.start(client, conf, "ivan", oneSize));
      fresh.ask(GPUS);
      Set<ContainerId> warned = new HashSet<>();
      await(() -> {
        assertEquals(List.of(), fresh.heartbeat().getAllocatedContainers());
        warned.addAll(strict(old.heartbeat().getPreemptionMessage()));
        // As in the test below: the scheduler serves the new job once its next update counts the ask.
        return warned.size() >= GPUS && pendingGpus(fresh.app) >= GPUS;
      }, "every container of heidi's job warned and the new job's ask counted");
      assertEquals(held.stream().map(Container::getId).collect(java.util.stream.Collectors.toSet()), warned);

      old.release(held);
      old.ask(GPUS);
      List<Container> got = new ArrayList<>();
      await(() -> {
        assertEquals(List.of(), old.heartbeat().getAllocatedContainers(), () -> "the paused job waits: old "
            + TiresiasRanks.of(old.app) + ", new " + TiresiasRanks.of(fresh.app) + ", pending " + pendingGpus(fresh.app)
            + " held " + held(old.app) + "/" + held(fresh.app));
        got.addAll(fresh.heartbeat().getAllocatedContainers());
        return got.size() >= GPUS;
      }, "the new job gets the four GPUs");
      assertTrue(strict(fresh.heartbeat().getPreemptionMessage()).isEmpty(), "the new job is not warned");

      fresh.release(got);
      List<Container> back = new ArrayList<>();
      await(() -> {
        fresh.heartbeat();
        back.addAll(old.heartbeat().getAllocatedContainers());
        return back.size() >= GPUS;
      }, "the paused job gets its GPUs back");
    });
  }

  /**
   * Rule 4 on YARN: GPUs go first to the jobs the round gives more than they hold. Grace's job
   * (first in Tiresias' order: it is older and still in the first queue) grew into the idle GPUs;
   * her new job asks for two. The round's targets take two back from the old job; once it has
   * given them back it asks for them again, as a growing EDL job does, but they go to the new job,
   * which waits for its request: the order alone would have handed them straight back.
   */
  @Test
  void elasticTiresiasServesAJobWaitingForItsRequestBeforeAnOlderJobAskingForExtras() throws Exception {
    underElasticTiresias((client, conf, started) -> {
      Am old = started(started, Am.start(client, conf, "grace",
          Set.of(SchedulerSnapshot.MIN_GPUS_TAG + "2", SchedulerSnapshot.GPUS_TAG + "2")));
      List<Container> held = old.allocate(GPUS);
      Am fresh = started(started, Am.start(client, conf, "grace", Set.of(SchedulerSnapshot.GPUS_TAG + "2")));
      fresh.ask(2);
      Set<ContainerId> warned = new HashSet<>();
      await(() -> {
        assertEquals(List.of(), fresh.heartbeat().getAllocatedContainers());
        warned.addAll(strict(old.heartbeat().getPreemptionMessage()));
        // The warning can come before the new job's ask is in: its tag is its request. Until the
        // scheduler counts the ask (FairScheduler updates demand every half second) the new job
        // is skipped, whatever its rank, and the old one's next ask would be served instead.
        return warned.size() >= 2 && pendingGpus(fresh.app) >= 2;
      }, "the old job warned for its two extras and the new job's ask counted");
      assertEquals(0, TiresiasRanks.of(old.app).queue());
      assertTrue(TiresiasRanks.of(old.app).position() < TiresiasRanks.of(fresh.app).position(),
          "the old job is first in Tiresias' order");

      old.release(held.stream().filter(c -> warned.contains(c.getId())).toList());
      old.ask(2);
      List<Container> got = new ArrayList<>();
      await(() -> {
        assertEquals(List.of(), old.heartbeat().getAllocatedContainers(), () -> "the old job's extras wait: old "
            + TiresiasRanks.of(old.app) + ", new " + TiresiasRanks.of(fresh.app) + ", pending " + pendingGpus(fresh.app)
            + " held " + held(old.app) + "/" + held(fresh.app) + " got " + got.size() + " all " + scheduler()
            .getSchedulerApplications().keySet());
        // Only while it waits: once the new job holds its request, the next round ranks it as
        // served again, behind the older job (a CI run read the rank after that round). The ranks
        // are read before the holding, so a round that saw the new job served is not taken.
        TiresiasRanks.Rank newRank = TiresiasRanks.of(fresh.app);
        TiresiasRanks.Rank oldRank = TiresiasRanks.of(old.app);
        if (held(fresh.app) < 2) {
          assertTrue(newRank.compareTo(oldRank) < 0, () -> "the waiting job ranks first: old " + oldRank
              + ", new " + newRank);
        }
        got.addAll(fresh.heartbeat().getAllocatedContainers());
        return got.size() >= 2;
      }, "the new job gets the two GPUs");
    });
  }

  /**
   * Rule 4 by the curves the AMs publish on their job pages (what a job measures as it runs):
   * each job holds its request of one GPU with two idle; the RM fetches each AM's curve from its
   * tracking URL, and only the job whose curve still rises is given more (linear, both would be).
   */
  @Test
  void elasticTiresiasGrowsTheJobWhoseAmPublishesAGainAndNotTheOneWhoseCurveIsFlat() throws Exception {
    com.sun.net.httpserver.HttpServer pages = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress("127.0.0.1", 0), 4);
    pages.createContext("/", x -> {
      // /flat/speedup.txt and /steep/speedup.txt: two job pages.
      String body = x.getRequestURI().getPath().startsWith("/flat/") ? "1:1=100.000,2=100.000\n"
          : "1:1=100.000,2=190.000\n";
      byte[] b = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      x.sendResponseHeaders(x.getRequestURI().getPath().endsWith("/speedup.txt") ? 200 : 404, b.length);
      x.getResponseBody().write(b);
      x.close();
    });
    pages.start();
    String base = "http://127.0.0.1:" + pages.getAddress().getPort();
    try {
      underElasticTiresias((client, conf, started) -> {
        Set<String> tags = Set.of(SchedulerSnapshot.MIN_GPUS_TAG + "1", SchedulerSnapshot.GPUS_TAG + "1");
        Am flat = started(started, Am.start(client, conf, "judy", tags, 0, base + "/flat/"));
        flat.allocate(1);
        Am steep = started(started, Am.start(client, conf, "kate", tags, 0, base + "/steep/"));
        steep.allocate(1);
        await(() -> TiresiasRanks.of(steep.app).tier() == TiresiasRanks.Rank.GROWING
            && TiresiasRanks.of(flat.app).tier() == TiresiasRanks.Rank.SERVED,
            "the steep job grows into the idle GPUs and the flat one does not");
      });
    } finally {
      pages.stop(0);
    }
  }

  /** The shipped layout with Elastic-Tiresias on the users' parent and every user queue. */
  private static final String TIRESIAS = GOOD
      .replace(UserFairPolicy.class.getName(), ElasticTiresiasPolicy.class.getName())
      .replace(AppOrderPolicy.class.getName(), ElasticTiresiasPolicy.class.getName());

  @FunctionalInterface
  private interface WithClient {
    void run(YarnClient client, Configuration conf, List<Am> started) throws Exception;
  }

  /** Runs {@code body} with the queues switched to Elastic-Tiresias; switches back and ends its jobs. */
  private static void underElasticTiresias(WithClient body) throws Exception {
    Configuration conf = yarn.getConfig();
    YarnClient client = YarnClient.createYarnClient();
    client.init(conf);
    client.start();
    List<Am> started = new ArrayList<>();
    try {
      Files.writeString(allocationFile, TIRESIAS);
      refreshQueues();
      body.run(client, conf, started);
    } finally {
      Files.writeString(allocationFile, GOOD);
      refreshQueues();
      for (Am am : started) {
        am.finish();
      }
      client.stop();
    }
  }

  private static Am started(List<Am> started, Am am) {
    started.add(am);
    return am;
  }

  private static long held(ApplicationId app) {
    return Gpus.of(scheduler().getSchedulerApplications().get(app).getCurrentAppAttempt().getResourceUsage());
  }

  private static long pendingGpus(ApplicationId app) {
    var attempt = scheduler().getSchedulerApplications().get(app).getCurrentAppAttempt();
    return Gpus.of(attempt.getDemand()) - Gpus.of(attempt.getResourceUsage());
  }

  /** The applications in the order the queue's policy gives them now. */
  private static List<ApplicationId> sortedBy(String queue, ApplicationId... apps) {
    var attempts = scheduler().getSchedulerApplications();
    List<org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.Schedulable> sorted = new ArrayList<>();
    for (ApplicationId a : apps) {
      sorted.add(attempts.get(a).getCurrentAppAttempt());
    }
    sorted.sort(queue(queue).getPolicy().getComparator());
    return sorted.stream()
        .map(a -> ((org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSAppAttempt) a).getApplicationId())
        .toList();
  }

  private static Set<ContainerId> strict(PreemptionMessage m) {
    Set<ContainerId> ids = new HashSet<>();
    // FairScheduler sends an empty strict contract on every heartbeat.
    if (m != null && m.getStrictContract() != null) {
      for (PreemptionContainer c : m.getStrictContract().getContainers()) {
        ids.add(c.getId());
      }
    }
    return ids;
  }

  /** An unmanaged application master for one user, driven by the test thread. */
  private static final class Am {
    final UserGroupInformation ugi;
    final AMRMClient<ContainerRequest> amrm;
    final ApplicationId app;

    private Am(UserGroupInformation ugi, AMRMClient<ContainerRequest> amrm, ApplicationId app) {
      this.ugi = ugi;
      this.amrm = amrm;
      this.app = app;
    }

    static Am start(YarnClient client, Configuration conf, String user, Set<String> tags)
        throws Exception {
      return start(client, conf, user, tags, 0);
    }

    static Am start(YarnClient client, Configuration conf, String user, Set<String> tags,
        int priority) throws Exception {
      return start(client, conf, user, tags, priority, "");
    }

    static Am start(YarnClient client, Configuration conf, String user, Set<String> tags,
        int priority, String trackingUrl) throws Exception {
      UserGroupInformation owner = UserGroupInformation.createRemoteUser(user);
      // The RM hands an unmanaged AM's token only to the application's owner.
      YarnClient asUser = owner.doAs((PrivilegedExceptionAction<YarnClient>) () -> {
        YarnClient c = YarnClient.createYarnClient();
        c.init(conf);
        c.start();
        return c;
      });
      ApplicationId app;
      Token<AMRMTokenIdentifier> token;
      ApplicationAttemptId attempt;
      try {
        app = owner.doAs((PrivilegedExceptionAction<ApplicationId>) () -> {
          ApplicationSubmissionContext ctx =
              asUser.createApplication().getApplicationSubmissionContext();
          ctx.setApplicationName(user + "-job");
          ctx.setUnmanagedAM(true);
          ctx.setApplicationTags(tags);
          ctx.setPriority(Priority.newInstance(priority));
          ctx.setResource(Resource.newInstance(128, 1));
          ctx.setAMContainerSpec(
              ContainerLaunchContext.newInstance(null, null, null, null, null, null));
          asUser.submitApplication(ctx);
          return ctx.getApplicationId();
        });
        await(() -> owner.doAs((PrivilegedExceptionAction<Boolean>) () ->
            asUser.getAMRMToken(app) != null), user + "'s unmanaged AM launched");
        token = owner.doAs((PrivilegedExceptionAction<Token<AMRMTokenIdentifier>>) () ->
            asUser.getAMRMToken(app));
        attempt = client.getApplicationReport(app).getCurrentApplicationAttemptId();
      } finally {
        asUser.stop();
      }
      token.setService(ClientRMProxy.getAMRMTokenService(conf));
      UserGroupInformation ugi = UserGroupInformation.createRemoteUser(attempt.toString());
      ugi.addToken(token);
      AMRMClient<ContainerRequest> amrm = ugi.doAs(
          (PrivilegedExceptionAction<AMRMClient<ContainerRequest>>) () -> {
            AMRMClient<ContainerRequest> c = AMRMClient.createAMRMClient();
            c.init(conf);
            c.start();
            c.registerApplicationMaster("localhost", 0, trackingUrl);
            return c;
          });
      return new Am(ugi, amrm, app);
    }

    void ask(int gpus) {
      for (int i = 0; i < gpus; i++) {
        Resource r = Resource.newInstance(128, 1);
        r.setResourceValue(ResourceInformation.GPU_URI, 1);
        amrm.addContainerRequest(new ContainerRequest(r, null, null, Priority.newInstance(1)));
      }
    }

    void release(List<Container> containers) {
      containers.forEach(c -> amrm.releaseAssignedContainer(c.getId()));
    }

    AllocateResponse heartbeat() throws Exception {
      return ugi.doAs((PrivilegedExceptionAction<AllocateResponse>) () -> amrm.allocate(0.1f));
    }

    List<Container> allocate(int gpus) throws Exception {
      ask(gpus);
      List<Container> got = new ArrayList<>();
      await(() -> {
        got.addAll(heartbeat().getAllocatedContainers());
        return got.size() >= gpus;
      }, gpus + " containers");
      return got;
    }

    void finish() throws Exception {
      ugi.doAs((PrivilegedExceptionAction<Void>) () -> {
        amrm.unregisterApplicationMaster(
            org.apache.hadoop.yarn.api.records.FinalApplicationStatus.SUCCEEDED, "", "");
        amrm.stop();
        return null;
      });
    }
  }

  /** Polls until done; the limit only turns a hang into a failure, it asserts no timing. */
  static void await(Callable<Boolean> done, String what) {
    Awaitility.await(what).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
        .pollInSameThread().until(done);
  }
}
