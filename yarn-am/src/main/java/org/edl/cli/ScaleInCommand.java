package org.edl.cli;

import java.io.PrintWriter;
import java.util.List;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.thrift.TException;
import org.edl.job.InvalidInputException;
import org.edl.thrift.JobControl;
import org.edl.thrift.ScaleMode;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code edl scale-in <appId> (-n N | --container ID [--container ID]...) [--mode ...]}. */
@Command(name = "scale-in", mixinStandardHelpOptions = true,
    description = {"Remove workers from a running job gracefully: they leave at a scheduled step,"
        + " the others keep training.",
        "By count (the AM picks, newest first) or by naming containers; refused, with nothing"
            + " changed, below the job's minimum workers."})
final class ScaleInCommand extends JobControlCommand {
  @ArgGroup(exclusive = true, multiplicity = "1")
  Which which;

  @Option(names = "--mode", paramLabel = "MODE", defaultValue = "edl",
      description = "edl (graceful) or stop-resume (the baseline) (default: ${DEFAULT-VALUE}).")
  String mode;

  /** Exactly one of the two: picocli refuses both or neither as a usage error. */
  static final class Which {
    @Option(names = {"-n", "--count"}, paramLabel = "N", required = true, description = "Workers to remove.")
    Integer count;

    @Option(names = "--container", paramLabel = "ID", required = true,
        description = "A worker container to remove (repeat for several).")
    List<String> containers;
  }

  @Override
  void checkOptions() {
    if (which.count != null && which.count < 1) {
      throw new InvalidInputException("--count", which.count, "at least 1");
    }
    if (which.containers != null) {
      for (String c : which.containers) {
        try {
          ContainerId.fromString(c);
        } catch (IllegalArgumentException e) {
          throw new InvalidInputException("--container", c, "not a container id; `edl status`"
              + " lists the job's containers");
        }
      }
    }
    JobStatusText.modeOf(mode);
  }

  @Override
  void run(JobControl.Iface control, PrintWriter out) throws TException {
    ScaleMode m = JobStatusText.modeOf(mode);
    boolean byCount = which.count != null;
    var status = byCount ? control.scaleIn(which.count, List.of(), m)
        : control.scaleIn(0, List.copyOf(which.containers), m);
    out.println("Scale-in of " + (byCount ? which.count + " worker(s)" : String.join(", ", which.containers))
        + " (" + JobStatusText.modeName(m) + ") accepted.");
    out.print(JobStatusText.status(status));
  }
}
