package org.edl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.edl.job.InvalidInputException;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobProgress;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.edl.thrift.ProfilePoint;
import org.edl.thrift.ProfileResult;
import org.edl.thrift.ScaleMode;
import org.junit.jupiter.api.Test;

/** The text the job-control commands print, from answers built by hand. */
class JobStatusTextTest {
  @Test
  void runningJobWithProgress() {
    JobStatus s = new JobStatus("application_1_0007", JobState.RUNNING, 3,
        List.of("container_1_0007_01_000002", "container_1_0007_01_000003"));
    s.setMinWorkers(2);
    s.setMaxWorkers(4);
    s.setBackend("cpu");
    JobProgress p = new JobProgress(120, 1000, 0.81234, 2345.6, 2);
    p.setEpoch(3);
    s.setProgress(p);
    s.setPlacements(List.of(new org.edl.thrift.WorkerPlacement("container_1_0007_01_000002", "gpu1", List.of(2)),
        new org.edl.thrift.WorkerPlacement("container_1_0007_01_000003", "gpu2", List.of(0, 1))));
    assertEquals("""
        application_1_0007  RUNNING
        Workers:     target 3 (min 2, max 4), 2 containers
        Backend:     cpu
        Progress:    step 120/1000  loss 0.8123  2346 samples/s  2 workers  epoch 3
        Containers:  container_1_0007_01_000002  on gpu1, GPU 2
                     container_1_0007_01_000003  on gpu2, GPUs 0, 1
        """, JobStatusText.status(s));
  }

  @Test
  void theLeaderSaysItsEpochPhaseRingAndWhoItDeclaredFailed() {
    JobStatus s = new JobStatus("application_1_0007", JobState.RUNNING, 2, List.of("c1", "c3"));
    JobProgress p = new JobProgress(40, 100, 0.5, 100, 2);
    p.setLeaderEpoch(2);
    p.setPhase("RUNNING");
    p.setTopologyVersion(4);
    p.setMembers(List.of("c1", "c3"));
    p.setFailed(List.of("c2"));
    s.setProgress(p);
    assertEquals("""
        application_1_0007  RUNNING
        Workers:     target 2, 2 containers
        Progress:    step 40/100  loss 0.5000  100 samples/s  2 workers
        Leader:      epoch 2, RUNNING, ring v4: c1, c3; declared failed: c2
        Containers:  c1
                     c3
        """, JobStatusText.status(s));
  }

  @Test
  void theLeadersEventsFollowTheProgress() {
    JobStatus s = new JobStatus("application_1_0007", JobState.SCALING, 3, List.of("container_1_0007_01_000002"));
    JobProgress p = new JobProgress(40, 1000, 0.5, 100, 3);
    p.setEvents(List.of("step 19: removing straggler c3: 13.4 ms per batch against the median 10.0 ms"
        + " (1.34x) for 10 consecutive batches; it leaves after step 21", "step 60: removing straggler c4"));
    s.setProgress(p);
    assertEquals("""
        application_1_0007  SCALING
        Workers:     target 3, 1 container
        Progress:    step 40/1000  loss 0.5000  100 samples/s  3 workers
        Events:      step 19: removing straggler c3: 13.4 ms per batch against the median 10.0 ms (1.34x) for 10 consecutive batches; it leaves after step 21
                     step 60: removing straggler c4
        Containers:  container_1_0007_01_000002
        """, JobStatusText.status(s));
  }

  @Test
  void startingJobWithoutProgressOrContainers() {
    JobStatus s = new JobStatus("application_1_0008", JobState.STARTING, 2, List.of());
    s.setBackend("emulated");
    s.setDiagnostics("waiting for 2 containers\n");
    assertEquals("""
        application_1_0008  STARTING
        Workers:     target 2, 0 containers
        Backend:     emulated (emulation: batch times from a measured profile)
        Progress:    none reported yet
        Containers:  none
        Diagnostics: waiting for 2 containers
        """, JobStatusText.status(s));
  }

  @Test
  void nanLossPrintsADash() {
    assertEquals("step 0/10  loss -  0 samples/s  1 workers",
        JobStatusText.progress(new JobProgress(0, 10, Double.NaN, 0, 1)));
  }

  @Test
  void profileTableAndWhereItIsStored() {
    ProfileResult r = new ProfileResult(List.of(new ProfilePoint(3, 3000.25, 20),
        new ProfilePoint(2, 2100, 20)));
    r.setTablePath("hdfs://nn/user/alice/edl/application_1_0007/profile.csv");
    r.setSeconds(12.34);
    assertEquals("""
        workers   samples/s  batches
              3      3000.3       20
              2      2100.0       20
        Profiled in 12.3 s
        Table: hdfs://nn/user/alice/edl/application_1_0007/profile.csv
        Chart: not stored
        """, JobStatusText.profile(r));
  }

  @Test
  void refusalNamesFieldAndValue() {
    EdlError e = new EdlError("scale-in below the job's minimum of 2 workers");
    e.setField("count");
    e.setValue("3");
    assertEquals("refused: scale-in below the job's minimum of 2 workers (count=3)", JobStatusText.refusal(e));
  }

  @Test
  void refusalDoesNotRepeatAFieldTheMessageNames() {
    EdlError e = new EdlError("operation=scale-out: not available yet");
    e.setField("operation");
    e.setValue("scale-out");
    assertEquals("refused: operation=scale-out: not available yet", JobStatusText.refusal(e));
  }

  @Test
  void modes() {
    assertEquals(ScaleMode.EDL, JobStatusText.modeOf("edl"));
    assertEquals(ScaleMode.STOP_RESUME, JobStatusText.modeOf("Stop-Resume"));
    InvalidInputException e = assertThrows(InvalidInputException.class, () -> JobStatusText.modeOf("fast"));
    assertEquals("--mode=fast: edl or stop-resume", e.getMessage());
  }
}
