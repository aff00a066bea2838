package org.edl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.edl.job.JobSpec;
import org.junit.jupiter.api.Test;

/** {@code edl submit --script}'s flags as the job specification they become. */
class SubmitScriptArgsTest {
  @Test
  void theScriptItsArgumentsAfterTheDoubleDashAndItsInterpreter() {
    JobSpec spec = SubmitArgs.parse("--script", "jobs/train.py", "--python", "/usr/bin/python3", "--workers", "3",
        "--", "--epochs", "3", "--lr", "0.1");
    assertEquals("jobs/train.py", spec.script().file());
    assertEquals(List.of("--epochs", "3", "--lr", "0.1"), spec.script().args());
    assertEquals("/usr/bin/python3", spec.script().python());
    assertEquals("script:train.py", spec.training().model());
    assertEquals("edl-train.py", spec.name(), "named after the script, not the default --model");
    assertEquals(3, spec.scale().workers());
    assertEquals(0.0, spec.stragglers().factor(), "straggler detection off for a script");
  }

  @Test
  void aScriptMayAskForStragglerDetection() {
    JobSpec spec = SubmitArgs.parse("--script", "jobs/train.py", "--straggler-factor", "1.5");
    assertEquals(1.5, spec.stragglers().factor());
  }

  @Test
  void withoutAScriptStragglerDetectionStaysOnByDefault() {
    JobSpec spec = SubmitArgs.parse("--workers", "2");
    assertEquals(JobSpec.DEFAULT_STRAGGLER_FACTOR, spec.stragglers().factor());
    assertEquals("edl-mlp", spec.name());
  }

  @Test
  void processesPerWorkerAreTheScriptsAndOnlyAScriptTakesThem() {
    assertEquals(2, SubmitArgs.parse("--script", "jobs/train.py", "--procs-per-worker", "2").script().procsPerWorker());
    assertEquals(0, SubmitArgs.parse("--script", "jobs/train.py").script().procsPerWorker(), "the default");
    org.edl.job.InvalidInputException e = org.junit.jupiter.api.Assertions.assertThrows(
        org.edl.job.InvalidInputException.class, () -> SubmitArgs.parse("--procs-per-worker", "2"));
    org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().startsWith("procs-per-worker=2: "), e.getMessage());
  }

  @Test
  void aTorchrunScriptItsProcessesAndWhatItDoesItself() {
    JobSpec spec = SubmitArgs.parse("--torchrun", "jobs/train.py", "--workers", "2", "--min-workers", "1",
        "--max-workers", "4", "--procs-per-worker", "2", "--", "--epochs", "3");
    assertEquals("jobs/train.py", spec.script().file());
    org.junit.jupiter.api.Assertions.assertTrue(spec.script().torchrun());
    assertEquals(List.of("--epochs", "3"), spec.script().args());
    assertEquals(2, spec.script().procsPerWorker());
    assertEquals("edl-train.py", spec.name());
    org.junit.jupiter.api.Assertions.assertFalse(spec.growth().enabled(), "an elastic torchrun job does not grow by itself");
    org.junit.jupiter.api.Assertions.assertFalse(SubmitArgs.parse("--script", "jobs/train.py").script().torchrun());
    refused("torchrun=b.py: ", "--script", "a.py", "--torchrun", "b.py");
    refused("grow=on: ", "--torchrun", "a.py", "--workers", "1", "--max-workers", "2", "--grow", "on");
    refused("mode=stop-resume: ", "--torchrun", "a.py", "--mode", "stop-resume");
    refused("resume-from=/ck: ", "--torchrun", "a.py", "--resume-from", "/ck");
    refused("data=hdfs:///d.csv: ", "--torchrun", "a.py", "--data", "hdfs:///d.csv");
  }

  private static void refused(String prefix, String... args) {
    org.edl.job.InvalidInputException e = org.junit.jupiter.api.Assertions.assertThrows(
        org.edl.job.InvalidInputException.class, () -> SubmitArgs.parse(args));
    org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().startsWith(prefix), e.getMessage());
  }
}
