package org.edl.devtools;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.edl.cluster.ClusterSize;
import org.edl.cluster.EmbeddedCluster;
import org.edl.cluster.EmbeddedClusterBuilder;
import org.edl.cluster.FairSchedulerAllocationFile;
import org.edl.cluster.hosts.MultiHostCluster;
import org.edl.job.InvalidInputException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code edl cluster}: runs the embedded cluster in the foreground for a person to use with the
 * ordinary Hadoop tools and the EDL CLI, until Ctrl-C stops it.
 */
@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    description = {
        "Run an embedded Hadoop cluster in this process until Ctrl-C: ZooKeeper, HDFS (1 DataNode)",
        "and YARN (FairScheduler with DRF) whose NodeManagers advertise yarn.io/gpu.",
        "It writes a client configuration directory; export HADOOP_CONF_DIR=<it> to use it."})
public final class ClusterCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--nodes", paramLabel = "N", description = "NodeManagers to start (default: ${DEFAULT-VALUE})")
  int nodes = ClusterSize.DEFAULT_NODES;

  @Option(names = "--gpus-per-node", paramLabel = "N",
      description = "yarn.io/gpu each NodeManager advertises (default: ${DEFAULT-VALUE})")
  int gpusPerNode = ClusterSize.DEFAULT_GPUS_PER_NODE;

  @Option(names = "--node-memory-mb", paramLabel = "MB",
      description = "memory each NodeManager offers to containers (default: ${DEFAULT-VALUE})")
  int nodeMemoryMb = ClusterSize.DEFAULT_NODE_MEMORY_MB;

  @Option(names = "--node-vcores", paramLabel = "N",
      description = "vcores each NodeManager offers to containers (default: ${DEFAULT-VALUE})")
  int nodeVcores = ClusterSize.DEFAULT_NODE_VCORES;

  @Option(names = "--dir", paramLabel = "DIR",
      description = "directory for data, logs and the client configuration (DIR/conf), kept on exit;"
          + " default: a temporary directory, removed on exit")
  Path dir;

  @Option(names = "--kerberos", description = "secure the cluster: a KDC starts first, every service logs in"
      + " with Kerberos, and clients need a ticket or a keytab (one is issued for this machine's user)")
  boolean kerberos;

  @Option(names = "--token-renew-interval-ms", paramLabel = "MS", description = "with --kerberos, how long an"
      + " HDFS delegation token lives unless renewed (default: HDFS's, a day); short, to watch YARN renew them")
  Long tokenRenewIntervalMs;

  @Option(names = "--scheduling", paramLabel = "MODE", description = "how the RM orders users and applications"
      + " in root.users: fair (the plugin's fair share) or elastic-tiresias (default: ${DEFAULT-VALUE}); switchable"
      + " later by editing DIR/fair-scheduler.xml and refreshQueues")
  String scheduling = "fair";

  @Option(names = "--tiresias-queue-limits", paramLabel = "GPU-S,...", description = "with --scheduling"
      + " elastic-tiresias, the queues' bounds in attained GPU-seconds (default: the RM's, 500,10000); lower them"
      + " to watch jobs leave the first queue, and jobs of one size be paused, within seconds")
  String tiresiasQueueLimits;

  @Option(names = "--hosts", paramLabel = "N", description = "instead of the embedded cluster, N hosts on this"
      + " machine (network namespaces on a bridge, root and iproute2 needed), each running Hadoop's own daemons as"
      + " separate processes: a 3-server ZooKeeper ensemble, NameNode, a DataNode and a NodeManager per host,"
      + " ResourceManager; configured from the shipped conf/ files")
  Integer hosts;

  @Option(names = "--link-gbit", paramLabel = "GBIT", description = "with --hosts, each host's link rate, capped"
      + " both ways with a token bucket (default: ${DEFAULT-VALUE}, below what two cores move over a veth)")
  double linkGbit = 1.0;

  private final Consumer<EmbeddedCluster> onStarted;
  private final Future<?> stopRequested;

  /** Runs until the JVM is asked to stop (Ctrl-C, SIGTERM); a shutdown hook closes the cluster. */
  public ClusterCommand() {
    this(cluster -> { }, new CompletableFuture<Void>());
  }

  /**
   * For tests: {@code onStarted} hears of the running cluster, and completing
   * {@code stopRequested} stops it as Ctrl-C would.
   */
  ClusterCommand(Consumer<EmbeddedCluster> onStarted, Future<?> stopRequested) {
    this.onStarted = onStarted;
    this.stopRequested = stopRequested;
  }

  static FairSchedulerAllocationFile.Mode modeOf(String text) {
    return switch (text) {
      case "fair" -> FairSchedulerAllocationFile.Mode.FAIR;
      case "elastic-tiresias" -> FairSchedulerAllocationFile.Mode.ELASTIC_TIRESIAS;
      default -> throw new InvalidInputException("scheduling", text, "expected fair or elastic-tiresias");
    };
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new ClusterCommand()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    if (hosts != null) {
      return new MultiHostRun(spec, stopRequested).run(this::multiHostCluster);
    }
    EmbeddedCluster cluster;
    try {
      if (tokenRenewIntervalMs != null && !kerberos) {
        throw new InvalidInputException("token-renew-interval-ms", tokenRenewIntervalMs,
            "delegation tokens exist only with --kerberos");
      }
      EmbeddedClusterBuilder builder = EmbeddedCluster.builder()
          .nodes(nodes).gpusPerNode(gpusPerNode).nodeMemoryMb(nodeMemoryMb).nodeVcores(nodeVcores).baseDir(dir)
          .kerberos(kerberos).schedulingMode(modeOf(scheduling));
      if (tokenRenewIntervalMs != null) {
        builder.tokenRenewIntervalMs(tokenRenewIntervalMs);
      }
      if (tiresiasQueueLimits != null) {
        if (!"elastic-tiresias".equals(scheduling)) {
          throw new InvalidInputException("tiresias-queue-limits", tiresiasQueueLimits,
              "applies only with --scheduling elastic-tiresias");
        }
        builder.tiresiasQueueLimits(tiresiasQueueLimits);
      }
      cluster = builder.build();
    } catch (InvalidInputException e) {
      // The builder names its fields as the options are named, less the dashes.
      throw new CommandLine.ParameterException(spec.commandLine(),
          e.renamed("--" + e.field()).getMessage());
    }
    // Registered before start so that Ctrl-C during start-up still stops what has started.
    Thread hook = new Thread(cluster::close, "edl-cluster-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try (cluster) {
      cluster.start();
      onStarted.accept(cluster);
      printWhereItIs(cluster, spec.commandLine().getOut());
      stopRequested.get();
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // The hook is running or has run: it closes the cluster.
      }
    }
    spec.commandLine().getOut().println("Embedded cluster stopped.");
    return 0;
  }

  private MultiHostCluster multiHostCluster() {
    if (kerberos || nodes != ClusterSize.DEFAULT_NODES || !"fair".equals(scheduling) || tiresiasQueueLimits != null) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--hosts=" + hosts
          + ": not with --kerberos, --nodes, --scheduling or --tiresias-queue-limits (each host runs one NodeManager)");
    }
    String home = System.getProperty("edl.home", ".");
    try {
      return MultiHostCluster.builder().hosts(hosts).linkGbit(linkGbit).gpusPerHost(gpusPerNode)
          .hostMemoryMb(nodeMemoryMb).hostVcores(nodeVcores).dir(dir).shippedConf(Path.of(home, "conf")).build();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  private static void printWhereItIs(EmbeddedCluster cluster, PrintWriter out) {
    out.printf("Embedded cluster running: %d node(s) x %d yarn.io/gpu%n", cluster.nodes(), cluster.gpusPerNode());
    out.printf("Client configuration: %s%n", cluster.confDir());
    out.printf("  export HADOOP_CONF_DIR=%s%n", cluster.confDir());
    out.printf("ResourceManager web UI: %s%n", cluster.resourceManagerWebUrl());
    out.printf("HDFS: %s%n", cluster.hdfsUri());
    out.printf("ZooKeeper: %s%n", cluster.zkConnectString());
    cluster.kerberos().ifPresent(kdc -> {
      out.printf("Kerberos realm %s; clients need its krb5.conf and a login:%n", kdc.realm());
      out.printf("  export KRB5_CONFIG=%s%n", kdc.krb5Conf());
      out.printf("  bin/edl --principal %s --keytab %s submit ...   (or: kinit -kt %s %s)%n",
          kdc.userPrincipal(), kdc.userKeytab(), kdc.userKeytab(), kdc.userPrincipal());
    });
    out.println("Press Ctrl-C to stop.");
    out.flush();
  }
}
