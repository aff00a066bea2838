package org.edl.cli;

import static org.edl.cli.SubmitArgs.parse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.edl.job.Growth;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSpec;
import org.junit.jupiter.api.Test;

/** How {@code edl submit --grow, --grow-efficiency, --grow-hold-off-ms} become the job specification. */
class SubmitGrowFlagsTest {
  @Test
  void aSubmittedJobGrowsByDefaultWithHalfAWorkersEfficiencyAndAMinuteOfHoldOff() {
    Growth g = parse("--workers", "2", "--max-workers", "8").growth();
    assertEquals(Growth.DEFAULT, g);
    assertTrue(g.enabled() && g.followsCurve());
    assertEquals(0.5, g.efficiency());
    assertEquals(60_000, g.holdOffMs());
  }

  @Test
  void eachKnobTakesItsValuesAndRefusesOthersNamingTheField() {
    assertFalse(parse("--grow", "off").growth().enabled());
    assertFalse(parse("--grow-efficiency", "off").growth().followsCurve());
    assertEquals(0.25, parse("--grow-efficiency", "0.25").growth().efficiency());
    assertEquals(0, parse("--grow-hold-off-ms", "0").growth().holdOffMs());
    InvalidInputException maybe = assertThrows(InvalidInputException.class, () -> parse("--grow", "maybe"));
    assertEquals("grow", maybe.field());
    InvalidInputException high = assertThrows(InvalidInputException.class, () -> parse("--grow-efficiency", "2"));
    assertEquals("grow-efficiency", high.field());
    InvalidInputException negative = assertThrows(InvalidInputException.class,
        () -> parse("--grow-hold-off-ms", "-1"));
    assertEquals("grow-hold-off-ms", negative.field());
  }

  @Test
  void theModeBackendAndSyncStandInReachTheSpecAndItsJobFile() {
    assertEquals(org.edl.job.ScaleMode.EDL, parse().growth().mode());
    JobSpec spec = parse("--mode", "stop-resume", "--backend", "emulated", "--model", "imagenet",
        "--emulated-sync", "profile");
    assertEquals(org.edl.job.ScaleMode.STOP_RESUME, spec.growth().mode());
    assertEquals("emulated", spec.training().backend());
    assertTrue(spec.training().profileSync());
    assertEquals(spec, JobSpec.fromProperties(spec.toProperties()));
    assertEquals("mode", assertThrows(InvalidInputException.class, () -> parse("--mode", "restart")).field());
    assertEquals("emulated-sync", assertThrows(InvalidInputException.class,
        () -> parse("--emulated-sync", "profile")).field(), "the cpu backend really transfers");
    assertEquals("backend", assertThrows(InvalidInputException.class, () -> parse("--backend", "gpu")).field());
  }
}
