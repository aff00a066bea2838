package org.edl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.edl.job.JobSpec;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** How {@code edl submit}'s straggler flags become the job specification (no cluster needed). */
class SubmitStragglerFlagsTest {
  private static JobSpec parse(String... args) {
    SubmitCommand submit = new SubmitCommand();
    new CommandLine(submit).parseArgs(args);
    return submit.toSpec().validate();
  }

  @Test
  void detectionIsOnByDefaultWithTheIssuesNumbers() {
    JobSpec spec = parse();
    assertEquals(JobSpec.DEFAULT_STRAGGLER_FACTOR, spec.stragglerFactor());
    assertEquals(JobSpec.DEFAULT_STRAGGLER_BATCHES, spec.stragglerBatches());
    assertFalse(spec.replaceStragglers());
  }

  @Test
  void numbersOffAndReplacement() {
    JobSpec spec = parse("--straggler-factor", "1.5", "--straggler-batches", "4", "--replace-stragglers");
    assertEquals(1.5, spec.stragglerFactor());
    assertEquals(4, spec.stragglerBatches());
    assertTrue(spec.replaceStragglers());
    assertFalse(parse("--straggler-factor", "off").detectsStragglers());
    assertFalse(parse("--straggler-batches", "OFF").detectsStragglers());
    assertFalse(parse("--straggler-batches", "0").detectsStragglers());
  }
}
