package org.edl.cluster.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.edl.testing.Await;
import org.edl.testing.HadoopClient;
import org.edl.testing.UserShell;
import org.edl.testing.UserShell.Ran;
import org.edl.testing.UserShell.Running;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/edl cluster --hosts 3} as the README shows it, in a process of its own, and a job
 * submitted to it with {@code yarn jar} and the shaded jar from another: one worker per host, whose
 * ring runs over TCP between the hosts; Ctrl-C leaves no daemon and no namespace behind. The
 * cluster's directory (daemon logs, the containers' aggregated logs on its HDFS) stays under
 * {@code target/it/multihost}.
 */
class MultiHostClusterIT {
  private static final String CLUSTER = "bin/edl cluster --hosts 3 --gpus-per-node 2";
  private static final String SUBMIT = "yarn jar yarn-am/target/dist/edl-am-0.1.0-SNAPSHOT.jar submit"
      + " --model mlp --workers 6 --data synthetic:samples=20000,features=32,classes=4 --steps 300";
  private static final Pattern CONF_DIR = Pattern.compile("export HADOOP_CONF_DIR=(\\S+)");
  private static final Pattern NAMESPACE = Pattern.compile("ip netns exec (\\S+)-h1 ");

  private static Running cluster;
  private static UserShell user;
  private static Path confDir;
  private static String networkId;

  @BeforeAll
  static void startTheClusterInATerminalOfItsOwn() throws Exception {
    var why = HostNetwork.unavailable();
    assumeTrue(why.isEmpty(), () -> "skipped: " + why.orElse(""));
    Path root = Path.of(System.getProperty("edl.home")).toAbsolutePath();
    String readme = Files.readString(root.resolve("README.md"));
    assertTrue(readme.contains(CLUSTER) && readme.contains(SUBMIT), "README.md no longer shows `" + CLUSTER
        + "` and `" + SUBMIT + "`");
    Path dir = Path.of(System.getProperty("edl.it.dir")).resolve("multihost").toAbsolutePath();
    org.apache.hadoop.fs.FileUtil.fullyDelete(dir.toFile());
    UserShell shell = new UserShell(root, dir.resolve("commands"));
    cluster = shell.start(CLUSTER + " --dir " + dir.resolve("cluster"));
    String printed = cluster.awaitOutput(CONF_DIR.asPredicate(), Duration.ofMinutes(4), "the client configuration");
    Matcher m = CONF_DIR.matcher(printed);
    assertTrue(m.find());
    confDir = Path.of(m.group(1));
    Matcher ns = NAMESPACE.matcher(printed);
    assertTrue(ns.find(), printed);
    networkId = ns.group(1);
    Path hadoop = HadoopClient.install(dir.resolve("hadoop-client")).getParent();
    user = shell.with("HADOOP_CONF_DIR", confDir.toString()).with("PATH", hadoop + ":" + System.getenv("PATH"));
  }

  @AfterAll
  static void ctrlCStopsEveryDaemonAndRemovesTheNetwork() throws Exception {
    if (cluster == null) {
      return;
    }
    cluster.interrupt(Duration.ofMinutes(2));
    assertTrue(HostNetwork.namespaces().stream().noneMatch(n -> n.startsWith(networkId)), HostNetwork.namespaces().toString());
    List<String> left = ProcessHandle.allProcesses().map(p -> p.info().commandLine().orElse(""))
        .filter(c -> c.contains(confDir.getParent().toString())).toList();
    assertEquals(List.of(), left, "daemons left running");
  }

  @Test
  void aJobSubmittedWithYarnJarTrainsWithTwoWorkersPerHostByHost() throws Exception {
    Ran submit = user.run(SUBMIT, Duration.ofMinutes(10)).assertSucceeded();
    Matcher m = Pattern.compile("(application_\\d+_\\d+) SUCCEEDED").matcher(submit.output());
    assertTrue(m.find(), submit.output());

    List<String> rings = ringLines(m.group(1));
    assertEquals(6, rings.size(), "one ring line per worker: " + rings);
    assertTrue(rings.stream().allMatch(l -> l.endsWith("(shared memory inside each host, tcp between 3 hosts)")),
        "two workers on each of three hosts sum inside the host, then over TCP: " + rings);
  }

  /**
   * The workers' "all-reduces on ring" lines, from the logs YARN aggregated on the cluster's HDFS:
   * awaited, since aggregation finishes a little after the job.
   */
  private static List<String> ringLines(String app) throws Exception {
    Configuration conf = new Configuration(false);
    conf.addResource(new org.apache.hadoop.fs.Path(confDir.resolve("core-site.xml").toUri()));
    conf.addResource(new org.apache.hadoop.fs.Path(confDir.resolve("hdfs-site.xml").toUri()));
    try (FileSystem fs = FileSystem.newInstance(conf)) {
      return Await.until("the six workers' aggregated logs", () -> ringLinesIn(fs, app), l -> l.size() >= 6,
          Duration.ofMinutes(2), Duration.ofSeconds(1));
    }
  }

  private static List<String> ringLinesIn(FileSystem fs, String app) throws Exception {
    Pattern ring = Pattern.compile("container_\\d+_\\d+_\\d+_\\d+ all-reduces on ring v1 as rank \\d of 6 \\([^)]*\\)");
    List<String> lines = new ArrayList<>();
    org.apache.hadoop.fs.Path logs = new org.apache.hadoop.fs.Path("/tmp/logs");
    if (!fs.exists(logs)) {
      return lines;
    }
    RemoteIterator<LocatedFileStatus> files = fs.listFiles(logs, true);
    while (files.hasNext()) {
      FileStatus f = files.next();
      if (f.getPath().toString().contains(app)) {
        Matcher m = ring.matcher(read(fs, f.getPath()));
        while (m.find()) {
          lines.add(m.group());
        }
      }
    }
    return lines;
  }

  private static String read(FileSystem fs, org.apache.hadoop.fs.Path p) throws Exception {
    try (InputStream in = fs.open(p)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toString(StandardCharsets.ISO_8859_1);
    }
  }
}
