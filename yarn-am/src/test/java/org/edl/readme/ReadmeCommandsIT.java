package org.edl.readme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.edl.testing.Await;
import org.edl.testing.HadoopClient;
import org.edl.testing.UserShell;
import org.edl.testing.UserShell.Ran;
import org.edl.testing.UserShell.Running;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The README's commands, run as the README shows them and as users run them: {@code bin/edl
 * cluster} in one terminal; in others, with {@code HADOOP_CONF_DIR} exported, {@code bin/edl
 * submit}, the commands that control a running job, and {@code yarn jar} with the shaded jar
 * through Hadoop's {@code RunJar}. Each command is a process of its own over the jars {@code mvn
 * package} built (so this runs after it, under Failsafe), and each block's lines are read from the
 * README and checked against the ones here: a README whose commands stop working, or change
 * without this test, fails the build. Every command's output, bin/edl's log and the containers'
 * logs stay under {@code target/it/readme}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReadmeCommandsIT {
  private static final Duration CLUSTER_START = Duration.ofMinutes(5);
  private static final Duration JOB = Duration.ofMinutes(10);
  private static final Duration COMMAND = Duration.ofMinutes(3);
  private static final Pattern CONF_DIR = Pattern.compile("export HADOOP_CONF_DIR=(\\S+)");
  private static final Pattern SUBMITTED = Pattern.compile("Submitted (application_\\d+_\\d+)");
  private static final String JAR = "yarn-am/target/dist/edl-am-0.1.0-SNAPSHOT.jar";

  private static Path root;
  private static Readme readme;
  private static Running cluster;
  /** The second terminal: HADOOP_CONF_DIR exported, Hadoop's client on the PATH. */
  private static UserShell user;
  private static Path confDir;

  @BeforeAll
  static void startTheEmbeddedClusterInATerminalOfItsOwn() throws Exception {
    root = Path.of(System.getProperty("edl.home")).toAbsolutePath();
    Path dir = Path.of(System.getProperty("edl.it.dir")).resolve("readme").toAbsolutePath();
    deleteRecursively(dir); // the previous run's logs
    readme = Readme.of(root);
    assertTrue(Files.readString(root.resolve("README.md")).contains("(`bin/edl cluster` in one terminal"),
        "README.md no longer starts the embedded cluster with `bin/edl cluster`");
    UserShell first = new UserShell(root, dir.resolve("commands"))
        .with("EDL_JAVA_OPTS", "-Dedl.cluster.keep-logs=" + dir.resolve("container-logs"));
    cluster = first.start("bin/edl cluster");
    String printed = cluster.awaitOutput(CONF_DIR.asPredicate(), CLUSTER_START, "the cluster's configuration directory");
    Matcher m = CONF_DIR.matcher(printed);
    assertTrue(m.find());
    confDir = Path.of(m.group(1));
    Path hadoop = HadoopClient.install(dir.resolve("hadoop-client")).getParent();
    user = new UserShell(root, dir.resolve("commands")).with("HADOOP_CONF_DIR", confDir.toString())
        .with("PATH", hadoop + ":" + System.getenv("PATH"));
  }

  @AfterAll
  static void stopTheClusterAsCtrlCWould() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  void theReadmesSubmitTrainsToTheEnd() throws Exception {
    List<String> lines = readme.commands("export HADOOP_CONF_DIR=", List.of(
        "export HADOOP_CONF_DIR=<the directory bin/edl cluster printed>",
        "bin/edl submit --model mlp --workers 4 --data synthetic:samples=20000,features=32,classes=4 --steps 300"));

    Ran submit = user.run(lines.get(1), JOB).assertSucceeded();

    assertSucceededWithItsModel(submit, 300);
  }

  @Test
  @Order(2)
  void yarnJarSubmitsThroughHadoopsRunJar() throws Exception {
    // The real cluster's block (its first line continued with a backslash), not the many-hosts one.
    List<String> lines = readme.commands("yarn jar " + JAR + " submit \\", List.of("yarn jar " + JAR
        + " submit --model mlp --workers 4 --gpus-per-worker 1 --data hdfs:///user/me/train.libsvm --steps 1000"));
    writeLibsvm("/user/me/train.libsvm", 2000, 16, 4);

    Ran submit = user.run(lines.get(0), JOB).assertSucceeded();

    assertSucceededWithItsModel(submit, 1000);
  }

  @Test
  @Order(3)
  void yarnJarRunsAnUnchangedTorchrunScript() throws Exception {
    List<String> lines = readme.commands("yarn jar " + JAR + " submit --torchrun", List.of("yarn jar " + JAR
        + " submit --torchrun docs/examples/torchrun_ddp.py --python /usr/bin/python3 --gpus-per-worker 0"
        + " --workers 2 --max-workers 3 -- --checkpoint /tmp/ddp.pt --epochs 5"));
    Files.deleteIfExists(Path.of("/tmp/ddp.pt")); // a previous run's: this one would resume at its end

    Ran submit = user.run(lines.get(0), JOB).assertSucceeded();

    String out = submit.output();
    assertTrue(Pattern.compile("application_\\d+_\\d+ SUCCEEDED").matcher(out).find(), out);
    assertTrue(Pattern.compile("Summary: all 2 workers finished training; rendezvous round \\d+: 2 workers")
        .matcher(out).find(), out);
    assertFalse(out.contains("Model:"), "a torchrun script's output is its own: " + out);
    assertTrue(Files.exists(Path.of("/tmp/ddp.pt")), "the script's checkpoint");
  }

  @Test
  @Order(4)
  void aRunningJobIsControlledFromAnotherTerminal() throws Exception {
    String submitLine = readme.commands("bin/edl submit --backend emulated", List.of(
        "bin/edl submit --backend emulated --model cifar10 --workers 2 --max-workers 3 --grow off --steps 100000"
            + " --checkpoint-every-batches 50")).get(0);
    List<String> control = readme.commands("export APP=", List.of(
        "export APP=<the application id submit printed>",
        "bin/edl status $APP",
        "bin/edl scale-out $APP -n 1",
        "bin/edl scale-in $APP -n 1",
        "bin/edl checkpoints $APP",
        "yarn jar " + JAR + " status $APP",
        "yarn application -kill $APP",
        "bin/edl cleanup"));
    try (Running job = user.start(submitLine)) {
      Matcher m = SUBMITTED.matcher(job.awaitOutput(SUBMITTED.asPredicate(), COMMAND, "the application id"));
      assertTrue(m.find());
      String app = m.group(1);
      UserShell shell = user.with("APP", app);
      awaitCommand(shell, control.get(1), out -> out.contains("  2 workers"), "the job training on 2 workers");

      assertTrue(shell.run(control.get(2), COMMAND).assertSucceeded().output().contains("accepted"));
      awaitCommand(shell, control.get(1), out -> out.contains("  3 workers"), "the scale-out to 3 workers");
      assertTrue(shell.run(control.get(3), COMMAND).assertSucceeded().output().contains("accepted"));
      awaitCommand(shell, control.get(1), out -> out.contains("  2 workers"), "the scale-in back to 2 workers");
      awaitCommand(shell, control.get(4), out -> out.lines().anyMatch(l -> l.matches("\\d+\\s.*\\syes\\s+hdfs:.*")),
          "a checkpoint that verifies");
      Ran yarnJarStatus = shell.run(control.get(5), COMMAND).assertSucceeded();
      assertTrue(yarnJarStatus.output().contains(app + "  RUNNING"), yarnJarStatus.output());

      // The user stops following the job (Ctrl-C stops the client, not the job), then kills it:
      // nobody is left to remove its staging directory but `edl cleanup`, unless the AM heard
      // YARN's request to shut down before its process was killed and removed it itself.
      Ran followed = job.interrupt(COMMAND);
      assertFalse(followed.output().contains(" ended "), followed.output());
      shell.run(control.get(6), COMMAND).assertSucceeded();
      Ran ended = shell.run(control.get(1), COMMAND);
      assertEquals(2, ended.exit(), "a killed job's status is a user error: " + ended.output());
      assertTrue(ended.output().contains("KILLED"), ended.output());

      boolean left = leftOf(app);
      Ran cleanup = shell.run(control.get(7), COMMAND).assertSucceeded();
      if (left) {
        assertTrue(cleanup.output().contains("Removed") && cleanup.output().contains(app), cleanup.output());
      }
      assertNothingLeftOf(app, cleanup);
    }
  }

  private static void assertSucceededWithItsModel(Ran submit, int steps) {
    String out = submit.output();
    assertTrue(Pattern.compile("application_\\d+_\\d+ SUCCEEDED").matcher(out).find(), out);
    assertTrue(out.contains("Model:   hdfs://"), out);
    assertTrue(out.contains("Metrics: hdfs://"), out);
    assertTrue(out.contains("step " + steps + "/" + steps), out);
  }

  /** Whether the job's ZooKeeper nodes or its staging directory are there. */
  private static boolean leftOf(String app) throws Exception {
    Configuration conf = clientConfiguration();
    try (CuratorFramework zk = CuratorFrameworkFactory.newClient(conf.get("edl.zookeeper.connect"),
        new RetryOneTime(200));
         FileSystem fs = FileSystem.newInstance(conf)) {
      zk.start();
      return zk.checkExists().forPath("/edl/" + app) != null
          || fs.exists(new org.apache.hadoop.fs.Path(fs.getHomeDirectory(), ".edl/" + app));
    }
  }

  /** Neither the job's ZooKeeper nodes nor its staging directory (with its secret) are left. */
  private static void assertNothingLeftOf(String app, Ran cleanup) throws Exception {
    Configuration conf = clientConfiguration();
    try (CuratorFramework zk = CuratorFrameworkFactory.newClient(conf.get("edl.zookeeper.connect"),
        new RetryOneTime(200))) {
      zk.start();
      assertEquals(null, zk.checkExists().forPath("/edl/" + app), "ZooKeeper nodes left; " + cleanup.output());
    }
    try (FileSystem fs = FileSystem.newInstance(conf)) {
      org.apache.hadoop.fs.Path staging = new org.apache.hadoop.fs.Path(fs.getHomeDirectory(), ".edl/" + app);
      assertFalse(fs.exists(staging), staging + " left; " + cleanup.output());
    }
  }

  /** What a user would put on HDFS with {@code hdfs dfs -put}: a small LIBSVM file. */
  private static void writeLibsvm(String path, int samples, int features, int classes) throws IOException {
    Random random = new Random(7);
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < samples; i++) {
      int label = random.nextInt(classes);
      text.append(label);
      for (int f = 1; f <= features; f++) {
        double v = random.nextGaussian() + (f % classes == label ? 2 : 0);
        text.append(' ').append(f).append(':').append(String.format(java.util.Locale.ROOT, "%.3f", v));
      }
      text.append('\n');
    }
    try (FileSystem fs = FileSystem.newInstance(clientConfiguration());
         OutputStream out = fs.create(new org.apache.hadoop.fs.Path(path), true)) {
      out.write(text.toString().getBytes(StandardCharsets.UTF_8));
    }
  }

  private static Configuration clientConfiguration() {
    Configuration conf = new YarnConfiguration();
    for (String file : List.of("core-site.xml", "hdfs-site.xml", "yarn-site.xml", "edl-site.xml")) {
      conf.addResource(new org.apache.hadoop.fs.Path(confDir.resolve(file).toUri()));
    }
    return conf;
  }

  /** Runs {@code line} every few seconds (each a process of its own, as a user retyping it) until its output says so. */
  private static Ran awaitCommand(UserShell shell, String line, Predicate<String> done, String what) {
    return Await.until(what + " (`" + line + "`)", () -> shell.run(line, COMMAND),
        ran -> ran.exit() == 0 && done.test(ran.output()), COMMAND, Duration.ofSeconds(2));
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
