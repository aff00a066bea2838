package org.edl.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.edl.client.JobControlException;
import org.edl.client.KerberosLogin;
import org.edl.job.InvalidInputException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine;

/**
 * {@code edl}: the command line, both as {@code bin/edl ...} and as
 * {@code yarn jar edl-am-<version>.jar ...}. A mistake the user can fix (an unknown flag, a bad
 * value, input the job would fail on) prints one line, {@code edl: <message>}, and exits 2;
 * anything else exits 1, with a stack trace only under {@code --verbose}. The commands that need
 * the embedded cluster or drive benchmarks ({@code demo}, {@code cluster}, {@code bench}) are not
 * among these: they live in {@code org.edl.devtools}, which the {@code yarn jar} distribution
 * leaves out, and {@code bin/edl} runs {@code org.edl.devtools.EdlTools}, which adds them through
 * {@link #execute(String[], PrintStream, PrintStream, List)}.
 */
@Command(name = "edl", mixinStandardHelpOptions = true, versionProvider = EdlCli.Version.class,
    description = "Elastic deep-learning training on Hadoop YARN.",
    subcommands = {SubmitCommand.class, StatusCommand.class, ScaleOutCommand.class,
        ScaleInCommand.class, MigrateCommand.class, ProfileCommand.class, CheckpointsCommand.class,
        SimulateCommand.class, CleanupCommand.class})
public final class EdlCli implements Runnable {
  /** Exit code of a user error. */
  public static final int USAGE = 2;
  /** Exit code of anything else that went wrong. */
  public static final int FAILURE = 1;
  private static final List<String> CONF_FILES =
      List.of("core-site.xml", "hdfs-site.xml", "yarn-site.xml", "resource-types.xml", "edl-site.xml");

  @Option(names = "--verbose", scope = ScopeType.INHERIT, description = "Log more; print stack traces.")
  boolean verbose;

  @Option(names = "--conf", scope = ScopeType.INHERIT, paramLabel = "DIR",
      description = "Hadoop client configuration directory (default: HADOOP_CONF_DIR on the class path).")
  Path confDir;

  @Option(names = "--principal", scope = ScopeType.INHERIT, paramLabel = "NAME",
      description = "On a Kerberos cluster, log in as NAME from --keytab (default: the ticket cache kinit fills).")
  String principal;

  @Option(names = "--keytab", scope = ScopeType.INHERIT, paramLabel = "FILE", description = "The keytab for --principal.")
  Path keytab;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(execute(args, System.out, System.err));
  }

  /** Runs one command line; returns the exit code. */
  public static int execute(String[] args, PrintStream out, PrintStream err) {
    return execute(args, out, err, List.of());
  }

  /**
   * Runs one command line with {@code moreCommands} (picocli {@code @Command} objects) added
   * before {@code help}; returns the exit code.
   */
  public static int execute(String[] args, PrintStream out, PrintStream err, List<Object> moreCommands) {
    PrintWriter o = new PrintWriter(new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8), true);
    PrintWriter e = new PrintWriter(new java.io.OutputStreamWriter(err, StandardCharsets.UTF_8), true);
    boolean verbose = Arrays.asList(args).contains("--verbose");
    CommandLine cmd = new CommandLine(new EdlCli());
    // The simulator reads a trace file, never the cluster: the cluster's options would do nothing.
    CommandLine.Model.CommandSpec simulate = cmd.getSubcommands().get("simulate").getCommandSpec();
    for (String clusterOnly : List.of("--conf", "--principal", "--keytab")) {
      simulate.remove(simulate.findOption(clusterOnly));
    }
    moreCommands.forEach(cmd::addSubcommand);
    cmd.addSubcommand(new CommandLine.HelpCommand());
    cmd.setOut(o);
    cmd.setErr(e);
    cmd.setParameterExceptionHandler((ex, a) -> {
      e.println("edl: " + oneLine(ex.getMessage()));
      if (verbose) {
        ex.getCommandLine().usage(e);
      }
      return USAGE;
    });
    cmd.setExecutionExceptionHandler((ex, c, parsed) -> {
      InvalidInputException user = userError(ex);
      if (user != null) {
        e.println("edl: " + oneLine(user.getMessage()));
        if (verbose) {
          ex.printStackTrace(e);
        }
        return USAGE;
      }
      e.println("edl: " + oneLine(String.valueOf(ex.getMessage() == null ? ex : ex.getMessage())));
      if (verbose) {
        ex.printStackTrace(e);
      } else if (!(ex instanceof JobControlException)) {
        // A JobControlException's message already says what to do; anything else may need the trace.
        e.println("edl: run with --verbose for details");
      }
      return FAILURE;
    });
    try {
      return cmd.execute(args);
    } finally {
      o.flush();
      e.flush();
    }
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /**
   * The client configuration: {@code --conf DIR} if given, else whatever is on the class path;
   * on a Kerberos cluster, with the user logged in ({@link KerberosLogin}).
   */
  Configuration configuration() {
    if (loaded == null) {
      Configuration conf = readConfiguration();
      KerberosLogin.apply(conf, principal, keytab);
      loaded = conf;
    }
    return new YarnConfiguration(loaded);
  }

  private Configuration loaded;

  private Configuration readConfiguration() {
    YarnConfiguration conf = new YarnConfiguration();
    if (confDir == null) {
      conf.addResource("edl-site.xml");
      return conf;
    }
    if (!Files.isDirectory(confDir)) {
      throw new InvalidInputException("conf", confDir, "not a directory");
    }
    for (String file : CONF_FILES) {
      Path p = confDir.resolve(file);
      if (Files.isRegularFile(p)) {
        conf.addResource(new org.apache.hadoop.fs.Path(p.toAbsolutePath().toUri()));
      }
    }
    return conf;
  }

  static InvalidInputException userError(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof InvalidInputException iie) {
        return iie;
      }
    }
    return null;
  }

  private static String oneLine(String message) {
    return message == null ? "" : message.strip().replaceAll("\\s*\\R\\s*", " ");
  }

  /** The version from the jar's manifest, when there is one. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = EdlCli.class.getPackage().getImplementationVersion();
      return new String[] {"edl " + (v == null ? "(development build)" : v)};
    }
  }
}
