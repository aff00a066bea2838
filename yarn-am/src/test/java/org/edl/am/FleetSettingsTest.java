package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.edl.job.WorkerEnv;
import org.junit.jupiter.api.Test;

/** A fleet's settings are checked once, before any fleet exists, and what they leave out is off. */
class FleetSettingsTest {
  private static final WorkerResource RESOURCE = new WorkerResource(512, 1, 1);

  @Test
  void boundsThatCannotHoldTheTargetAreRefusedNamingAllThree() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> FleetSettings.of(RESOURCE, 2, 3, 4).build());
    assertEquals("need 1 <= min <= target <= max: min 3, target 2, max 4", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> FleetSettings.of(RESOURCE, 3, 1, 2).build());
    assertThrows(IllegalArgumentException.class, () -> FleetSettings.of(RESOURCE, 0, 0, 0).build());
    assertThrows(IllegalArgumentException.class,
        () -> FleetSettings.of(RESOURCE, 1, 1, 1).toleratingWorkerFailures(-1).build());
  }

  @Test
  void leftOutTheFleetRemovesNoWorkerSurvivesNoFailureAndStartsFresh() {
    FleetSettings plain = FleetSettings.of(RESOURCE, 2, 1, 3).startingFrom(" ").build();
    assertEquals(WorkerRemoval.UNSUPPORTED, plain.removal());
    assertEquals(JobStopper.UNSUPPORTED, plain.stopper());
    assertEquals(0, plain.allowedFailures());
    assertNull(plain.growth());
    assertNull(plain.resumeFrom(), "a blank checkpoint is none");

    TestingContainerDriver driver = new TestingContainerDriver();
    List<WorkerLaunch> launched = new java.util.ArrayList<>();
    driver.onLaunch = (c, l) -> launched.add(l);
    WorkerFleet fleet = new WorkerFleet(driver, java.util.Optional::empty, plain);
    fleet.start();
    fleet.onContainersAllocated(List.of(new WorkerContainer("c1", "h1"), new WorkerContainer("c2", "h1")));
    assertTrue(launched.stream().noneMatch(l -> l.env().containsKey(WorkerEnv.RESTORE_FROM)));
  }
}
