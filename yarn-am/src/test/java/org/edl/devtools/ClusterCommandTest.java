package org.edl.devtools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.edl.cluster.ClientConfDirectory;
import org.edl.cluster.EmbeddedCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ClusterCommandTest {
  private static final long TIMEOUT_S = 120;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(ClusterCommand command, String... args) {
    CommandLine cli = new CommandLine(command);
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  @Test
  void zeroNodesIsRefusedNamingTheOption() {
    int exit = run(new ClusterCommand(), "--nodes", "0");
    assertNotEquals(0, exit);
    assertTrue(err.toString().contains("--nodes=0"), err.toString());
    assertTrue(out.toString().isEmpty(), "nothing started: " + out);
  }

  @Test
  void negativeGpusAreRefusedNamingTheOption() {
    int exit = run(new ClusterCommand(), "--gpus-per-node", "-1");
    assertNotEquals(0, exit);
    assertTrue(err.toString().contains("--gpus-per-node=-1"), err.toString());
  }

  @Test
  void aTokenRenewIntervalWithoutKerberosIsRefused() {
    int exit = run(new ClusterCommand(), "--token-renew-interval-ms", "10000");
    assertNotEquals(0, exit);
    assertTrue(err.toString().contains("--token-renew-interval-ms=10000"), err.toString());
    assertTrue(err.toString().contains("only with --kerberos"), err.toString());
  }

  @Test
  void anUnknownSchedulingModeIsRefusedNamingTheOption() {
    int exit = run(new ClusterCommand(), "--scheduling", "tiresias");
    assertNotEquals(0, exit);
    assertTrue(err.toString().contains("--scheduling=tiresias"), err.toString());
    assertTrue(err.toString().contains("fair or elastic-tiresias"), err.toString());
  }

  @Test
  void badTiresiasQueueLimitsAreRefusedNamingTheOption() {
    int exit = run(new ClusterCommand(), "--scheduling", "elastic-tiresias", "--tiresias-queue-limits", "500,80");
    assertNotEquals(0, exit);
    assertTrue(err.toString().contains("--tiresias-queue-limits=500,80"), err.toString());
    assertTrue(err.toString().contains("ascending positive GPU-seconds"), err.toString());
    err.getBuffer().setLength(0);
    exit = run(new ClusterCommand(), "--tiresias-queue-limits", "80");
    assertNotEquals(0, exit);
    assertTrue(err.toString().contains("only with --scheduling elastic-tiresias"), err.toString());
  }

  @Test
  void hostsWithAnEmbeddedClusterOnlyOptionIsRefusedNamingBoth() {
    int exit = run(new ClusterCommand(), "--hosts", "3", "--kerberos");
    assertNotEquals(0, exit);
    assertTrue(err.toString().contains("--hosts=3") && err.toString().contains("--kerberos"), err.toString());
    assertTrue(out.toString().isEmpty(), "nothing started: " + out);
  }

  @Test
  void aZeroLinkRateIsRefusedNamingTheOption() {
    int exit = run(new ClusterCommand(), "--hosts", "2", "--link-gbit", "0");
    assertNotEquals(0, exit);
    assertTrue(err.toString().contains("--link-gbit=0.0"), err.toString());
  }

  @Test
  void anUnknownOptionIsRefused() {
    int exit = run(new ClusterCommand(), "--gpus", "2");
    assertNotEquals(0, exit);
    assertTrue(err.toString().contains("--gpus"), err.toString());
  }

  /** A 1 node x 2 GPU cluster, run as `edl cluster` runs it, then stopped as Ctrl-C would. */
  @Test
  void runsACustomSizedClusterUntilAskedToStop(@TempDir Path dir) throws Exception {
    CompletableFuture<EmbeddedCluster> started = new CompletableFuture<>();
    CompletableFuture<Void> stop = new CompletableFuture<>();
    ClusterCommand command = new ClusterCommand(started::complete, stop);
    ExecutorService runner = Executors.newSingleThreadExecutor();
    try {
      Future<Integer> exit = runner.submit(() -> run(command,
          "--nodes", "1", "--gpus-per-node", "2", "--dir", dir.toString()));
      EmbeddedCluster cluster = started.get(TIMEOUT_S, TimeUnit.SECONDS);
      Path confDir = cluster.confDir();
      assertEquals(dir.resolve("conf").toAbsolutePath(), confDir);

      YarnClient yarn = YarnClient.createYarnClient();
      yarn.init(new YarnConfiguration(ClientConfDirectory.load(confDir)));
      yarn.start();
      try {
        List<NodeReport> nodes = yarn.getNodeReports(NodeState.RUNNING);
        assertEquals(1, nodes.size(), nodes.toString());
        assertEquals(2, nodes.get(0).getCapability().getResourceValue(ResourceInformation.GPU_URI));
      } finally {
        yarn.stop();
      }

      stop.complete(null);
      assertEquals(0, exit.get(TIMEOUT_S, TimeUnit.SECONDS), err.toString());
      String printed = out.toString();
      assertTrue(printed.contains("export HADOOP_CONF_DIR=" + confDir), printed);
      assertTrue(printed.contains("HDFS: " + cluster.hdfsUri()), printed);
      assertTrue(printed.contains("ZooKeeper: " + cluster.zkConnectString()), printed);
      assertTrue(printed.contains("ResourceManager web UI: http://"), printed);
      assertTrue(Files.isRegularFile(confDir.resolve("yarn-site.xml")), "a --dir is kept after stop");
    } finally {
      stop.complete(null);
      runner.shutdownNow();
    }
  }
}
