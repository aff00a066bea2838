package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Predicate;
import org.edl.testing.Await;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobProgress;
import org.edl.thrift.JobStatus;

/**
 * A running job as the scheduler changes it, polled through its job-control endpoint: its step
 * never goes back (a pause resumes from the step it stopped at), each report's samples are its
 * steps times the global batch (no sample counted twice or skipped across the changes), and no
 * worker fails. Keeps every distinct diagnostics line and ring size seen, in order.
 */
final class JobWatch {
  private final String job;
  private final JobControl.Client control;
  private final int globalBatch;
  final Set<String> events = new LinkedHashSet<>();
  final Set<Integer> sizes = new LinkedHashSet<>();
  long lastStep;

  JobWatch(String job, JobControl.Client control, int globalBatch) {
    this.job = job;
    this.control = control;
    this.globalBatch = globalBatch;
  }

  /** Polls until a status with progress passes {@code done}. */
  JobStatus until(String what, Predicate<JobStatus> done) {
    return Await.until(what, this::poll, s -> s.isSetProgress() && done.test(s), Duration.ofMinutes(6));
  }

  JobStatus poll() throws Exception {
    JobStatus s = control.status();
    if (s.isSetDiagnostics()) {
      events.add(s.getDiagnostics());
      assertFalse(s.getDiagnostics().contains("failed") || s.getDiagnostics().contains("worker failures"),
          "a worker failed in " + job + ": " + s.getDiagnostics());
    }
    if (!s.isSetProgress()) {
      return s;
    }
    JobProgress p = s.getProgress();
    assertTrue(p.getStep() >= lastStep, job + "'s step went back from " + lastStep + " to " + p.getStep() + ": " + s);
    lastStep = p.getStep();
    sizes.add(p.getWorkers());
    if (p.isSetSamplesSeen()) {
      assertEquals(p.getStep() * globalBatch, p.getSamplesSeen(), "samples at step " + p.getStep() + ": " + s);
    }
    return s;
  }
}
