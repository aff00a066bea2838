package org.edl.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.edl.client.CheckpointListing;
import org.edl.worker.checkpoint.CheckpointCatalog;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code edl checkpoints <appId|dir>}. */
@Command(name = "checkpoints", mixinStandardHelpOptions = true,
    description = "List a job's checkpoints (periodic and stop-resume), newest first: step, time written, size,"
        + " workers, and whether each verifies against its checksums.")
final class CheckpointsCommand implements Callable<Integer> {
  @ParentCommand
  EdlCli cli;

  @Parameters(index = "0", paramLabel = "APP_ID|DIR",
      description = "The job's application id (its output directory is found through its staging directory or the"
          + " default output directory), or a directory: the job's output directory or a checkpoint directory.")
  String target;

  @Override
  public Integer call() throws Exception {
    Configuration conf = cli.configuration();
    Path dir = CheckpointListing.resolve(conf, target);
    PrintWriter out = cli.spec.commandLine().getOut();
    out.print(CheckpointCatalog.table(dir, CheckpointCatalog.list(conf, dir)));
    out.flush();
    return 0;
  }
}
