package org.edl.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.client.Leftovers;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code edl cleanup}: removes what ended jobs left behind. */
@Command(name = "cleanup", mixinStandardHelpOptions = true,
    description = "Remove what ended jobs left behind: their ZooKeeper nodes (/edl/<appId>) and your staging"
        + " directories (~/.edl/<appId>: the job secret and jar). A job killed with `yarn application -kill`"
        + " leaves both (every `edl submit` also does this first). Jobs the ResourceManager does not know are kept"
        + " and listed.")
final class CleanupCommand implements Callable<Integer> {
  @ParentCommand
  EdlCli cli;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = cli.spec.commandLine().getOut();
    Leftovers.Swept s;
    try (YarnClient yarn = SubmitCommand.startYarnClient(cli.configuration())) {
      s = Leftovers.sweep(cli.configuration(), yarn);
    }
    s.removed().forEach(p -> out.println("Removed " + p));
    s.unknown().forEach(p -> out.println("Kept " + p + ": the ResourceManager does not know this job"));
    s.notYours().forEach(p -> out.println("Kept " + p + ": another user's job (only the holder of its secret,"
        + " or a ZooKeeper superuser, may delete its nodes)"));
    if (s.removed().isEmpty()) {
      out.println("Nothing to remove: no ended job left anything behind");
    }
    out.flush();
    return 0;
  }
}
