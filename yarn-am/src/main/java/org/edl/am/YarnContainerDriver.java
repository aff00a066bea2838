package org.edl.am;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.Executor;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.protocolrecords.RegisterApplicationMasterResponse;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.UpdatedContainer;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.async.AMRMClientAsync;
import org.apache.hadoop.yarn.client.api.async.NMClientAsync;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.security.client.RMDelegationTokenIdentifier;
import org.edl.job.WorkerEnv;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ContainerDriver} over {@code AMRMClientAsync} and {@code NMClientAsync}. Every YARN
 * callback is moved onto the one main-thread executor, and any {@link Throwable} a callback
 * throws there becomes one {@link ContainerEventHandler#onError}: the AM's state is owned by
 * that thread alone and needs no locks.
 */
public final class YarnContainerDriver implements ContainerDriver {
  private static final Logger LOG = LoggerFactory.getLogger(YarnContainerDriver.class);
  /** Long beside a busy node's accept, short beside the node expiry it saves waiting for. */
  private static final Duration NODE_PROBE_TIMEOUT = Duration.ofSeconds(5);

  private final Configuration conf;
  private final YarnClientFactory clients;
  private final Executor mainThread;
  private LaunchContextFactory launchContexts;
  private final int heartbeatMs;
  private final Map<String, Container> allocated = new HashMap<>();
  /** Hosts on the application's blacklist, with when each may be used again (nanoTime). */
  private final Map<String, Long> avoided = new HashMap<>();
  private final NodeProbe nodes = new NodeProbe(NODE_PROBE_TIMEOUT);
  private volatile float progress;
  private java.util.function.IntConsumer halt = status -> Runtime.getRuntime().halt(status);
  private ContainerEventHandler handler;
  private AMRMClientAsync<ContainerRequest> resourceManager;
  private ContainerRequests requests;
  private NMClientAsync nodeManagers;
  private YarnClient cluster;
  private final NodeGpuCounts gpusPerNode = new NodeGpuCounts(this::runningNodeReports);
  private String trackingUrl = "";

  /** Builds the launch context of one worker; the job-wide parts are fixed when it is made. */
  @FunctionalInterface
  public interface LaunchContextFactory {
    org.apache.hadoop.yarn.api.records.ContainerLaunchContext create(WorkerContainer container,
        WorkerLaunch launch);
  }

  public YarnContainerDriver(Configuration conf, YarnClientFactory clients, Executor mainThread,
      int heartbeatMs) {
    this.conf = conf;
    this.clients = clients;
    this.mainThread = mainThread;
    this.heartbeatMs = heartbeatMs;
  }

  /**
   * Starts the clients and registers with the resource manager; {@code host:rpcPort} is the
   * job-control endpoint clients find in the application report (and the workers' launch
   * contexts carry, which is why those come in here and not at construction).
   */
  public RegisterApplicationMasterResponse start(ContainerEventHandler eventHandler,
      LaunchContextFactory workerLaunchContexts, String host, int rpcPort, String trackingUrl)
      throws Exception {
    this.handler = Objects.requireNonNull(eventHandler, "eventHandler");
    this.launchContexts = Objects.requireNonNull(workerLaunchContexts, "workerLaunchContexts");
    this.trackingUrl = trackingUrl == null ? "" : trackingUrl;
    nodeManagers = clients.nodeManagerClient(new NodeManagerCallbacks());
    nodeManagers.init(conf);
    nodeManagers.start();
    resourceManager = clients.resourceManagerClient(heartbeatMs, new ResourceManagerCallbacks());
    resourceManager.init(conf);
    resourceManager.start();
    requests = new ContainerRequests(resourceManager);
    cluster = clients.clusterClient();
    cluster.init(conf);
    cluster.start();
    return resourceManager.registerApplicationMaster(host, rpcPort, this.trackingUrl);
  }

  @Override
  public void requestContainers(int count, WorkerResource resource) {
    requests.ask(count, resource);
  }

  @Override
  public void requestContainersOn(int count, WorkerResource resource, String host) {
    requests.askOn(count, resource, host);
  }

  @Override
  public void requestExtraContainer(WorkerResource resource) {
    requests.askExtra(resource);
  }

  @Override
  public void withdrawRequests() {
    requests.withdrawPlain();
  }

  @Override
  public void withdrawExtraRequest() {
    requests.withdrawExtras();
  }

  /**
   * Asks the resource manager for its running nodes: one synchronous call on the main thread,
   * made only when an operator asks for a migration. When the resource manager cannot say, the
   * host is given the benefit of the doubt (the pinned request then simply waits).
   */
  @Override
  public boolean isRunningNode(String host) {
    try {
      return cluster.getNodeReports(NodeState.RUNNING).stream()
          .anyMatch(n -> n.getNodeId().getHost().equals(host));
    } catch (Exception e) {
      LOG.warn("Could not list the cluster's nodes to check {}: {}", host, e.toString());
      return true;
    }
  }

  /**
   * The running nodes, from the client protocol: on a secure cluster only with an RM delegation
   * token among the AM's credentials (the AM has no Kerberos login of its own); without one the
   * call would only wait out the RPC client's retries, so it is not made.
   */
  private List<NodeReport> runningNodeReports() throws Exception {
    if (UserGroupInformation.isSecurityEnabled() && UserGroupInformation.getCurrentUser().getCredentials()
        .getAllTokens().stream().noneMatch(t -> RMDelegationTokenIdentifier.KIND_NAME.equals(t.getKind()))) {
      throw new java.io.IOException("a secure cluster, and no ResourceManager delegation token among the AM's"
          + " credentials");
    }
    return cluster.getNodeReports(NodeState.RUNNING);
  }

  @Override
  public void launch(WorkerContainer container, WorkerLaunch launch) {
    Container yarnContainer = allocated.get(container.id());
    if (yarnContainer == null) {
      throw new IllegalStateException("not an allocated container: " + container.id());
    }
    OptionalLong nodeGpus = gpusPerNode.of(yarnContainer.getNodeId());
    WorkerLaunch withNode = nodeGpus.isPresent()
        ? launch.withEnv(WorkerEnv.NODE_GPUS, Long.toString(nodeGpus.getAsLong())) : launch;
    nodeManagers.startContainerAsync(yarnContainer, launchContexts.create(container, withNode));
  }

  @Override
  public void release(String containerId) {
    allocated.remove(containerId);
    resourceManager.releaseAssignedContainer(ContainerId.fromString(containerId));
  }

  @Override
  public void probeNode(String containerId) {
    Container c = allocated.get(containerId);
    if (c == null) {
      return;
    }
    NodeId node = c.getNodeId();
    nodes.probe(node.getHost(), node.getPort(), why -> onMainThread("node probe", () -> handler.onNodeUnreachable(
        containerId, "its node manager at " + node + " does not answer (" + why + ")")));
  }

  /**
   * Blacklists {@code host} until the resource manager could have expired its node manager
   * ({@code yarn.nm.liveness-monitor.expiry-interval-ms}): by then it schedules nothing there if
   * the node is lost, and the node is back if it is not.
   */
  @Override
  public void avoidHost(String host) {
    Duration period = Duration.ofMillis(conf.getLong(YarnConfiguration.RM_NM_EXPIRY_INTERVAL_MS,
        YarnConfiguration.DEFAULT_RM_NM_EXPIRY_INTERVAL_MS));
    if (avoided.put(host, System.nanoTime() + period.toNanos()) == null) {
      resourceManager.updateBlacklist(new ArrayList<>(List.of(host)), new ArrayList<>());
      LOG.info("Keeping new containers off {} for {} s", host, period.toSeconds());
    }
    nodes.after(period, () -> onMainThread("end of avoiding " + host, () -> {
      Long until = avoided.get(host);
      if (until != null && System.nanoTime() - until >= 0) {
        avoided.remove(host);
        resourceManager.updateBlacklist(new ArrayList<>(), new ArrayList<>(List.of(host)));
        LOG.info("Containers may go to {} again", host);
      }
    }));
  }

  @Override
  public void reportProgress(float fraction) {
    progress = Math.max(0f, Math.min(1f, fraction));
  }

  @Override
  public void unregister(JobOutcome outcome) {
    FinalApplicationStatus status =
        outcome.succeeded() ? FinalApplicationStatus.SUCCEEDED : FinalApplicationStatus.FAILED;
    try {
      // The job page ends with the AM: a finished job's link would lead nowhere.
      resourceManager.unregisterApplicationMaster(status, outcome.diagnostics(), "");
    } catch (Exception e) {
      throw new IllegalStateException("could not unregister from the resource manager", e);
    }
  }

  /** Stops both clients; call after {@link #unregister}. */
  public void stop() {
    if (cluster != null) {
      cluster.stop();
    }
    if (resourceManager != null) {
      resourceManager.stop();
    }
    if (nodeManagers != null) {
      nodeManagers.stop();
    }
    nodes.close();
  }

  private void onMainThread(String what, Runnable action) {
    mainThread.execute(() -> {
      try {
        action.run();
      } catch (Throwable t) {
        LOG.error("Handling {} failed", what, t);
        try {
          handler.onError(t);
        } catch (Throwable again) {
          // The job's state is unknown and nothing would end this attempt: its process would live
          // on, holding its containers and answering no one. Exiting makes YARN start another
          // attempt (where the application allows one), which takes the job over from ZooKeeper.
          LOG.error("Failing the job after that failed too; ending this ApplicationMaster attempt with exit"
              + " status {} so that YARN can start another", HALT_STATUS, again);
          halt.accept(HALT_STATUS);
        }
      }
    });
  }

  /** The exit status of an attempt that could not fail its job cleanly. */
  static final int HALT_STATUS = 70;

  /** How this attempt ends when it cannot fail the job cleanly (tests record it instead). */
  YarnContainerDriver haltingWith(java.util.function.IntConsumer halt) {
    this.halt = halt;
    return this;
  }

  private void allocated(List<Container> containers) {
    List<WorkerContainer> workers = new ArrayList<>();
    List<WorkerContainer> extra = new ArrayList<>();
    for (Container c : containers) {
      requests.answered(c);
      allocated.put(c.getId().toString(), c);
      WorkerContainer w = new WorkerContainer(c.getId().toString(), c.getNodeId().getHost());
      (ContainerRequests.isExtra(c) ? extra : workers).add(w);
    }
    if (!workers.isEmpty()) {
      handler.onContainersAllocated(workers);
    }
    extra.forEach(handler::onExtraContainerAllocated);
  }

  private void completed(List<ContainerStatus> statuses) {
    for (ContainerStatus s : statuses) {
      String id = s.getContainerId().toString();
      allocated.remove(id);
      handler.onContainerCompleted(id, s.getExitStatus(), s.getDiagnostics());
    }
  }

  private final class ResourceManagerCallbacks extends AMRMClientAsync.AbstractCallbackHandler {
    @Override
    public void onContainersAllocated(List<Container> containers) {
      onMainThread("allocation", () -> allocated(containers));
    }

    @Override
    public void onContainersCompleted(List<ContainerStatus> statuses) {
      onMainThread("completion", () -> completed(statuses));
    }

    @Override
    public void onContainersUpdated(List<UpdatedContainer> containers) {
      // Resizing is not used.
    }

    @Override
    public void onPreemptionMessageReceived(PreemptionMessage message) {
      PreemptionRequest request = PreemptionMessages.requestOf(message);
      // FairScheduler sends an empty strict contract with every heartbeat.
      if (!request.isEmpty()) {
        onMainThread("preemption message", () -> handler.onPreemptionRequested(request));
      }
    }

    @Override
    public void onShutdownRequest() {
      onMainThread("shutdown request", () -> handler.onError(
          new IllegalStateException("the ResourceManager asked the ApplicationMaster to shut down")));
    }

    @Override
    public void onNodesUpdated(List<NodeReport> updated) {
      // Lost nodes show up as completed containers.
    }

    @Override
    public float getProgress() {
      return progress;
    }

    @Override
    public void onError(Throwable e) {
      onMainThread("resource manager error", () -> handler.onError(e));
    }
  }

  private final class NodeManagerCallbacks extends NMClientAsync.AbstractCallbackHandler {
    @Override
    public void onContainerStarted(ContainerId id, Map<String, ByteBuffer> serviceData) {
      onMainThread("container start", () -> handler.onContainerStarted(id.toString()));
    }

    @Override
    public void onStartContainerError(ContainerId id, Throwable t) {
      onMainThread("container start error", () -> handler.onContainerStartFailed(id.toString(), t));
    }

    @Override
    public void onContainerStatusReceived(ContainerId id, ContainerStatus status) {}

    @Override
    public void onContainerStopped(ContainerId id) {}

    @Override
    public void onContainerResourceIncreased(ContainerId id, Resource resource) {}

    @Override
    public void onContainerResourceUpdated(ContainerId id, Resource resource) {}

    @Override
    public void onGetContainerStatusError(ContainerId id, Throwable t) {}

    @Override
    public void onIncreaseContainerResourceError(ContainerId id, Throwable t) {}

    @Override
    public void onUpdateContainerResourceError(ContainerId id, Throwable t) {}

    @Override
    public void onStopContainerError(ContainerId id, Throwable t) {
      LOG.warn("Could not stop {}", id, t);
    }
  }
}
