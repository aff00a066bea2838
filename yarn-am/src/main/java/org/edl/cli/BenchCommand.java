package org.edl.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.edl.worker.bench.AllReduceBench;
import org.edl.worker.bench.AllReduceBenchOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/** {@code edl bench ...}: benchmarks, each one a subcommand. */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Run a benchmark.",
    subcommands = {BenchCommand.AllReduce.class})
public final class BenchCommand implements Runnable {
  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** {@code edl bench allreduce [args]}: the arguments go to {@link AllReduceBench} as they are. */
  @Command(name = "allreduce", description = "Ring all-reduce against gather-broadcast and the"
      + " loopback limit; arguments are passed to the benchmark (try --help).")
  static final class AllReduce implements Callable<Integer> {
    @Unmatched
    List<String> args = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
      if (args.contains("--help") || args.contains("-h")) {
        System.out.println(AllReduceBenchOptions.USAGE);
        return 0;
      }
      // Parsed here rather than through AllReduceBench.main, so that a bad argument is reported
      // like every other edl user error (one line, exit 2) instead of by System.exit.
      AllReduceBench.run(AllReduceBenchOptions.parse(args.toArray(String[]::new)), System.out);
      return 0;
    }
  }
}
