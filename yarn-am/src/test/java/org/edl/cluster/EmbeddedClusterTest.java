package org.edl.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.yarn.api.ApplicationConstants.Environment;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.edl.job.JobPaths;
import org.edl.job.WorkerEnv;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer.OrderAnnotation;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * One 2 x 4 GPU cluster for the whole class (start-up costs seconds). Every client here is built
 * only from the files in the written configuration directory, as a separate process with
 * {@code HADOOP_CONF_DIR} would be. The last test closes the cluster and checks it is gone.
 */
@TestMethodOrder(OrderAnnotation.class)
class EmbeddedClusterTest {
  private static final long TIMEOUT_S = 60;

  @TempDir static Path baseDir;
  private static EmbeddedCluster cluster;
  private static Set<Thread> threadsBefore;

  @BeforeAll
  static void startCluster() throws IOException {
    threadsBefore = liveNonDaemonThreads();
    cluster = EmbeddedCluster.builder().nodes(2).gpusPerNode(4).baseDir(baseDir).build().start();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Configuration fromConfDirOnly() {
    return new YarnConfiguration(ClientConfDirectory.load(cluster.confDir()));
  }

  @Test
  @Order(1)
  void confDirHoldsTheClientFiles() {
    for (String file : List.of("core-site.xml", "hdfs-site.xml", "yarn-site.xml", "resource-types.xml", "edl-site.xml")) {
      assertTrue(Files.isRegularFile(cluster.confDir().resolve(file)), file);
    }
    Configuration conf = fromConfDirOnly();
    assertEquals(cluster.hdfsUri().toString(), conf.get("fs.defaultFS"));
    assertEquals(cluster.zkConnectString(), conf.get(WorkerEnv.ZK_CONNECT_KEY));
    assertEquals(ResourceInformation.GPU_URI, conf.get(YarnConfiguration.RESOURCE_TYPES));
    assertEquals(2, cluster.nodes());
    assertEquals(4, cluster.gpusPerNode());
  }

  @Test
  @Order(2)
  void yarnClientSeesEveryNodeWithItsGpus() throws Exception {
    YarnClient yarn = YarnClient.createYarnClient();
    yarn.init(fromConfDirOnly());
    yarn.start();
    try {
      List<NodeReport> nodes = yarn.getNodeReports(NodeState.RUNNING);
      assertEquals(2, nodes.size(), "running nodes: " + nodes);
      for (NodeReport node : nodes) {
        assertEquals(4, node.getCapability().getResourceValue(ResourceInformation.GPU_URI), node.toString());
      }
    } finally {
      yarn.stop();
    }
  }

  /** The RM's own pages, not the NodeManagers' that share its JVM (see ResourceManagerWebUi). */
  @Test
  @Order(2)
  void resourceManagerWebUiAndRestApiAnswer() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> rest = http.send(
        HttpRequest.newBuilder(URI.create(cluster.resourceManagerWebUrl() + "/ws/v1/cluster/info"))
            .header("Accept", "application/json").build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, rest.statusCode(), rest.body());
    assertEquals("STARTED", new ObjectMapper().readTree(rest.body()).path("clusterInfo").path("state").asText(),
        rest.body());
    HttpResponse<String> page = http.send(
        HttpRequest.newBuilder(URI.create(cluster.resourceManagerWebUrl() + "/cluster/nodes")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, page.statusCode(), page.body());
    assertTrue(page.body().contains("yarn.io/gpu"), "the nodes page lists GPUs");
  }

  @Test
  @Order(3)
  void hdfsWriteThenReadThroughTheConfDir() throws Exception {
    byte[] data = "embedded HDFS round trip\n".repeat(1000).getBytes(StandardCharsets.UTF_8);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/tmp/edl-test/round-trip.txt");
    try (FileSystem fs = FileSystem.newInstance(fromConfDirOnly())) {
      assertEquals("hdfs", fs.getScheme());
      try (FSDataOutputStream out = fs.create(file)) {
        out.write(data);
      }
      byte[] read = new byte[data.length];
      try (FSDataInputStream in = fs.open(file)) {
        in.readFully(read);
        assertEquals(-1, in.read(), "no bytes beyond what was written");
      }
      assertEquals(new String(data, StandardCharsets.UTF_8), new String(read, StandardCharsets.UTF_8));
      assertEquals(1, fs.getFileStatus(file).getReplication());
    }
  }

  @Test
  @Order(4)
  void curatorConnectsToTheZooKeeperNamedInEdlSite() throws Exception {
    String connect = fromConfDirOnly().get(WorkerEnv.ZK_CONNECT_KEY);
    try (CuratorFramework zk = CuratorFrameworkFactory.newClient(connect, new RetryOneTime(100))) {
      zk.start();
      assertTrue(zk.blockUntilConnected((int) TIMEOUT_S, TimeUnit.SECONDS), "connected to " + connect);
      zk.create().creatingParentsIfNeeded().forPath(JobPaths.ROOT + "/probe", "hello".getBytes(StandardCharsets.UTF_8));
      assertEquals("hello", new String(zk.getData().forPath(JobPaths.ROOT + "/probe"), StandardCharsets.UTF_8));
    }
  }

  /**
   * A container asking for a GPU is scheduled and runs {@code $JAVA_HOME/bin/java}. The command
   * writes java's banner to a temporary name and renames it into a watched directory, so the
   * test waits on the file system event rather than polling.
   */
  @Test
  @Order(5)
  void aGpuContainerRunsJava() throws Exception {
    Path outDir = Files.createDirectories(baseDir.resolve("container-out"));
    Path banner = outDir.resolve("java-version.txt");
    try (WatchService watch = FileSystems.getDefault().newWatchService();
         YarnClient yarn = YarnClient.createYarnClient()) {
      outDir.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
      yarn.init(fromConfDirOnly());
      yarn.start();

      YarnClientApplication app = yarn.createApplication();
      ApplicationSubmissionContext context = app.getApplicationSubmissionContext();
      context.setApplicationName("edl-java-probe");
      context.setMaxAppAttempts(1);
      Resource resource = Resource.newInstance(1024, 1);
      resource.setResourceValue(ResourceInformation.GPU_URI, 1);
      context.setResource(resource);
      String tmp = outDir.resolve("java-version.tmp").toString();
      String command = "\"" + Environment.JAVA_HOME.$() + "/bin/java\" -version 2> '" + tmp + "'; mv '" + tmp + "' '" + banner + "'";
      context.setAMContainerSpec(ContainerLaunchContext.newInstance(
          Map.of(), Map.of(), List.of(command), null, null, null));
      yarn.submitApplication(context);

      while (!Files.exists(banner)) {
        WatchKey key = watch.poll(TIMEOUT_S, TimeUnit.SECONDS);
        assertNotNull(key, "no output from the container within " + TIMEOUT_S + " s: "
            + yarn.getApplicationReport(context.getApplicationId()).getDiagnostics());
        key.pollEvents();
        key.reset();
      }
      String output = Files.readString(banner);
      assertTrue(output.contains("version"), "java -version printed: " + output);
      yarn.killApplication(context.getApplicationId());
    }
  }

  @Test
  @Order(100)
  void closeStopsEverythingAndIsIdempotent() throws Exception {
    Configuration conf = fromConfDirOnly();
    InetSocketAddress rm = NetUtils.createSocketAddr(conf.get(YarnConfiguration.RM_ADDRESS));
    InetSocketAddress nameNode = NetUtils.createSocketAddr(cluster.hdfsUri().getAuthority());
    InetSocketAddress zk = NetUtils.createSocketAddr(cluster.zkConnectString());
    assertTrue(accepts(rm), "RM accepts before close");

    cluster.close();
    cluster.close();

    assertFalse(accepts(rm), "RM port " + rm + " still accepts");
    assertFalse(accepts(nameNode), "NameNode port " + nameNode + " still accepts");
    assertFalse(accepts(zk), "ZooKeeper port " + zk + " still accepts");
    assertThrows(IllegalStateException.class, cluster::start);

    Set<Thread> left = liveNonDaemonThreads();
    left.removeAll(threadsBefore);
    for (Thread thread : left) {
      thread.join(TimeUnit.SECONDS.toMillis(TIMEOUT_S)); // pools may still be winding down
    }
    left.removeIf(thread -> !thread.isAlive());
    assertTrue(left.isEmpty(), "threads that would keep the JVM alive: "
        + left.stream().map(Thread::getName).collect(Collectors.joining(", ")));
  }

  private static boolean accepts(InetSocketAddress address) {
    try (Socket socket = new Socket()) {
      socket.connect(address, 2000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static Set<Thread> liveNonDaemonThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(thread -> thread.isAlive() && !thread.isDaemon())
        .collect(Collectors.toSet());
  }
}
