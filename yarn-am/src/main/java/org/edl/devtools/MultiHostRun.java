package org.edl.devtools;

import java.io.PrintWriter;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.edl.cluster.hosts.HostNetwork;
import org.edl.cluster.hosts.MultiHostCluster;
import org.edl.cluster.hosts.SimulatedHost;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code edl cluster --hosts N}: the multi-host cluster in the foreground until Ctrl-C or SIGTERM,
 * whose shutdown hook stops the daemons and removes the network even while it starts; what a
 * {@code kill -9} leaves, the next start removes.
 */
final class MultiHostRun {
  private final CommandSpec spec;
  private final Future<?> stopRequested;

  MultiHostRun(CommandSpec spec, Future<?> stopRequested) {
    this.spec = spec;
    this.stopRequested = stopRequested;
  }

  int run(Supplier<MultiHostCluster> build) throws Exception {
    var why = HostNetwork.unavailable();
    if (why.isPresent()) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--hosts: " + why.get());
    }
    MultiHostCluster cluster = build.get();
    Thread hook = new Thread(cluster::close, "edl-hosts-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    PrintWriter out = spec.commandLine().getOut();
    try (cluster) {
      out.println("Starting the multi-host cluster...");
      out.flush();
      cluster.start();
      printWhereItIs(cluster, out);
      stopRequested.get();
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // The hook is running or has run: it closes the cluster.
      }
    }
    out.println("Multi-host cluster stopped.");
    return 0;
  }

  private static void printWhereItIs(MultiHostCluster cluster, PrintWriter out) {
    out.printf("Multi-host cluster running: %d host(s), links capped at %s Gbit/s%n", cluster.hosts().size(),
        cluster.network().linkGbit());
    for (SimulatedHost host : cluster.hosts()) {
      out.printf("  %s  %s  (ip netns exec %s ...)%n", host.name(), host.address(), host.namespace());
    }
    out.printf("Client configuration: %s%n", cluster.confDir());
    out.printf("  export HADOOP_CONF_DIR=%s%n", cluster.confDir());
    out.printf("ResourceManager web UI: %s%n", cluster.resourceManagerWebUrl());
    out.printf("HDFS: %s%n", cluster.hdfsUri());
    out.printf("ZooKeeper: %s%n", cluster.zooKeeperConnect());
    out.printf("Daemon logs: %s%n", cluster.dir().resolve("logs"));
    out.println("Press Ctrl-C to stop.");
    out.flush();
  }
}
