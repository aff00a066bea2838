package org.edl.am;

import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Predicate;

/** A {@link ContainerDriver} whose every method is a lambda the test sets; defaults do nothing. */
final class TestingContainerDriver implements ContainerDriver {
  BiConsumer<Integer, WorkerResource> onRequest = (n, r) -> {};
  TriConsumer onRequestOn = (n, r, host) -> {};
  Consumer<WorkerResource> onRequestExtra = r -> {};
  Runnable onWithdraw = () -> {};
  Runnable onWithdrawExtra = () -> {};
  Predicate<String> runningNode = host -> true;
  BiConsumer<WorkerContainer, WorkerLaunch> onLaunch = (c, l) -> {};
  Consumer<String> onRelease = id -> {};
  Consumer<Float> onProgress = p -> {};
  Consumer<JobOutcome> onUnregister = o -> {};
  Consumer<String> onProbeNode = id -> {};
  Consumer<String> onAvoidHost = host -> {};

  @Override
  public void requestContainers(int count, WorkerResource resource) {
    onRequest.accept(count, resource);
  }

  @Override
  public void requestContainersOn(int count, WorkerResource resource, String host) {
    onRequestOn.accept(count, resource, host);
  }

  @Override
  public void requestExtraContainer(WorkerResource resource) {
    onRequestExtra.accept(resource);
  }

  @Override
  public void withdrawRequests() {
    onWithdraw.run();
  }

  @Override
  public void withdrawExtraRequest() {
    onWithdrawExtra.run();
  }

  @Override
  public boolean isRunningNode(String host) {
    return runningNode.test(host);
  }

  @Override
  public void launch(WorkerContainer container, WorkerLaunch launch) {
    onLaunch.accept(container, launch);
  }

  @Override
  public void release(String containerId) {
    onRelease.accept(containerId);
  }

  @Override
  public void probeNode(String containerId) {
    onProbeNode.accept(containerId);
  }

  @Override
  public void avoidHost(String host) {
    onAvoidHost.accept(host);
  }

  @Override
  public void reportProgress(float progress) {
    onProgress.accept(progress);
  }

  @Override
  public void unregister(JobOutcome outcome) {
    onUnregister.accept(outcome);
  }

  @FunctionalInterface
  interface TriConsumer {
    void accept(int count, WorkerResource resource, String host);
  }
}
