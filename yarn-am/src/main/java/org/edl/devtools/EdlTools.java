package org.edl.devtools;

import java.io.PrintStream;
import java.util.List;
import org.edl.cli.EdlCli;

/**
 * {@code bin/edl}: every command of {@link EdlCli} (what {@code yarn jar edl-am-<version>.jar}
 * runs on a real cluster) plus {@code demo}, {@code cluster} and {@code bench}, which start the
 * embedded cluster or drive benchmarks on this machine and so never go into the cluster's jar.
 */
public final class EdlTools {
  private EdlTools() {}

  public static void main(String[] args) {
    System.exit(execute(args, System.out, System.err));
  }

  /** Runs one command line; returns the exit code. */
  public static int execute(String[] args, PrintStream out, PrintStream err) {
    return EdlCli.execute(args, out, err, List.of(new DemoCommand(), new ClusterCommand(), new BenchCommand()));
  }
}
