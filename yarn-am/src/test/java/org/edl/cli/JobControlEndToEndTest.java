package org.edl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerReport;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.edl.am.StagingLayout;
import org.edl.client.JobControlConnection;
import org.edl.client.JobControlLocator;
import org.edl.client.JobSecretFile;
import org.edl.client.JobSubmitter;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.testing.Await;
import org.edl.testing.YarnCluster;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobStatus;
import org.edl.thrift.ScaleMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code edl status|scale-out|scale-in ...} against a real job on the embedded cluster: the CLI
 * finds the AM through the ResourceManager's report and authenticates with the secret from the
 * submitter's staging directory. One cluster and one long-running 2-worker job (at most 3) for
 * the class; tests that disturb the secret file put it back.
 */
class JobControlEndToEndTest {
  private static final int MAX_WORKERS = 3;

  @RegisterExtension
  static final YarnCluster CLUSTER = new YarnCluster();
  private static ApplicationId running;
  private static Path staging;

  @BeforeAll
  static void startJob() throws Exception {
    running = new JobSubmitter(CLUSTER.configuration(), CLUSTER.yarn()).submit(longJob(2)).appId();
    staging = CLUSTER.home(StagingLayout.relativeDir(running.toString()));
    awaitContainers(running, 2);
  }

  @AfterAll
  static void killJob() throws Exception {
    if (running != null) {
      CLUSTER.yarn().killApplication(running);
    }
  }

  @Test
  void statusOfARunningJobShowsRunningItsWorkersAndContainers() throws Exception {
    Result r = cli("status", running.toString());
    assertEquals(0, r.code, r.toString());
    assertTrue(r.out.startsWith(running + "  RUNNING\n"), r.out);
    assertTrue(r.out.contains("target 2 (min 2, max " + MAX_WORKERS + "), 2 containers"), r.out);
    assertTrue(r.out.contains("Backend:     cpu"), r.out);
    List<String> workers = workerContainers(running);
    assertEquals(2, workers.size(), workers.toString());
    for (String c : workers) {
      assertTrue(r.out.contains(c), c + " in: " + r.out);
    }
  }

  @Test
  void theSecretFileIsTheSubmittersOnlyAndNeverLocalised() throws Exception {
    Path secret = JobSecretFile.in(staging);
    assertEquals(new FsPermission((short) 0600), CLUSTER.fileSystem().getFileStatus(secret).getPermission());
    Map<String, LocalResource> localised = StagingLayout.localResources(staging.toUri(), CLUSTER.configuration());
    assertTrue(localised.containsKey(StagingLayout.JOB_SPEC), localised.keySet().toString());
    assertFalse(localised.containsKey(StagingLayout.JOB_SECRET), localised.keySet().toString());
  }

  @Test
  void unknownApplication() {
    ApplicationId unknown = ApplicationId.newInstance(running.getClusterTimestamp(), 9999);
    Result r = cli("status", unknown.toString());
    r.assertOneLineError(EdlCli.USAGE, "unknown application " + unknown);
  }

  @Test
  void malformedApplicationId() {
    Result r = cli("status", "application_" + running.getClusterTimestamp());
    r.assertOneLineError(EdlCli.USAGE, "application=application_" + running.getClusterTimestamp(),
        "not an application id");
  }

  @Test
  void anEndedApplicationIsNotRunning() throws Exception {
    ApplicationId killed = new JobSubmitter(CLUSTER.configuration(), CLUSTER.yarn()).submit(longJob(1)).appId();
    CLUSTER.yarn().killApplication(killed);
    awaitState(killed, YarnApplicationState.KILLED);
    Result r = cli("status", killed.toString());
    r.assertOneLineError(EdlCli.USAGE, "application " + killed + " is KILLED (KILLED), not running");
  }

  /**
   * What {@code yarn application -kill} (Hadoop's own ApplicationCLI) may leave, its ZooKeeper
   * nodes and staging directory, stays until {@code edl cleanup} (or the next {@code edl submit})
   * removes them. The running job keeps its own. The AM is paused before the kill: YARN's kill
   * first asks a live AM to shut down, and it may then clean up by itself before its process is
   * killed (CI saw it do so); a paused one cannot, as an AM on a hung node.
   */
  @Test
  void whatAKilledJobLeftIsRemovedByEdlCleanupAndARunningJobKeepsItsOwn() throws Exception {
    ApplicationId killed = new JobSubmitter(CLUSTER.configuration(), CLUSTER.yarn()).submit(longJob(1)).appId();
    Path killedStaging = CLUSTER.home(StagingLayout.relativeDir(killed.toString()));
    String killedRoot = org.edl.job.JobPaths.root(killed.toString());
    try (org.apache.curator.framework.CuratorFramework zk = org.apache.curator.framework.CuratorFrameworkFactory
        .newClient(CLUSTER.cluster().zkConnectString(), new org.apache.curator.retry.ExponentialBackoffRetry(200, 5))) {
      zk.start();
      Await.until("the killed job's AM to write its nodes", () -> zk.checkExists().forPath(killedRoot) != null);
      org.apache.hadoop.yarn.client.cli.ApplicationCLI admin = new org.apache.hadoop.yarn.client.cli.ApplicationCLI();
      admin.setSysOutPrintStream(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
      admin.setSysErrPrintStream(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
      org.edl.bench.ContainerProcesses processes = new org.edl.bench.ContainerProcesses();
      processes.pause(processes.find(amContainerOf(killed)));
      assertEquals(0, org.apache.hadoop.util.ToolRunner.run(CLUSTER.configuration(), admin,
          new String[] {"application", "-kill", killed.toString()}));
      awaitState(killed, YarnApplicationState.KILLED);
      assertNotNull(zk.checkExists().forPath(killedRoot), "the AM was killed before it could clean up");
      assertTrue(CLUSTER.fileSystem().exists(killedStaging));

      Result r = cli("cleanup");
      assertEquals(0, r.code, r.toString());
      assertTrue(r.out.contains("Removed " + killedRoot + "\n"), r.out);
      assertTrue(r.out.contains(StagingLayout.relativeDir(killed.toString()) + "\n"), r.out);
      assertEquals(null, zk.checkExists().forPath(killedRoot));
      assertFalse(CLUSTER.fileSystem().exists(killedStaging));
      assertNotNull(zk.checkExists().forPath(org.edl.job.JobPaths.root(running.toString())), "the running job's nodes");
      assertTrue(CLUSTER.fileSystem().exists(staging), "the running job's staging directory");
      assertTrue(cli("cleanup").out.contains("Nothing to remove"));
    }
  }

  /**
   * The client that followed a job to its end (as `edl submit` does) removes what a killed AM
   * left: the ZooKeeper nodes, which only the job's secret can delete, before the staging
   * directory that holds the secret. The AM is killed with SIGKILL, and has one attempt only: a
   * `yarn application -kill` first asks the AM to shut down, and it may then clean up by itself
   * (CI saw it do so), and a second attempt would clean up too.
   */
  @Test
  void theFollowingClientRemovesAKilledJobsNodesBeforeItsSecret() throws Exception {
    org.apache.hadoop.conf.Configuration oneAttempt = new org.apache.hadoop.conf.Configuration(CLUSTER.configuration());
    oneAttempt.setInt(JobSubmitter.AM_MAX_ATTEMPTS, 1);
    JobSubmitter submitter = new JobSubmitter(oneAttempt, CLUSTER.yarn());
    org.edl.client.SubmittedJob job = submitter.submit(longJob(1));
    String root = org.edl.job.JobPaths.root(job.appId().toString());
    try (org.apache.curator.framework.CuratorFramework zk = org.apache.curator.framework.CuratorFrameworkFactory
        .newClient(CLUSTER.cluster().zkConnectString(), new org.apache.curator.retry.ExponentialBackoffRetry(200, 5))) {
      zk.start();
      Await.until("the job's AM to write its nodes", () -> zk.checkExists().forPath(org.edl.job.JobPaths.fleet(
          job.appId().toString())) != null);
      org.edl.bench.ContainerProcesses processes = new org.edl.bench.ContainerProcesses();
      processes.kill(processes.find(amContainerOf(job.appId())));
      awaitState(job.appId(), YarnApplicationState.FAILED);
      assertNotNull(zk.checkExists().forPath(root), "the AM was killed before it could clean up");
      submitter.deleteStaging(job);
      assertEquals(null, zk.checkExists().forPath(root));
      assertFalse(CLUSTER.fileSystem().exists(new Path(job.stagingDir())));
    }
  }

  private static String amContainerOf(ApplicationId app) throws Exception {
    ApplicationReport report = CLUSTER.yarn().getApplicationReport(app);
    return CLUSTER.yarn().getApplicationAttemptReport(report.getCurrentApplicationAttemptId()).getAMContainerId()
        .toString();
  }

  /**
   * Another user's ZooKeeper session (no job secret) can read the running job's nodes but not
   * rewrite its leader record or fleet journal, nor delete a member's presence.
   */
  @Test
  void anotherUserCannotRewriteTheJobsZooKeeperNodes() throws Exception {
    String app = running.toString();
    try (org.apache.curator.framework.CuratorFramework zk = org.apache.curator.framework.CuratorFrameworkFactory
        .newClient(CLUSTER.cluster().zkConnectString(), new org.apache.curator.retry.ExponentialBackoffRetry(200, 5))) {
      zk.start();
      String job = org.edl.job.JobPaths.job(app);
      String fleet = org.edl.job.JobPaths.fleet(app);
      Await.until("the leader's record and the fleet journal", () -> zk.checkExists().forPath(job) != null
          && zk.checkExists().forPath(fleet) != null);
      byte[] record = zk.getData().forPath(job);
      for (String path : List.of(job, fleet)) {
        assertThrowsNoAuth(() -> zk.setData().forPath(path, "rewritten".getBytes(StandardCharsets.UTF_8)), path);
        assertThrowsNoAuth(() -> zk.delete().forPath(path), path);
      }
      List<String> members = zk.getChildren().forPath(org.edl.job.JobPaths.members(app));
      assertFalse(members.isEmpty());
      assertThrowsNoAuth(() -> zk.delete().forPath(org.edl.job.JobPaths.members(app) + "/" + members.get(0)),
          "a member's presence");
      assertThrowsNoAuth(() -> zk.create().forPath(org.edl.job.JobPaths.root(app) + "/planted"), "a new node");
      assertEquals(new String(record, StandardCharsets.UTF_8), new String(zk.getData().forPath(job), StandardCharsets.UTF_8));
      assertTrue(cli("status", app).out.contains("RUNNING"), "the job goes on");
    }
  }

  private static void assertThrowsNoAuth(org.junit.jupiter.api.function.Executable change, String what) {
    org.junit.jupiter.api.Assertions.assertThrows(org.apache.zookeeper.KeeperException.NoAuthException.class, change,
        what + " changed without the job's secret");
  }

  /**
   * The tracking URL, as the RM UI and {@code yarn application -status} show it, leads through the
   * RM's web proxy to the AM's job page: HTML, the size chart and the same status as JSON.
   */
  @Test
  void theTrackingUrlLeadsThroughTheResourceManagersProxyToTheJobPage() throws Exception {
    String tracking = CLUSTER.yarn().getApplicationReport(running).getTrackingUrl();
    assertTrue(tracking.contains("/proxy/" + running) && !tracking.contains(":0/"), tracking);
    org.apache.hadoop.yarn.client.cli.ApplicationCLI admin = new org.apache.hadoop.yarn.client.cli.ApplicationCLI();
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    admin.setSysOutPrintStream(new PrintStream(printed, true, StandardCharsets.UTF_8));
    admin.setSysErrPrintStream(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    // As the admin types it: `yarn application -status <appId>` (the yarn script passes "application" on).
    assertEquals(0, org.apache.hadoop.util.ToolRunner.run(CLUSTER.configuration(), admin,
        new String[] {"application", "-status", running.toString()}));
    String original = CLUSTER.yarn().getApplicationReport(running).getOriginalTrackingUrl();
    assertTrue(original.startsWith("http://") && fetch(original, "text/html").contains("EDL job " + running), original);
    assertTrue(printed.toString(StandardCharsets.UTF_8).contains("Tracking-URL : " + original),
        printed.toString(StandardCharsets.UTF_8));

    String page = fetch(tracking, "text/html");
    assertTrue(page.contains("EDL job " + running) && page.contains("RUNNING"), page);
    for (String c : workerContainers(running)) {
      assertTrue(page.contains(c), c + " in: " + page);
    }
    String json = fetch(tracking + (tracking.endsWith("/") ? "" : "/") + "status.json", "application/json");
    assertTrue(json.contains("\"appId\":\"" + running + "\"") && json.contains("\"targetWorkers\":2"), json);
    Await.until("a sample for the size chart", () -> fetch(tracking, "text/html").contains("size.png"));
    fetch(tracking + (tracking.endsWith("/") ? "" : "/") + "size.png", "image/png");
    // What the RM's Elastic-Tiresias mode reads from the AM itself: the throughput it measured at
    // the sizes the job has run (here 2 workers), once it has two reports far enough apart.
    String curve = Await.until("the measured throughput on the job page",
        () -> fetch(original + (original.endsWith("/") ? "" : "/") + "speedup.txt", "text/plain").trim(),
        c -> c.matches("\\d+:2=[0-9]+\\.[0-9]{3}"));
    assertTrue(Double.parseDouble(curve.substring(curve.indexOf('=') + 1)) > 0, curve);
  }

  /**
   * The page as a person sees it: Debian's headless chromium opens the tracking URL through the
   * RM's proxy; the DOM has the containers with their host and GPUs and the checkpoints section,
   * and the screenshot shows the size chart's line (the browser fetched and drew size.png).
   */
  @Test
  void aRealBrowserShowsTheJobPageAndItsChartThroughTheProxy() throws Exception {
    java.util.Optional<String> chromium = java.util.stream.Stream.of("chromium", "chromium-browser")
        .flatMap(name -> java.util.Arrays.stream(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
            .map(dir -> java.nio.file.Path.of(dir, name)))
        .filter(java.nio.file.Files::isExecutable).map(java.nio.file.Path::toString).findFirst();
    org.junit.jupiter.api.Assumptions.assumeTrue(chromium.isPresent(),
        "chromium is not on the PATH; bin/test installs it (apt-get install chromium)");
    String tracking = CLUSTER.yarn().getApplicationReport(running).getTrackingUrl();
    Await.until("a sample for the size chart", () -> fetch(tracking, "text/html").contains("size.png"));
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("edl-chromium");
    String dom = browse(chromium.get(), dir, "--dump-dom", tracking);
    assertTrue(dom.contains("<th>host</th><th>GPUs</th>") && dom.contains("<h2>Checkpoints</h2>"), dom);
    for (String c : workerContainers(running)) {
      assertTrue(dom.matches("(?s).*<td>" + c + "</td><td>localhost</td><td>\\d+</td>.*"), c + " with host and GPU in: " + dom);
    }
    java.nio.file.Path shot = dir.resolve("page.png");
    browse(chromium.get(), dir, "--screenshot=" + shot, tracking);
    java.awt.image.BufferedImage image = javax.imageio.ImageIO.read(shot.toFile());
    assertNotNull(image, "chromium wrote no PNG to " + shot);
    int chartBlue = 0;
    for (int y = 0; y < image.getHeight(); y++) {
      for (int x = 0; x < image.getWidth(); x++) {
        int rgb = image.getRGB(x, y);
        int r = (rgb >> 16) & 0xff;
        int g = (rgb >> 8) & 0xff;
        int b = rgb & 0xff;
        // The chart's "workers in the ring" line, #1f77b4; nothing else on the page is that colour.
        if (Math.abs(r - 0x1f) < 24 && Math.abs(g - 0x77) < 24 && Math.abs(b - 0xb4) < 24) {
          chartBlue++;
        }
      }
    }
    assertTrue(chartBlue > 50, "the size chart's line is in the screenshot (" + chartBlue + " pixels): " + shot);
  }

  /** Runs headless chromium on {@code url}; its standard output, or a failure with its log. */
  private static String browse(String chromium, java.nio.file.Path dir, String what, String url) throws Exception {
    java.nio.file.Path log = dir.resolve("chromium.log");
    java.nio.file.Path out = dir.resolve("stdout.html");
    Process p = new ProcessBuilder(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        // No --virtual-time-budget: with the page's 5 s refresh it never ends. The load event
        // (which the dump and the screenshot wait for) comes after the chart image has loaded.
        "--hide-scrollbars", "--user-data-dir=" + dir.resolve("profile"), "--window-size=1000,1800", what, url)
        .redirectOutput(out.toFile()).redirectError(log.toFile()).start();
    if (!p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("chromium did not finish within 120 s; its log: " + java.nio.file.Files.readString(log));
    }
    assertEquals(0, p.exitValue(), "chromium " + what + " failed; its log: " + java.nio.file.Files.readString(log));
    return java.nio.file.Files.readString(out);
  }

  private static String fetch(String url, String type) throws Exception {
    java.net.HttpURLConnection c = (java.net.HttpURLConnection) new java.net.URL(url).openConnection();
    c.setConnectTimeout(10_000);
    c.setReadTimeout(30_000);
    try (InputStream in = c.getInputStream()) {
      assertEquals(200, c.getResponseCode(), url);
      assertTrue(String.valueOf(c.getContentType()).startsWith(type), url + ": " + c.getContentType());
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } finally {
      c.disconnect();
    }
  }

  @Test
  void scaleInWithBothCountAndContainerIsAUsageErrorAndChangesNothing() throws Exception {
    List<String> before = workerContainers(running);
    Result r = cli("scale-in", running.toString(), "-n", "1", "--container", before.get(0));
    r.assertOneLineError(EdlCli.USAGE, "mutually exclusive");
    assertEquals(before, workerContainers(running));
  }

  @Test
  void scaleOutBeyondTheMaximumPrintsTheAmsRefusal() throws Exception {
    EdlError refusal = null;
    try (JobControlConnection c = new JobControlLocator(CLUSTER.configuration(), CLUSTER.yarn())
        .connect(running.toString(), Duration.ofSeconds(30))) {
      c.control().scaleOut(MAX_WORKERS + 1, ScaleMode.EDL);
      fail("the AM accepted a scale-out beyond the job's maximum of " + MAX_WORKERS);
    } catch (EdlError e) {
      refusal = e;
    }
    Result r = cli("scale-out", running.toString(), "-n", String.valueOf(MAX_WORKERS + 1));
    r.assertOneLineError(EdlCli.USAGE, "refused: ", refusal.getMessage().strip());
    if (refusal.isSetField()) {
      assertTrue(r.err.contains(refusal.getField() + "=" + refusal.getValue()), r.err);
    }
    assertEquals(2, workerContainers(running).size(), "nothing changed");
  }

  @Test
  void withoutTheSecretFileTheMessageSaysWhoMayControlTheJob() throws Exception {
    Path secret = JobSecretFile.in(staging);
    Path away = new Path(staging, "moved-away");
    assertTrue(CLUSTER.fileSystem().rename(secret, away));
    try {
      Result r = cli("status", running.toString());
      r.assertOneLineError(EdlCli.FAILURE, "cannot read the job secret of " + running, secret.toString(),
          "not found", "only the user who submitted the job");
    } finally {
      assertTrue(CLUSTER.fileSystem().rename(away, secret));
    }
  }

  @Test
  void anotherUserCannotReadTheSecretAndIsToldWhoCan() throws Exception {
    UserGroupInformation mallory = UserGroupInformation.createRemoteUser("mallory");
    Result r = mallory.doAs((PrivilegedExceptionAction<Result>) () -> cli("status", running.toString()));
    r.assertOneLineError(EdlCli.FAILURE, JobSecretFile.in(staging).toUri().getPath(),
        "Permission denied: user=mallory", "only the user who submitted the job (" + UserGroupInformation.getCurrentUser().getShortUserName() + ")");
  }

  @Test
  void aWrongSecretIsRefusedWithoutAStackTrace() throws Exception {
    FileSystem fs = CLUSTER.fileSystem();
    Path secret = JobSecretFile.in(staging);
    byte[] original;
    try (InputStream in = fs.open(secret)) {
      original = in.readAllBytes();
    }
    fs.delete(secret, false);
    JobSecretFile.write(fs, staging, JobSecret.generate());
    try {
      Result r = cli("status", running.toString());
      r.assertOneLineError(EdlCli.FAILURE, "refused the job secret from " + secret);
    } finally {
      fs.delete(secret, false);
      JobSecretFile.write(fs, staging, JobSecret.of(original));
    }
    assertEquals(0, cli("status", running.toString()).code, "the right secret works again");
  }

  private static JobSpec longJob(int workers) {
    return JobSpec.builder().name("edl-control-test").model("softmax")
        .data("synthetic:samples=2048,features=8,classes=3,seed=5").format("auto").workers(workers)
        .minWorkers(workers).maxWorkers(MAX_WORKERS).gpusPerWorker(1).workerMemoryMb(512).workerVcores(1)
        .steps(100_000_000L).batchSize(64).batchRule(JobSpec.batchRuleOf("fixed-global")).learningRate(0.1)
        .hidden(8).seed(1).backend("cpu").build();
  }

  /** What the AM and YARN each say about a job's worker containers. */
  private record Containers(JobStatus am, int yarnWorkers) {}

  /** Polls until the AM and YARN both show {@code n} worker containers. */
  private static void awaitContainers(ApplicationId app, int n) throws Exception {
    Await.until(n + " worker containers of " + app, () -> {
      ApplicationReport report = CLUSTER.yarn().getApplicationReport(app);
      assertFalse(report.getYarnApplicationState().ordinal() > YarnApplicationState.RUNNING.ordinal(),
          "job ended: " + report.getDiagnostics());
      if (report.getYarnApplicationState() != YarnApplicationState.RUNNING) {
        return null;
      }
      try (JobControlConnection c = new JobControlLocator(CLUSTER.configuration(), CLUSTER.yarn())
          .connect(app.toString(), Duration.ofSeconds(30))) {
        return new Containers(c.control().status(), workerContainers(app).size());
      } catch (RuntimeException e) {
        return null; // the endpoint is published a moment after RUNNING
      }
    }, seen -> seen.am().getContainersSize() == n && seen.yarnWorkers() == n);
  }

  private static void awaitState(ApplicationId app, YarnApplicationState state) throws Exception {
    Await.until(app + " to reach " + state, () -> CLUSTER.yarn().getApplicationReport(app).getYarnApplicationState(),
        state::equals);
  }

  /** Running worker containers as YARN sees them (the AM's own container left out). */
  private static List<String> workerContainers(ApplicationId app) throws Exception {
    ApplicationReport report = CLUSTER.yarn().getApplicationReport(app);
    String am = CLUSTER.yarn().getApplicationAttemptReport(report.getCurrentApplicationAttemptId())
        .getAMContainerId().toString();
    List<String> ids = new ArrayList<>();
    for (ContainerReport c : CLUSTER.yarn().getContainers(report.getCurrentApplicationAttemptId())) {
      String id = c.getContainerId().toString();
      if (!id.equals(am) && c.getContainerState() == org.apache.hadoop.yarn.api.records.ContainerState.RUNNING) {
        ids.add(id);
      }
    }
    ids.sort(null);
    return ids;
  }

  private static Result cli(String... args) {
    List<String> a = new ArrayList<>(List.of(args));
    a.add(1, "--conf");
    a.add(2, CLUSTER.cluster().confDir().toString());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = EdlCli.execute(a.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private record Result(int code, String out, String err) {
    void assertOneLineError(int expectedCode, String... fragments) {
      assertEquals(expectedCode, code, "exit code; " + this);
      String line = err.strip();
      assertFalse(line.contains("\n"), "one line only, got: " + err);
      assertTrue(line.startsWith("edl: "), line);
      for (String f : fragments) {
        assertNotNull(f);
        assertTrue(line.contains(f), "'" + f + "' in: " + line);
      }
      assertFalse(err.contains("Exception") || err.contains("\tat ") || err.contains(" at org."),
          "no stack trace: " + err);
    }
  }
}
