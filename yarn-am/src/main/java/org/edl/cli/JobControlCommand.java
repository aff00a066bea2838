package org.edl.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.thrift.TException;
import org.apache.thrift.transport.TTransportException;
import org.edl.client.JobControlConnection;
import org.edl.client.JobControlException;
import org.edl.client.JobControlLocator;
import org.edl.job.InvalidInputException;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobControl;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * What {@code edl status|scale-out|scale-in|migrate|profile} share: the application id, finding
 * its AM through the ResourceManager, and how a refusal from the AM is shown. Each command checks
 * its own flags before it connects anywhere; an {@link EdlError} from the AM (the request was
 * refused, nothing changed) is one line naming the field and the value, exit status 2.
 */
abstract class JobControlCommand implements Callable<Integer> {
  @ParentCommand
  EdlCli cli;

  @Parameters(index = "0", paramLabel = "APP_ID",
      description = "The job's YARN application id (application_<cluster timestamp>_<sequence>).")
  String appId;

  @Option(names = "--timeout", paramLabel = "SECONDS",
      description = "How long to wait for the ApplicationMaster to connect and answer (default:"
          + " 30 for status, 600 for scale-out, scale-in and migrate, 3600 for profile).")
  Integer timeoutSeconds;

  @Override
  public final Integer call() throws Exception {
    JobControlLocator.parse(appId);
    if (timeoutSeconds != null && timeoutSeconds < 1) {
      throw new InvalidInputException("--timeout", timeoutSeconds, "at least 1 second");
    }
    checkOptions(); // before connecting anywhere
    Configuration conf = cli.configuration();
    PrintWriter out = cli.spec.commandLine().getOut();
    try (YarnClient yarn = SubmitCommand.startYarnClient(conf);
        JobControlConnection connection = new JobControlLocator(conf, yarn).connect(appId, timeout())) {
      try {
        run(connection.control(), out);
      } catch (TTransportException e) {
        throw new JobControlException("no answer from the ApplicationMaster of " + connection.appId()
            + " at " + connection.endpoint() + " within " + timeout().toSeconds() + " s ("
            + e.getMessage() + "); a request may still be carried out: check with `edl status "
            + connection.appId() + "`, or allow longer with --timeout", e);
      }
      out.flush();
      return 0;
    } catch (EdlError refused) {
      out.flush();
      cli.spec.commandLine().getErr().println("edl: " + JobStatusText.refusal(refused));
      return EdlCli.USAGE;
    }
  }

  /** Throws {@link InvalidInputException} for a flag the AM need not be asked about. */
  void checkOptions() {}

  /** Sends the request and prints its outcome, ending with the job's status. */
  abstract void run(JobControl.Iface control, PrintWriter out) throws TException;

  /**
   * How long to wait for the AM to be found and to answer. A scale or migrate request answers once
   * the change is accepted (the AM gives up on its side after 10 s); the margin is for finding an
   * AM that is still starting or failing over.
   */
  Duration defaultTimeout() {
    return Duration.ofMinutes(10);
  }

  private Duration timeout() {
    return timeoutSeconds == null ? defaultTimeout() : Duration.ofSeconds(timeoutSeconds);
  }
}
