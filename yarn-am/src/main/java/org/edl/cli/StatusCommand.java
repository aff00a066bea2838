package org.edl.cli;

import java.io.PrintWriter;
import java.time.Duration;
import org.apache.thrift.TException;
import org.edl.thrift.JobControl;
import picocli.CommandLine.Command;

/** {@code edl status <appId>}. */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Show a running job: state, workers (target, min, max), containers, backend, progress.")
final class StatusCommand extends JobControlCommand {
  @Override
  Duration defaultTimeout() {
    return Duration.ofSeconds(30);
  }

  @Override
  void run(JobControl.Iface control, PrintWriter out) throws TException {
    out.print(JobStatusText.status(control.status()));
  }
}
