package org.edl.cli;

import java.io.PrintWriter;
import java.time.Duration;
import org.apache.thrift.TException;
import org.edl.job.InvalidInputException;
import org.edl.thrift.JobControl;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code edl profile <appId> --min A --max B [--batches 20]}. */
@Command(name = "profile", mixinStandardHelpOptions = true,
    description = {"Measure a running job's throughput at each parallelism from --max down to --min,"
        + " scaling in one worker at a time; waits for the result.",
        "The AM stores the table (CSV) and a chart (PNG) with the job and prints where."})
final class ProfileCommand extends JobControlCommand {
  @Option(names = "--min", paramLabel = "A", required = true, description = "Fewest workers to measure.")
  int minWorkers;

  @Option(names = "--max", paramLabel = "B", required = true, description = "Most workers to measure.")
  int maxWorkers;

  @Option(names = "--batches", paramLabel = "N", defaultValue = "20",
      description = "Batches to run at each parallelism (default: ${DEFAULT-VALUE}).")
  int batches;

  @Override
  void checkOptions() {
    if (minWorkers < 1) {
      throw new InvalidInputException("--min", minWorkers, "at least 1");
    }
    if (maxWorkers < minWorkers) {
      throw new InvalidInputException("--max", maxWorkers, "less than --min " + minWorkers);
    }
    if (batches < 1) {
      throw new InvalidInputException("--batches", batches, "at least 1");
    }
  }

  @Override
  Duration defaultTimeout() {
    // One call runs every parallelism's batches plus each scale-in; it answers only at the end.
    return Duration.ofHours(1);
  }

  @Override
  void run(JobControl.Iface control, PrintWriter out) throws TException {
    out.print(JobStatusText.profile(control.profile(minWorkers, maxWorkers, batches)));
    out.print(JobStatusText.status(control.status()));
  }
}
