package org.edl.cli;

import static org.edl.cli.SubmitArgs.parse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.edl.job.JobSpec;
import org.junit.jupiter.api.Test;

/** How {@code edl submit}'s straggler flags become the job specification (no cluster needed). */
class SubmitStragglerFlagsTest {
  @Test
  void detectionIsOnByDefaultWithTheIssuesNumbers() {
    JobSpec spec = parse();
    assertEquals(JobSpec.DEFAULT_STRAGGLER_FACTOR, spec.stragglers().factor());
    assertEquals(JobSpec.DEFAULT_STRAGGLER_BATCHES, spec.stragglers().batches());
    assertFalse(spec.stragglers().replace());
  }

  @Test
  void numbersOffAndReplacement() {
    JobSpec spec = parse("--straggler-factor", "1.5", "--straggler-batches", "4", "--replace-stragglers");
    assertEquals(1.5, spec.stragglers().factor());
    assertEquals(4, spec.stragglers().batches());
    assertTrue(spec.stragglers().replace());
    assertFalse(parse("--straggler-factor", "off").detectsStragglers());
    assertFalse(parse("--straggler-batches", "OFF").detectsStragglers());
    assertFalse(parse("--straggler-batches", "0").detectsStragglers());
  }
}
