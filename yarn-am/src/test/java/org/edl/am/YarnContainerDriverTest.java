package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.same;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.timeout;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.PreemptionContainer;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.api.records.ResourceTypeInfo;
import org.apache.hadoop.yarn.api.records.StrictPreemptionContract;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.async.AMRMClientAsync;
import org.apache.hadoop.yarn.client.api.async.NMClientAsync;
import org.apache.hadoop.yarn.util.Records;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.edl.job.WorkerEnv;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

/**
 * {@link YarnContainerDriver} through its {@link YarnClientFactory}: what it asks of the
 * resource manager and node managers, and that every YARN callback, fired here from a thread of
 * the test's own as YARN's callback threads would, reaches the AM on its main thread only.
 */
class YarnContainerDriverTest {
  private static final ApplicationAttemptId ATTEMPT =
      ApplicationAttemptId.newInstance(ApplicationId.newInstance(7, 1), 1);
  private static final String MAIN = "am-main";
  private static final WorkerResource ONE_GPU = new WorkerResource(2048, 2, 1);

  private final ExecutorService mainThread =
      Executors.newSingleThreadExecutor(r -> new Thread(r, MAIN));
  @SuppressWarnings("unchecked")
  private final AMRMClientAsync<ContainerRequest> resourceManager = mock(AMRMClientAsync.class);
  private final NMClientAsync nodeManagers = mock(NMClientAsync.class);
  private final YarnClient cluster = mock(YarnClient.class);
  private final RecordingHandler events = new RecordingHandler();
  private final List<WorkerContainer> launchedContexts = new ArrayList<>();
  private final List<WorkerLaunch> launches = new ArrayList<>();
  private AMRMClientAsync.AbstractCallbackHandler fromResourceManager;
  private NMClientAsync.AbstractCallbackHandler fromNodeManagers;
  private YarnContainerDriver driver;

  @BeforeAll
  static void gpuIsAKnownResourceType() {
    // What registration does on a real AM: the cluster's resource types become known.
    ResourceUtils.reinitializeResources(List.of(
        ResourceTypeInfo.newInstance(ResourceInformation.MEMORY_URI, "Mi"),
        ResourceTypeInfo.newInstance(ResourceInformation.VCORES_URI),
        ResourceTypeInfo.newInstance(ResourceInformation.GPU_URI)));
  }

  @AfterAll
  static void forgetTheResourceTypes() {
    ResourceUtils.resetResourceTypes();
  }

  @BeforeEach
  void start() throws Exception {
    driver = new YarnContainerDriver(new Configuration(false), factory(), mainThread, 100);
    driver.start(events, (container, launch) -> {
      launchedContexts.add(container);
      launches.add(launch);
      return Records.newRecord(ContainerLaunchContext.class);
    }, "am-host", 4321, "http://am-host:8088/");
    verify(resourceManager).registerApplicationMaster("am-host", 4321, "http://am-host:8088/");
  }

  private YarnClientFactory factory() {
    return new YarnClientFactory() {
      @Override
      public AMRMClientAsync<ContainerRequest> resourceManagerClient(int heartbeatMs,
          AMRMClientAsync.AbstractCallbackHandler handler) {
        fromResourceManager = handler;
        return resourceManager;
      }

      @Override
      public NMClientAsync nodeManagerClient(NMClientAsync.AbstractCallbackHandler handler) {
        fromNodeManagers = handler;
        return nodeManagers;
      }

      @Override
      public YarnClient clusterClient() {
        return cluster;
      }
    };
  }

  @AfterEach
  void stop() {
    driver.stop();
    mainThread.shutdownNow();
  }

  @Test
  void asksForGpuContainersAndAnswersEachAllocationWithItsOldestRequest() throws Exception {
    driver.requestContainers(2, ONE_GPU);
    ArgumentCaptor<ContainerRequest> asked = ArgumentCaptor.forClass(ContainerRequest.class);
    verify(resourceManager, times(2)).addContainerRequest(asked.capture());
    ContainerRequest first = asked.getAllValues().get(0);
    assertEquals(2048, first.getCapability().getMemorySize());
    assertEquals(2, first.getCapability().getVirtualCores());
    assertEquals(1, first.getCapability().getResourceValue(ResourceInformation.GPU_URI));
    assertTrue(first.getRelaxLocality(), "a plain request may land anywhere");

    fromYarnThread(() -> fromResourceManager.onContainersAllocated(
        List.of(container(1, "node-a", first.getPriority()))));
    Event allocated = events.next();
    assertEquals("allocated [" + id(1) + "@node-a]", allocated.what());
    assertEquals(MAIN, allocated.thread());
    verify(resourceManager).removeContainerRequest(same(first));
  }

  @Test
  void aPinnedAllocationAnswersThePinnedRequestNotAPlainOne() throws Exception {
    driver.requestContainers(1, ONE_GPU);
    driver.requestContainersOn(1, ONE_GPU, "node-b");
    ArgumentCaptor<ContainerRequest> asked = ArgumentCaptor.forClass(ContainerRequest.class);
    verify(resourceManager, times(2)).addContainerRequest(asked.capture());
    ContainerRequest plain = asked.getAllValues().get(0);
    ContainerRequest pinned = asked.getAllValues().get(1);
    assertEquals(List.of("node-b"), pinned.getNodes());
    assertFalse(pinned.getRelaxLocality());
    assertFalse(pinned.getPriority().equals(plain.getPriority()),
        "the AMRM client refuses mixed locality relaxation within one priority");

    fromYarnThread(() -> fromResourceManager.onContainersAllocated(
        List.of(container(2, "node-b", pinned.getPriority()))));
    assertEquals("allocated [" + id(2) + "@node-b]", events.next().what());
    verify(resourceManager).removeContainerRequest(same(pinned));
    verify(resourceManager, never()).removeContainerRequest(same(plain));
  }

  @Test
  void anExtraIsAskedForBelowTheJobsOwnPriorityArrivesAsAnExtraAndCanBeWithdrawn() throws Exception {
    driver.requestContainers(1, ONE_GPU);
    driver.requestExtraContainer(ONE_GPU);
    ArgumentCaptor<ContainerRequest> asked = ArgumentCaptor.forClass(ContainerRequest.class);
    verify(resourceManager, times(2)).addContainerRequest(asked.capture());
    ContainerRequest plain = asked.getAllValues().get(0);
    ContainerRequest extra = asked.getAllValues().get(1);
    assertTrue(extra.getPriority().getPriority() > plain.getPriority().getPriority(),
        "a larger number is a lower priority in YARN: " + extra.getPriority() + " vs " + plain.getPriority());
    assertEquals(1, extra.getCapability().getResourceValue(ResourceInformation.GPU_URI));

    fromYarnThread(() -> fromResourceManager.onContainersAllocated(
        List.of(container(5, "node-a", extra.getPriority()))));
    assertEquals("extra " + id(5) + "@node-a", events.next().what());
    verify(resourceManager).removeContainerRequest(same(extra));

    driver.requestExtraContainer(ONE_GPU);
    verify(resourceManager, times(3)).addContainerRequest(asked.capture());
    ContainerRequest second = asked.getAllValues().get(asked.getAllValues().size() - 1);
    onMain(driver::withdrawExtraRequest);
    verify(resourceManager).removeContainerRequest(same(second));
    verify(resourceManager, never()).removeContainerRequest(same(plain));
    onMain(driver::withdrawRequests);
    verify(resourceManager).removeContainerRequest(same(plain));
  }

  @Test
  void aNodeThatRefusesTheProbeIsReportedUnreachableAndOneThatAcceptsItIsNot() throws Exception {
    try (java.net.ServerSocket listening = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        java.net.ServerSocket closed = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      int closedPort = closed.getLocalPort();
      closed.close();
      driver.requestContainers(2, ONE_GPU);
      Container up = Container.newInstance(ContainerId.newContainerId(ATTEMPT, 11),
          NodeId.newInstance("127.0.0.1", listening.getLocalPort()), "up:8042", Resource.newInstance(2048, 2),
          Priority.newInstance(1), null);
      Container down = Container.newInstance(ContainerId.newContainerId(ATTEMPT, 12),
          NodeId.newInstance("127.0.0.1", closedPort), "down:8042", Resource.newInstance(2048, 2),
          Priority.newInstance(1), null);
      fromYarnThread(() -> fromResourceManager.onContainersAllocated(List.of(up, down)));
      events.next();

      onMain(() -> driver.probeNode(id(11)));
      onMain(() -> driver.probeNode(id(12)));
      assertEquals(new Event("unreachable " + id(12), MAIN), events.next());
      assertNull(events.events.poll(1, TimeUnit.SECONDS), "the node that accepted says nothing");
    }
  }

  @Test
  void anAvoidedHostIsBlacklistedOnceAndAllowedAgainAfterTheNodeExpiry() throws Exception {
    driver.stop();
    Configuration conf = new Configuration(false);
    conf.setLong(org.apache.hadoop.yarn.conf.YarnConfiguration.RM_NM_EXPIRY_INTERVAL_MS, 300);
    driver = new YarnContainerDriver(conf, factory(), mainThread, 100);
    driver.start(events, (container, launch) -> Records.newRecord(ContainerLaunchContext.class), "am-host", 4321, "");

    onMain(() -> driver.avoidHost("node-a"));
    onMain(() -> driver.avoidHost("node-a"));
    verify(resourceManager, times(1)).updateBlacklist(List.of("node-a"), List.of());
    verify(resourceManager, timeout(10_000)).updateBlacklist(List.of(), List.of("node-a"));
  }

  @Test
  void launchesOnlyAllocatedContainersAndForgetsCompletedOnes() throws Exception {
    driver.requestContainers(1, ONE_GPU);
    Container c = container(3, "node-a", Priority.newInstance(1));
    fromYarnThread(() -> fromResourceManager.onContainersAllocated(List.of(c)));
    events.next();

    WorkerContainer worker = new WorkerContainer(id(3), "node-a");
    WorkerLaunch launch = new WorkerLaunch(List.of(0), Map.of());
    onMain(() -> driver.launch(worker, launch));
    verify(nodeManagers).startContainerAsync(same(c), any(ContainerLaunchContext.class));
    assertEquals(List.of(worker), launchedContexts);

    fromYarnThread(() -> fromNodeManagers.onContainerStarted(c.getId(), Map.of()));
    assertEquals(new Event("started " + id(3), MAIN), events.next());

    fromYarnThread(() -> fromResourceManager.onContainersCompleted(
        List.of(ContainerStatus.newInstance(c.getId(), ContainerState.COMPLETE, "killed", 137))));
    assertEquals(new Event("completed " + id(3) + " 137 killed", MAIN), events.next());
    IllegalStateException gone =
        assertThrows(IllegalStateException.class, () -> driver.launch(worker, launch));
    assertTrue(gone.getMessage().contains(id(3)), gone.getMessage());
    assertThrows(IllegalStateException.class, () -> driver.launch(
        new WorkerContainer(id(99), "node-a"), launch), "never allocated");
  }

  /**
   * The worker claims GPU indices below its node's count: the driver reads it from the node's
   * report, asking the ResourceManager once per node.
   */
  @Test
  void aLaunchCarriesItsNodesGpuCount() throws Exception {
    Container a = container(6, "node-a", Priority.newInstance(1));
    Container b = container(7, "node-a", Priority.newInstance(1));
    Resource eight = Resource.newInstance(8192, 8);
    eight.setResourceValue(ResourceInformation.GPU_URI, 8);
    when(cluster.getNodeReports(NodeState.RUNNING)).thenReturn(List.of(NodeReport.newInstance(a.getNodeId(),
        NodeState.RUNNING, "node-a:8042", "/default-rack", Resource.newInstance(0, 0), eight, 0, "", 0)));
    driver.requestContainers(2, ONE_GPU);
    fromYarnThread(() -> fromResourceManager.onContainersAllocated(List.of(a, b)));
    events.next();

    onMain(() -> driver.launch(new WorkerContainer(id(6), "node-a"), new WorkerLaunch(List.of(1))));
    onMain(() -> driver.launch(new WorkerContainer(id(7), "node-a"), new WorkerLaunch(List.of(2))));
    assertEquals("8", launches.get(0).env().get(WorkerEnv.NODE_GPUS));
    assertEquals(List.of(1), launches.get(0).gpuIndices());
    assertEquals("8", launches.get(1).env().get(WorkerEnv.NODE_GPUS));
    verify(cluster, times(1)).getNodeReports(NodeState.RUNNING);
  }

  @Test
  void aNodeTheResourceManagerDoesNotReportGivesNoCount() throws Exception {
    Container c = container(8, "node-z", Priority.newInstance(1));
    driver.requestContainers(1, ONE_GPU);
    fromYarnThread(() -> fromResourceManager.onContainersAllocated(List.of(c)));
    events.next();
    onMain(() -> driver.launch(new WorkerContainer(id(8), "node-z"), new WorkerLaunch(List.of(0))));
    assertFalse(launches.get(0).env().containsKey(WorkerEnv.NODE_GPUS), launches.get(0).env().toString());
  }

  @Test
  void aFailedStartAndAReleaseReachTheirTargets() throws Exception {
    ContainerId c = ContainerId.newContainerId(ATTEMPT, 4);
    IOException refused = new IOException("node manager refused");
    fromYarnThread(() -> fromNodeManagers.onStartContainerError(c, refused));
    Event failed = events.next();
    assertEquals("start failed " + c + " node manager refused", failed.what());
    assertEquals(MAIN, failed.thread());

    driver.release(c.toString());
    verify(resourceManager).releaseAssignedContainer(c);
  }

  @Test
  void aThrowingHandlerBecomesOneErrorAndTheDriverCarriesOn() throws Exception {
    events.throwOnAllocation = true;
    driver.requestContainers(1, ONE_GPU);
    fromYarnThread(() -> fromResourceManager.onContainersAllocated(
        List.of(container(5, "node-a", Priority.newInstance(1)))));
    assertEquals("allocated [" + id(5) + "@node-a]", events.next().what());
    Event error = events.next();
    assertEquals("error handler refused the allocation", error.what());
    assertEquals(MAIN, error.thread());

    fromYarnThread(() -> fromNodeManagers.onContainerStarted(
        ContainerId.newContainerId(ATTEMPT, 5), Map.of()));
    assertEquals("started " + id(5), events.next().what());
  }

  /**
   * Where failing the job throws too (its classes gone from a jar replaced under the running AM,
   * say), the attempt ends rather than living on with a job nobody runs.
   */
  @Test
  void aHandlerThatCannotEvenFailTheJobEndsTheAttempt() throws Exception {
    BlockingQueue<Integer> halted = new LinkedBlockingQueue<>();
    driver.haltingWith(halted::add);
    events.throwOnAllocation = true;
    events.throwOnError = true;
    driver.requestContainers(1, ONE_GPU);
    fromYarnThread(() -> fromResourceManager.onContainersAllocated(
        List.of(container(6, "node-a", Priority.newInstance(1)))));
    assertEquals("allocated [" + id(6) + "@node-a]", events.next().what());
    assertEquals("error handler refused the allocation", events.next().what());
    assertEquals(YarnContainerDriver.HALT_STATUS, halted.poll(10, TimeUnit.SECONDS));
  }

  @Test
  void theResourceManagersShutdownRequestAndErrorsEndTheAm() throws Exception {
    fromYarnThread(fromResourceManager::onShutdownRequest);
    Event shutdown = events.next();
    assertTrue(shutdown.what().startsWith("error the ResourceManager asked"), shutdown.what());
    assertEquals(MAIN, shutdown.thread());

    fromYarnThread(() -> fromResourceManager.onError(new IOException("RM unreachable")));
    assertEquals(new Event("error RM unreachable", MAIN), events.next());
  }

  @Test
  void onlyPreemptionMessagesThatAskForSomethingReachTheAm() throws Exception {
    PreemptionMessage empty = Records.newRecord(PreemptionMessage.class);
    StrictPreemptionContract none = Records.newRecord(StrictPreemptionContract.class);
    none.setContainers(Set.of());
    empty.setStrictContract(none);
    fromYarnThread(() -> fromResourceManager.onPreemptionMessageReceived(empty));

    PreemptionMessage asking = Records.newRecord(PreemptionMessage.class);
    StrictPreemptionContract strict = Records.newRecord(StrictPreemptionContract.class);
    PreemptionContainer named = Records.newRecord(PreemptionContainer.class);
    named.setId(ContainerId.newContainerId(ATTEMPT, 6));
    strict.setContainers(Set.of(named));
    asking.setStrictContract(strict);
    fromYarnThread(() -> fromResourceManager.onPreemptionMessageReceived(asking));

    Event preempted = events.next();
    assertEquals("preemption [" + id(6) + "]", preempted.what(),
        "the empty message before it was dropped");
    assertEquals(MAIN, preempted.thread());
  }

  @Test
  void progressIsClampedAndTheOutcomeSetsTheFinalStatus() throws Exception {
    driver.reportProgress(1.7f);
    assertEquals(1f, fromResourceManager.getProgress());
    driver.reportProgress(-0.2f);
    assertEquals(0f, fromResourceManager.getProgress());
    driver.reportProgress(0.25f);
    assertEquals(0.25f, fromResourceManager.getProgress());

    // The job page ends with the AM: an ended job leaves no tracking URL that would lead nowhere.
    driver.unregister(JobOutcome.failure("2 workers failed"));
    verify(resourceManager).unregisterApplicationMaster(FinalApplicationStatus.FAILED,
        "2 workers failed", "");
    driver.unregister(JobOutcome.success("model written"));
    verify(resourceManager).unregisterApplicationMaster(FinalApplicationStatus.SUCCEEDED,
        "model written", "");
  }

  @Test
  void aNodeRunsOnlyIfTheResourceManagerListsItAndCountsWhenItCannotSay() throws Exception {
    NodeReport a = NodeReport.newInstance(NodeId.newInstance("node-a", 8041), NodeState.RUNNING,
        "node-a:8042", "/default", Resource.newInstance(0, 0), Resource.newInstance(8192, 8), 0,
        "", 0L);
    when(cluster.getNodeReports(NodeState.RUNNING)).thenReturn(List.of(a));
    assertTrue(driver.isRunningNode("node-a"));
    assertFalse(driver.isRunningNode("node-gone"));

    when(cluster.getNodeReports(NodeState.RUNNING)).thenThrow(new IOException("RM restarting"));
    assertTrue(driver.isRunningNode("node-gone"),
        "when the RM cannot say, the pinned request is allowed to wait");
  }

  private static String id(long n) {
    return ContainerId.newContainerId(ATTEMPT, n).toString();
  }

  private static Container container(long n, String host, Priority priority) {
    return Container.newInstance(ContainerId.newContainerId(ATTEMPT, n),
        NodeId.newInstance(host, 8041), host + ":8042", Resource.newInstance(2048, 2), priority,
        null);
  }

  /** Fires a YARN callback from a thread that is not the AM's, and waits until it returned. */
  private static void fromYarnThread(Runnable callback) throws InterruptedException {
    Thread yarn = new Thread(callback, "yarn-callback");
    yarn.start();
    yarn.join(TimeUnit.SECONDS.toMillis(10));
    assertFalse(yarn.isAlive(), "the callback hands its work over, it does not run it");
  }

  private void onMain(Runnable action) throws Exception {
    mainThread.submit(action).get(10, TimeUnit.SECONDS);
  }

  private record Event(String what, String thread) {}

  /** The AM's side: each event with the thread it arrived on. */
  private static final class RecordingHandler implements ContainerEventHandler {
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    volatile boolean throwOnAllocation;
    volatile boolean throwOnError;

    Event next() throws InterruptedException {
      Event e = events.poll(10, TimeUnit.SECONDS);
      assertNotNull(e, "no event reached the AM");
      return e;
    }

    private void record(String what) {
      events.add(new Event(what, Thread.currentThread().getName()));
    }

    @Override
    public void onContainersAllocated(List<WorkerContainer> containers) {
      record("allocated " + containers.stream().map(c -> c.id() + "@" + c.host()).toList());
      if (throwOnAllocation) {
        throw new IllegalStateException("handler refused the allocation");
      }
    }

    @Override
    public void onExtraContainerAllocated(WorkerContainer c) {
      record("extra " + c.id() + "@" + c.host());
    }

    @Override
    public void onContainerStarted(String containerId) {
      record("started " + containerId);
    }

    @Override
    public void onContainerStartFailed(String containerId, Throwable cause) {
      record("start failed " + containerId + " " + cause.getMessage());
    }

    @Override
    public void onContainerCompleted(String containerId, int exitStatus, String diagnostics) {
      record("completed " + containerId + " " + exitStatus + " " + diagnostics);
    }

    @Override
    public void onNodeUnreachable(String containerId, String why) {
      record("unreachable " + containerId);
    }

    @Override
    public void onPreemptionRequested(PreemptionRequest request) {
      record("preemption " + request.containers());
    }

    @Override
    public void onError(Throwable cause) {
      record("error " + cause.getMessage());
      if (throwOnError) {
        throw new NoClassDefFoundError("org/edl/am/JobOutcome");
      }
    }
  }
}
