package org.edl.cli;

import java.io.PrintWriter;
import org.apache.thrift.TException;
import org.edl.job.InvalidInputException;
import org.edl.thrift.JobControl;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code edl migrate <appId> --from HOST --to HOST}. */
@Command(name = "migrate", mixinStandardHelpOptions = true,
    description = "Move a running job's workers from one host to another in one switch.")
final class MigrateCommand extends JobControlCommand {
  @Option(names = "--from", paramLabel = "HOST", required = true, description = "Host whose workers leave.")
  String fromHost;

  @Option(names = "--to", paramLabel = "HOST", required = true, description = "Host the new workers start on.")
  String toHost;

  @Override
  void checkOptions() {
    if (fromHost.isBlank()) {
      throw new InvalidInputException("--from", fromHost, "empty host");
    }
    if (toHost.isBlank()) {
      throw new InvalidInputException("--to", toHost, "empty host");
    }
    if (fromHost.strip().equalsIgnoreCase(toHost.strip())) {
      throw new InvalidInputException("--to", toHost, "the same host as --from");
    }
  }

  @Override
  void run(JobControl.Iface control, PrintWriter out) throws TException {
    var status = control.migrate(fromHost.strip(), toHost.strip());
    out.println("Migration from " + fromHost.strip() + " to " + toHost.strip() + " accepted.");
    out.print(JobStatusText.status(status));
  }
}
