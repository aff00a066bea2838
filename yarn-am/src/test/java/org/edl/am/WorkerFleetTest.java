package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class WorkerFleetTest {
  private static final WorkerResource RESOURCE = new WorkerResource(1024, 1, 2);

  private final List<Integer> requested = new ArrayList<>();
  private final Map<String, WorkerLaunch> launched = new LinkedHashMap<>();
  private final List<String> released = new ArrayList<>();
  private TestingContainerDriver driver;

  @BeforeEach
  void driver() {
    driver = new TestingContainerDriver();
    driver.onRequest = (n, r) -> {
      assertEquals(RESOURCE, r);
      requested.add(n);
    };
    driver.onLaunch = (c, l) -> launched.put(c.id(), l);
    driver.onRelease = released::add;
  }

  @Test
  void asksForTheTargetAndSucceedsWhenEveryWorkerExitsZero() {
    WorkerFleet fleet = new WorkerFleet(driver, RESOURCE, 3);
    fleet.start();
    assertEquals(List.of(3), requested);

    fleet.onContainersAllocated(List.of(c("c1", "h1"), c("c2", "h1")));
    fleet.onContainersAllocated(List.of(c("c3", "h2")));
    assertEquals(List.of("c1", "c2", "c3"), List.copyOf(launched.keySet()));
    // Two containers on one host get distinct devices; another host starts again at 0.
    assertEquals(List.of(0, 1), launched.get("c1").gpuIndices());
    assertEquals(List.of(2, 3), launched.get("c2").gpuIndices());
    assertEquals(List.of(0, 1), launched.get("c3").gpuIndices());

    fleet.onContainerStarted("c1");
    fleet.onContainerStarted("c2");
    assertEquals(WorkerFleet.Phase.STARTING, fleet.status().phase());
    fleet.onContainerStarted("c3");
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase());

    fleet.onContainerCompleted("c2", 0, "");
    fleet.onContainerCompleted("c1", 0, "");
    assertFalse(fleet.outcome().isDone());
    assertEquals(WorkerFleet.Phase.FINISHING, fleet.status().phase());
    fleet.onContainerCompleted("c3", 0, "");

    JobOutcome outcome = fleet.outcome().getNow(null);
    assertTrue(outcome.succeeded());
    assertEquals(WorkerFleet.Phase.SUCCEEDED, fleet.status().phase());
    assertEquals(List.of(3), requested, "nothing re-requested");
    assertTrue(released.isEmpty());
  }

  @Test
  void oneFailedWorkerFailsTheJobNamingTheContainerHostAndCauseAndReleasesTheOthers() {
    WorkerFleet fleet = new WorkerFleet(driver, RESOURCE, 3);
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1"), c("c2", "h2"), c("c3", "h2")));
    fleet.onContainerStarted("c1");
    fleet.onContainerStarted("c2");
    fleet.onContainerStarted("c3");

    fleet.onContainerCompleted("c2", 137, "Container killed on request. Exit code is 137");

    JobOutcome outcome = fleet.outcome().getNow(null);
    assertFalse(outcome.succeeded());
    assertTrue(outcome.diagnostics().contains("c2"), outcome.diagnostics());
    assertTrue(outcome.diagnostics().contains("h2"), outcome.diagnostics());
    assertTrue(outcome.diagnostics().contains("137"), outcome.diagnostics());
    assertTrue(outcome.diagnostics().contains("Container killed on request"), outcome.diagnostics());
    assertEquals(List.of("c1", "c3"), released);
    assertEquals(WorkerFleet.Phase.FAILED, fleet.status().phase());

    // The released workers' completions, and later ones, change nothing.
    fleet.onContainerCompleted("c1", -100, "released");
    fleet.onContainerCompleted("c3", 0, "");
    assertEquals(outcome, fleet.outcome().getNow(null));
    assertEquals(WorkerFleet.Phase.FAILED, fleet.status().phase());
  }

  @Test
  void aContainerThatCannotStartFailsTheJob() {
    WorkerFleet fleet = new WorkerFleet(driver, RESOURCE, 2);
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1"), c("c2", "h1")));
    fleet.onContainerStartFailed("c1", new java.io.IOException("node manager unreachable"));

    JobOutcome outcome = fleet.outcome().getNow(null);
    assertFalse(outcome.succeeded());
    assertTrue(outcome.diagnostics().contains("c1 on h1"), outcome.diagnostics());
    assertTrue(outcome.diagnostics().contains("node manager unreachable"), outcome.diagnostics());
    assertEquals(List.of("c1", "c2"), released);
  }

  @Test
  void allocationsBeyondTheTargetAreReleasedNotLaunched() {
    WorkerFleet fleet = new WorkerFleet(driver, RESOURCE, 2);
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1"), c("c2", "h1"), c("c3", "h2")));

    assertEquals(List.of("c1", "c2"), List.copyOf(launched.keySet()));
    assertEquals(List.of("c3"), released);
    assertEquals(List.of("c1", "c2"), fleet.status().containers());

    // Its completion is not a worker failure.
    fleet.onContainerCompleted("c3", -100, "Container released by application");
    assertFalse(fleet.outcome().isDone());
  }

  @Test
  void afterAWorkerFinishedLateAllocationsAreReleased() {
    WorkerFleet fleet = new WorkerFleet(driver, RESOURCE, 2);
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1")));
    fleet.onContainerStarted("c1");
    fleet.onContainerCompleted("c1", 0, "");
    assertTrue(fleet.outcome().getNow(null).succeeded());

    fleet.onContainersAllocated(List.of(c("c2", "h1")));
    assertEquals(List.of("c2"), released);
    assertEquals(List.of("c1"), List.copyOf(launched.keySet()));
  }

  @Test
  void aDriverErrorFailsTheJobOnce() {
    WorkerFleet fleet = new WorkerFleet(driver, RESOURCE, 1);
    fleet.start();
    fleet.onContainersAllocated(List.of(c("c1", "h1")));
    fleet.onError(new IllegalStateException("resource manager asked the AM to shut down"));
    fleet.onError(new IllegalStateException("second"));

    JobOutcome outcome = fleet.outcome().getNow(null);
    assertFalse(outcome.succeeded());
    assertTrue(outcome.diagnostics().contains("shut down"), outcome.diagnostics());
    assertEquals(List.of("c1"), released);
  }

  private static WorkerContainer c(String id, String host) {
    return new WorkerContainer(id, host);
  }
}
