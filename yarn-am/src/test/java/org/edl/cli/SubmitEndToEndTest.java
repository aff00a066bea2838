package org.edl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.SignalContainerCommand;
import org.edl.job.ModelOutput;
import org.edl.testing.YarnCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Whole jobs through {@code edl submit} on the embedded cluster: real AM, real worker
 * containers, real HDFS and ZooKeeper. One cluster for the class.
 */
class SubmitEndToEndTest {
  private static final Pattern APP_ID = Pattern.compile("application_\\d+_\\d+");
  private static final Pattern STEP = Pattern.compile("step (\\d+)/");

  @RegisterExtension
  static final YarnCluster CLUSTER = new YarnCluster();

  @Test
  void twoWorkerJobSucceedsWritesModelAndMetricsAndTheLossFalls() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = EdlCli.execute(args("--model", "softmax", "--workers", "2", "--steps", "40",
            "--data", "synthetic:samples=2048,features=8,classes=3,seed=5", "--batch-size", "64",
            "--learning-rate", "0.2"),
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    String text = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, code, "stdout: " + text + "\nstderr: " + err);

    ApplicationId appId = appIdIn(text);
    ApplicationReport report = CLUSTER.yarn().getApplicationReport(appId);
    assertEquals(FinalApplicationStatus.SUCCEEDED, report.getFinalApplicationStatus(), report.getDiagnostics());

    Path output = CLUSTER.home("edl/" + appId);
    assertTrue(CLUSTER.fileSystem().getFileStatus(new Path(output, "model.bin")).getLen() > 0, "model on HDFS");
    ModelOutput.Metrics metrics = ModelOutput.readMetrics(CLUSTER.configuration(), output.toString());
    assertTrue(metrics.lastLoss() < metrics.firstLoss(), "loss fell: " + metrics);
    assertTrue(text.contains(output.toString()), "the CLI says where the output is: " + text);
    assertFalse(CLUSTER.fileSystem().exists(CLUSTER.home(".edl/" + appId)),
        "the client deleted the staging directory (and the job secret in it) after the job ended");
    assertTheTrackingUrlLeadsToTheResourceManagersAppPage(appId);
  }

  /**
   * An ended job's page went with its AM, which unregistered without a tracking URL: the RM's proxy
   * then redirects to the RM's own page for the application. On the embedded cluster that redirect
   * once named port 0, the port the RM's web address had before it was bound.
   */
  private static void assertTheTrackingUrlLeadsToTheResourceManagersAppPage(ApplicationId appId) throws Exception {
    String tracking = CLUSTER.yarn().getApplicationReport(appId).getTrackingUrl();
    assertTrue(tracking.contains("/proxy/" + appId), tracking);
    HttpURLConnection proxy = (HttpURLConnection) URI.create(tracking).toURL().openConnection();
    proxy.setInstanceFollowRedirects(false);
    String location;
    try {
      assertEquals(HttpURLConnection.HTTP_MOVED_TEMP, proxy.getResponseCode(), tracking);
      location = proxy.getHeaderField("Location");
    } finally {
      proxy.disconnect();
    }
    assertNotNull(location, tracking + " redirects without a Location");
    int rmWebPort = URI.create(CLUSTER.cluster().resourceManagerWebUrl()).getPort();
    assertEquals(rmWebPort, URI.create(location).getPort(), tracking + " redirects to " + location);
    HttpURLConnection page = (HttpURLConnection) URI.create(location).toURL().openConnection();
    try (InputStream in = page.getInputStream()) {
      assertEquals(HttpURLConnection.HTTP_OK, page.getResponseCode(), location);
      String html = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(html.contains(appId.toString()), location + ": " + html);
    } finally {
      page.disconnect();
    }
  }

  @Test
  void withNoFailuresAllowedAWorkerKilledByTheAdministratorFailsTheJobNamingThatContainer() throws Exception {
    CompletableFuture<Void> training = new CompletableFuture<>();
    WatchingStream out = new WatchingStream(training);
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> EdlCli.execute(
        // No failure allowed: the first one fails the job (WorkerFailureEndToEndTest covers the rest).
        args("--model", "mlp", "--workers", "2", "--steps", "1000000", "--max-worker-failures", "0",
            "--data", "synthetic:samples=2048,features=8,classes=3,seed=5"),
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));

    training.get(4, TimeUnit.MINUTES);
    ApplicationId appId = appIdIn(out.text());
    ApplicationReport report = CLUSTER.yarn().getApplicationReport(appId);
    List<ContainerReport> containers = CLUSTER.yarn().getContainers(report.getCurrentApplicationAttemptId());
    String amContainer = CLUSTER.yarn().getApplicationAttemptReport(report.getCurrentApplicationAttemptId())
        .getAMContainerId().toString();
    ContainerReport victim = containers.stream()
        .filter(c -> !c.getContainerId().toString().equals(amContainer))
        .findFirst().orElseThrow();
    CLUSTER.yarn().signalToContainer(victim.getContainerId(), SignalContainerCommand.FORCEFUL_SHUTDOWN);

    int code = exit.get(3, TimeUnit.MINUTES);
    String text = out.text();
    assertNotEquals(0, code, text);
    ApplicationReport end = CLUSTER.yarn().getApplicationReport(appId);
    assertEquals(FinalApplicationStatus.FAILED, end.getFinalApplicationStatus());
    assertTrue(end.getDiagnostics().contains(victim.getContainerId().toString()), end.getDiagnostics());
    assertTrue(text.contains("Diagnostics: ") && text.contains(victim.getContainerId().toString()), text);
  }

  private static String[] args(String... extra) {
    List<String> a = new ArrayList<>(List.of("submit", "--conf", CLUSTER.cluster().confDir().toString(),
        "--worker-memory", "512", "--gpus-per-worker", "1"));
    a.addAll(List.of(extra));
    return a.toArray(String[]::new);
  }

  private static ApplicationId appIdIn(String text) {
    Matcher m = APP_ID.matcher(text);
    assertTrue(m.find(), "an application id in: " + text);
    return ApplicationId.fromString(m.group());
  }

  private static String read(Path p) throws Exception {
    try (InputStream in = CLUSTER.fileSystem().open(p)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }


  /** Collects the CLI's stdout and completes a future once it shows training past step 1. */
  private static final class WatchingStream extends OutputStream {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final CompletableFuture<Void> training;

    WatchingStream(CompletableFuture<Void> training) {
      this.training = training;
    }

    @Override
    public synchronized void write(int b) {
      bytes.write(b);
      if (b == '\r' || b == '\n') {
        check();
      }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      bytes.write(b, off, len);
      check();
    }

    synchronized String text() {
      return bytes.toString(StandardCharsets.UTF_8);
    }

    private void check() {
      Matcher m = STEP.matcher(bytes.toString(StandardCharsets.UTF_8));
      while (m.find()) {
        if (Long.parseLong(m.group(1)) >= 2) {
          training.complete(null);
        }
      }
    }
  }
}
