package org.edl.cli;

import static org.edl.cli.SubmitArgs.parse;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** How {@code edl submit --timeline} becomes the job specification (no cluster needed). */
class SubmitTimelineFlagTest {
  @Test
  void workersCopyTheirTimelinesOnlyWhenAsked() {
    assertFalse(parse("--workers", "2").timeline(), "the copy holds every ending worker's GPU longer");
    assertTrue(parse("--workers", "2", "--timeline").timeline());
  }
}
