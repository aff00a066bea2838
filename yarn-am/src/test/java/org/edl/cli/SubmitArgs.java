package org.edl.cli;

import java.util.Map;
import org.edl.job.JobSpec;
import picocli.CommandLine;

/**
 * {@code edl submit}'s flags as the job specification they become, validated (no cluster needed),
 * with an environment of the test's own rather than the machine's.
 */
final class SubmitArgs {
  private SubmitArgs() {}

  static JobSpec parse(String... args) {
    return parse(Map.of(), args);
  }

  static JobSpec parse(Map<String, String> env, String... args) {
    SubmitCommand submit = new SubmitCommand();
    submit.environment = env::get;
    new CommandLine(submit).parseArgs(args);
    return submit.toSpec().validate();
  }
}
