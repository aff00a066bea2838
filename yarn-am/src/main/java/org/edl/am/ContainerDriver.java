package org.edl.am;

/**
 * Mechanism towards the resource manager and node managers: request, launch, release,
 * unregister. It decides nothing; {@link WorkerFleet} tells it what to do, and it answers
 * through {@link ContainerEventHandler}. Every method is called on the AM's main thread.
 */
public interface ContainerDriver {
  /** Asks for {@code count} more containers of {@code resource}; answers come as allocations. */
  void requestContainers(int count, WorkerResource resource);

  /**
   * Asks for {@code count} more containers of {@code resource} on {@code host} only (no relaxed
   * locality): a migration needs its newcomers exactly there.
   */
  void requestContainersOn(int count, WorkerResource resource, String host);

  /**
   * Asks for one container beyond the job's own, at a lower priority than theirs: an elastic
   * extra. It arrives through {@link ContainerEventHandler#onExtraContainerAllocated}.
   */
  void requestExtraContainer(WorkerResource resource);

  /** Withdraws the plain requests not yet granted: nothing more arrives for them. */
  void withdrawRequests();

  /** Withdraws the extra request not yet granted, if any. */
  void withdrawExtraRequest();

  /** Whether {@code host} is a running node of the cluster, as far as the resource manager says. */
  boolean isRunningNode(String host);

  /** Starts the worker process in an allocated container. */
  void launch(WorkerContainer container, WorkerLaunch launch);

  /** Gives an allocated or running container back; YARN reports its completion afterwards. */
  void release(String containerId);

  /**
   * Asks whether the node manager of {@code containerId}'s node still answers (a connection to its
   * address, off the main thread); when it does not, {@link ContainerEventHandler#onNodeUnreachable}
   * follows. A node that answers says nothing: its own report of the container will come.
   */
  void probeNode(String containerId);

  /**
   * Keeps new containers off {@code host} for a while (the application's blacklist), so that a
   * node the resource manager still counts as running, but that is gone, is not given a
   * replacement that could never start.
   */
  void avoidHost(String host);

  /** Training progress in [0, 1], sent to the resource manager with the next heartbeat. */
  void reportProgress(float progress);

  /** Tells the resource manager the application is done. */
  void unregister(JobOutcome outcome);
}
