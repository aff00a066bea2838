package org.edl.cluster.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The multi-host cluster as a client on this machine sees it: Hadoop's own daemons, each a process
 * in its host's namespace, a ZooKeeper ensemble with one leader, every NodeManager advertising its
 * GPUs from its own address, HDFS keeping each block on two hosts; and nothing left after close.
 */
class MultiHostClusterTest {
  private static MultiHostCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    var why = HostNetwork.unavailable();
    assumeTrue(why.isEmpty(), () -> "skipped: " + why.orElse(""));
    cluster = MultiHostCluster.builder().hosts(3).gpusPerHost(4)
        .shippedConf(Path.of(System.getProperty("edl.home", "..")).resolve("conf")).build().start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster == null) {
      return;
    }
    List<String> namespaces = cluster.hosts().stream().map(SimulatedHost::namespace).toList();
    List<HostDaemon> daemons = cluster.daemons();
    cluster.close();
    assertTrue(daemons.stream().noneMatch(HostDaemon::alive), "every daemon stopped");
    assertTrue(HostNetwork.namespaces().stream().noneMatch(namespaces::contains), "every namespace removed");
  }

  @Test
  void everyNodeManagerRunsOnItsOwnHostWithItsGpus() throws Exception {
    // A client knows yarn.io/gpu from resource-types.xml, which its HADOOP_CONF_DIR puts on its
    // class path; this JVM's was set up without it.
    ResourceUtils.resetResourceTypes(cluster.configuration());
    YarnClient yarn = YarnClient.createYarnClient();
    yarn.init(cluster.configuration());
    yarn.start();
    try {
      List<NodeReport> nodes = yarn.getNodeReports(NodeState.RUNNING);
      Set<String> hosts = new TreeSet<>();
      for (NodeReport node : nodes) {
        hosts.add(node.getNodeId().getHost());
        assertEquals(4, node.getCapability().getResourceValue(ResourceInformation.GPU_URI), node.toString());
      }
      assertEquals(addresses(), hosts);
    } finally {
      yarn.stop();
    }
  }

  @Test
  void hdfsKeepsEveryBlockOnTwoHosts() throws Exception {
    try (FileSystem fs = FileSystem.newInstance(cluster.configuration())) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/replicated.bin");
      try (OutputStream out = fs.create(file)) {
        out.write(new byte[1 << 20]);
      }
      BlockLocation[] blocks = fs.getFileBlockLocations(file, 0, 1 << 20);
      assertEquals(1, blocks.length);
      Set<String> on = new HashSet<>(List.of(blocks[0].getHosts()));
      assertEquals(2, on.size(), String.join(",", blocks[0].getNames()));
      assertTrue(addresses().containsAll(on), on.toString());
    }
  }

  @Test
  void theZooKeeperEnsembleHasOneLeaderAndTwoFollowers() throws Exception {
    List<String> modes = new ArrayList<>();
    for (SimulatedHost host : cluster.hosts()) {
      modes.add(zooKeeperMode(host));
    }
    modes.sort(null);
    assertEquals(List.of("follower", "follower", "leader"), modes);
  }

  /** ZooKeeper's own "srvr" four-letter command, the one its default whitelist allows. */
  private static String zooKeeperMode(SimulatedHost host) throws Exception {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host.address(), HostSiteFiles.ZK_CLIENT_PORT), 5000);
      s.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.startsWith("Mode: ")) {
          return line.substring("Mode: ".length()).strip();
        }
      }
    }
    return "no mode from " + host.address();
  }

  private static Set<String> addresses() {
    return new TreeSet<>(cluster.hosts().stream().map(SimulatedHost::address).toList());
  }
}
