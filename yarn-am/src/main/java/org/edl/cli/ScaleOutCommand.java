package org.edl.cli;

import java.io.PrintWriter;
import org.apache.thrift.TException;
import org.edl.job.InvalidInputException;
import org.edl.thrift.JobControl;
import org.edl.thrift.ScaleMode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code edl scale-out <appId> [-n N] [--mode edl|stop-resume]}. */
@Command(name = "scale-out", mixinStandardHelpOptions = true,
    description = {"Add workers to a running job while it trains.",
        "Refused, with nothing changed, beyond the job's maximum workers."})
final class ScaleOutCommand extends JobControlCommand {
  @Option(names = {"-n", "--count"}, paramLabel = "N", defaultValue = "1",
      description = "Workers to add (default: ${DEFAULT-VALUE}).")
  int count;

  @Option(names = "--mode", paramLabel = "MODE", defaultValue = "edl",
      description = "edl (stop-free) or stop-resume (checkpoint, stop all, relaunch; the baseline)"
          + " (default: ${DEFAULT-VALUE}).")
  String mode;

  @Override
  void checkOptions() {
    if (count < 1) {
      throw new InvalidInputException("--count", count, "at least 1");
    }
    JobStatusText.modeOf(mode);
  }

  @Override
  void run(JobControl.Iface control, PrintWriter out) throws TException {
    ScaleMode m = JobStatusText.modeOf(mode);
    var status = control.scaleOut(count, m);
    out.println("Scale-out by " + count + " (" + JobStatusText.modeName(m) + ") accepted.");
    out.print(JobStatusText.status(status));
  }
}
