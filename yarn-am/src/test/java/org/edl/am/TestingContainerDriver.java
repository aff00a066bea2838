package org.edl.am;

import java.util.function.BiConsumer;
import java.util.function.Consumer;

/** A {@link ContainerDriver} whose every method is a lambda the test sets; defaults do nothing. */
final class TestingContainerDriver implements ContainerDriver {
  BiConsumer<Integer, WorkerResource> onRequest = (n, r) -> {};
  BiConsumer<WorkerContainer, WorkerLaunch> onLaunch = (c, l) -> {};
  Consumer<String> onRelease = id -> {};
  Consumer<Float> onProgress = p -> {};
  Consumer<JobOutcome> onUnregister = o -> {};

  @Override
  public void requestContainers(int count, WorkerResource resource) {
    onRequest.accept(count, resource);
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
  public void reportProgress(float progress) {
    onProgress.accept(progress);
  }

  @Override
  public void unregister(JobOutcome outcome) {
    onUnregister.accept(outcome);
  }
}
