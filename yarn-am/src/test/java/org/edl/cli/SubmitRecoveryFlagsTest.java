package org.edl.cli;

import static org.edl.cli.SubmitArgs.parse;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.edl.job.Recovery;
import org.junit.jupiter.api.Test;

/** How {@code edl submit}'s recovery flags and USE_APPX_RECOVERY become the job specification. */
class SubmitRecoveryFlagsTest {
  @Test
  void consistentUnlessTheEnvironmentOrTheFlagSaysOtherwise() {
    assertEquals(Recovery.DEFAULT, parse(Map.of()).recovery());
    assertEquals(Recovery.Mode.APPROXIMATE, parse(Map.of("USE_APPX_RECOVERY", "1")).recovery().mode());
    assertEquals(Recovery.Mode.CONSISTENT,
        parse(Map.of("USE_APPX_RECOVERY", "1"), "--recovery", "consistent").recovery().mode(), "the flag wins");
    Recovery r = parse(Map.of(), "--recovery", "approximate", "--sync-timeout-ms", "2500",
        "--max-worker-failures", "1").recovery();
    assertEquals(new Recovery(Recovery.Mode.APPROXIMATE, 2500, 1), r);
  }
}
