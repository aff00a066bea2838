package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.edl.job.ScaleMode;
import org.junit.jupiter.api.Test;

/**
 * The fleet of a {@code --torchrun} job: its scale-in gives the leaver's container back (torch's
 * agents have no graceful leave) and counts it as left, never as a failure; a migration is
 * refused with nothing changed.
 */
class TorchrunFleetTest {
  private static final WorkerResource RESOURCE = new WorkerResource(1024, 1, 1);
  private final List<String> released = new ArrayList<>();
  private final List<Integer> requested = new ArrayList<>();

  private WorkerFleet running(int workers) {
    TestingContainerDriver driver = new TestingContainerDriver();
    driver.onRelease = released::add;
    driver.onRequest = (n, r) -> requested.add(n);
    ReleasingRemoval givingBack = new ReleasingRemoval(Runnable::run);
    // No failure allowed: a scale-in counted as one would fail the job.
    WorkerFleet fleet = new WorkerFleet(driver, Optional::empty, givingBack, RESOURCE, workers, 1, workers);
    givingBack.givingBackThrough(fleet::leaverGivenBack);
    fleet.start();
    List<WorkerContainer> cs = new ArrayList<>();
    for (int i = 1; i <= workers; i++) {
      cs.add(new WorkerContainer("c" + i, "h" + i));
    }
    fleet.onContainersAllocated(cs);
    cs.forEach(c -> fleet.onContainerStarted(c.id()));
    fleet.onProgressReport(workers); // the first rendezvous round
    requested.clear();
    return fleet;
  }

  @Test
  void aScaleInGivesTheLeaverBackAndCountsItAsLeftNotFailed() throws Exception {
    WorkerFleet fleet = running(3);
    fleet.scaleIn(1, List.of(), ScaleMode.EDL);
    assertEquals(List.of("c3"), released, "given back at once");
    assertEquals(List.of("c1", "c2"), fleet.status().containers());
    assertTrue(fleet.status().scaling(), "until a round of two completes");

    // YARN's own report of the container it took back changes nothing.
    fleet.onContainerCompleted("c3", ContainerExitStatus.ABORTED, "Container released by application");
    assertFalse(fleet.outcome().isDone(), fleet.status().diagnostics());
    fleet.onProgressReport(2);
    assertFalse(fleet.status().scaling());
    assertEquals(WorkerFleet.Phase.RUNNING, fleet.status().phase());
    assertTrue(requested.isEmpty(), "nothing replaced");

    fleet.onContainerCompleted("c1", 0, "");
    fleet.onContainerCompleted("c2", 0, "");
    assertTrue(fleet.outcome().getNow(null).succeeded(), fleet.status().diagnostics());
  }

  @Test
  void aMigrationIsRefusedWithNothingChanged() throws Exception {
    WorkerFleet fleet = running(2);
    fleet.migrate("h1", "h9");
    assertFalse(fleet.status().scaling(), fleet.status().diagnostics());
    assertEquals(List.of("c1", "c2"), fleet.status().containers());
    assertTrue(fleet.status().diagnostics().contains("scale out"), fleet.status().diagnostics());
    assertTrue(released.isEmpty() && requested.isEmpty());
    FleetRefusal below = assertThrows(FleetRefusal.class, () -> fleet.scaleIn(2, List.of(), ScaleMode.EDL));
    assertEquals("count", below.field());
  }

  @Test
  void aLaterAttemptThatFindsNoWorkerStartsTheJobAgainInsteadOfSucceeding() {
    TestingContainerDriver driver = new TestingContainerDriver();
    driver.onRequest = (n, r) -> requested.add(n);
    WorkerFleet fleet = new WorkerFleet(driver, OutputCheck.SCRIPTS_OWN, new ReleasingRemoval(Runnable::run),
        RESOURCE, 2, 1, 3);
    // The previous attempt's agents died with its rendezvous store; its journal still says 2.
    fleet.adopt(java.util.Map.of(), Optional.of(new FleetIntent(2, 0, null, List.of(), 0, 2)));
    assertFalse(fleet.outcome().isDone(), "nothing shows the script had finished");
    assertEquals(List.of(2), requested);
  }

  @Test
  void aFailedNodeReplacedWithinTheSameSizeLandsOnARoundThatNamesItsMembers() {
    WorkerFleet fleet = new WorkerFleet(new TestingContainerDriver(), OutputCheck.SCRIPTS_OWN,
        FleetSettings.of(RESOURCE, 2, 1, 2).removingBy(new ReleasingRemoval(Runnable::run)).toleratingWorkerFailures(1)
            .build());
    fleet.start();
    fleet.onContainersAllocated(List.of(new WorkerContainer("c1", "h1"), new WorkerContainer("c2", "h2")));
    fleet.onContainerStarted("c1");
    fleet.onContainerStarted("c2");
    fleet.onProgressReport(new LeaderReport(2, Optional.of(List.of("c1", "c2")), 0));
    fleet.onContainerCompleted("c2", 137, "killed");
    fleet.onContainersAllocated(List.of(new WorkerContainer("c3", "h2")));
    fleet.onContainerStarted("c3");
    assertTrue(fleet.status().scaling(), "a replacement under way");
    // The survivor and the replacement meet in one round of two: the size alone never showed a loss.
    fleet.onProgressReport(new LeaderReport(2, Optional.of(List.of("c1", "c3")), 0));
    assertFalse(fleet.status().scaling(), fleet.status().diagnostics());
  }
}
