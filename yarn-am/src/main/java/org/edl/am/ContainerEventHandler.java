package org.edl.am;

import java.util.List;

/**
 * What YARN tells the AM about its containers, one event per method. The driver calls these on
 * the AM's main thread only, so the handler keeps its state without locks.
 */
public interface ContainerEventHandler {
  void onContainersAllocated(List<WorkerContainer> containers);

  /** A container asked for by {@link ContainerDriver#requestExtraContainer} was granted. */
  void onExtraContainerAllocated(WorkerContainer container);

  void onContainerStarted(String containerId);

  /** The node manager could not start the container. */
  void onContainerStartFailed(String containerId, Throwable cause);

  /** The container ended; {@code exitStatus} and {@code diagnostics} as YARN reports them. */
  void onContainerCompleted(String containerId, int exitStatus, String diagnostics);

  /**
   * The node manager of {@code containerId}'s node did not answer {@link ContainerDriver#probeNode}:
   * the node is presumed lost with the container, which YARN reports only once the node expires.
   */
  void onNodeUnreachable(String containerId, String why);

  /**
   * The resource manager will take containers back ({@code PreemptionMessage}); only messages
   * that ask for something come here, again on every heartbeat while they stand.
   */
  default void onPreemptionRequested(PreemptionRequest request) {}

  /** Anything the driver cannot carry on from: the AM gives up. */
  void onError(Throwable cause);
}
