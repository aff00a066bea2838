package org.edl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.edl.job.JobSpec;
import org.edl.job.Recovery;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** How {@code edl submit}'s recovery flags and USE_APPX_RECOVERY become the job specification. */
class SubmitRecoveryFlagsTest {
  private static JobSpec parse(Map<String, String> env, String... args) {
    SubmitCommand submit = new SubmitCommand();
    submit.environment = env::get;
    new CommandLine(submit).parseArgs(args);
    return submit.toSpec().validate();
  }

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
