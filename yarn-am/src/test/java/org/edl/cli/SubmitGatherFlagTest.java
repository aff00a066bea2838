package org.edl.cli;

import static org.edl.cli.SubmitArgs.parse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.edl.job.InvalidInputException;
import org.edl.job.JobSpec;
import org.edl.job.Scale;
import org.junit.jupiter.api.Test;

/** How {@code edl submit --gather-ms} becomes the job specification (no cluster needed). */
class SubmitGatherFlagTest {
  @Test
  void anElasticJobStartsAtItsMinimumAfterFiveSecondsByDefault() {
    JobSpec spec = parse("--workers", "4", "--min-workers", "2", "--max-workers", "8");
    assertEquals(Scale.DEFAULT_GATHER_MS, spec.scale().gatherMs());
    assertTrue(spec.scale().startsAtMinimum());
    assertFalse(parse("--workers", "4").scale().startsAtMinimum(), "min = workers: nothing to start early");
  }

  @Test
  void aNumberOrOffAndNothingElse() {
    assertEquals(0, parse("--workers", "4", "--min-workers", "2", "--gather-ms", "0").scale().gatherMs());
    assertFalse(parse("--workers", "4", "--min-workers", "2", "--gather-ms", "off").scale().startsAtMinimum());
    InvalidInputException negative = assertThrows(InvalidInputException.class,
        () -> parse("--workers", "4", "--min-workers", "2", "--gather-ms", "-5"));
    assertEquals("gather-ms", negative.field());
    InvalidInputException word = assertThrows(InvalidInputException.class, () -> parse("--gather-ms", "soon"));
    assertEquals("gather-ms", word.field());
  }
}
