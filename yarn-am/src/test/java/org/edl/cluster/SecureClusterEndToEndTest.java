package org.edl.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerReport;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.edl.am.JvmOptions;
import org.edl.bench.ContainerProcesses;
import org.edl.cli.EdlCli;
import org.edl.job.ModelOutput;
import org.edl.testing.Await;
import org.edl.testing.YarnCluster;
import org.edl.worker.runtime.PeriodicCheckpoints;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A secure embedded cluster (MiniKdc; every service logs in with Kerberos): a user submits with
 * a keytab from a JVM of their own, as {@code edl --principal ... --keytab ... submit} does, and
 * the job's HDFS delegation tokens live only {@value #RENEW_MS} ms unless renewed. A worker is
 * killed after two such lifetimes, so its replacement starts on tokens that YARN must have
 * renewed; the job succeeds with its checkpoints and model written.
 */
class SecureClusterEndToEndTest {
  private static final long RENEW_MS = 6_000;

  @RegisterExtension
  static final YarnCluster CLUSTER = new YarnCluster(b -> b.kerberos(true).tokenRenewIntervalMs(RENEW_MS));

  @Test
  void aJobSubmittedWithAKeytabOutlivesItsDelegationTokensAndWritesItsCheckpoints() throws Exception {
    EmbeddedKdc kdc = CLUSTER.cluster().kerberos().orElseThrow();
    assertTrue(UserGroupInformation.isSecurityEnabled());
    // 250 emulated cifar10 steps take 15 s or more whatever the machine (the profile's step time,
    // slept): the job still trains at two token lifetimes, and its replacement has a few
    // checkpoints left to write.
    Client client = Client.start(kdc, "--conf", CLUSTER.cluster().confDir().toString(),
        "--principal", kdc.userPrincipal(), "--keytab", kdc.userKeytab().toString(),
        "submit", "--name", "secure-e2e", "--backend", "emulated", "--model", "cifar10", "--workers", "2",
        "--steps", "250", "--batch-size", "64", "--gpus-per-worker", "1", "--worker-memory", "512",
        "--checkpoint-every-batches", "50", "--recovery", "consistent", "--grow", "off");
    long submitted = System.currentTimeMillis();
    ApplicationId app = Await.until("the client to submit", client::appId, id -> id != null);
    ApplicationReport training = Await.until("the job to train", () -> CLUSTER.yarn().getApplicationReport(app),
        r -> r.getYarnApplicationState() == YarnApplicationState.RUNNING && r.getProgress() > 0
            || r.getYarnApplicationState() == YarnApplicationState.FAILED);
    assertEquals(YarnApplicationState.RUNNING, training.getYarnApplicationState(), training.getDiagnostics());

    long twoLifetimes = submitted + 2 * RENEW_MS;
    Thread.sleep(Math.max(0, twoLifetimes - System.currentTimeMillis()));
    ApplicationReport running = CLUSTER.yarn().getApplicationReport(app);
    assertEquals(YarnApplicationState.RUNNING, running.getYarnApplicationState(),
        "still training two token lifetimes after submission: " + running.getDiagnostics() + "\n" + client.out());
    String victim = aWorker(running);
    ContainerProcesses processes = new ContainerProcesses();
    processes.kill(processes.find(victim));

    assertTrue(client.process.waitFor(6, TimeUnit.MINUTES), "the client to follow the job to its end");
    String out = client.out();
    assertEquals(0, client.process.exitValue(), out);
    assertTrue(out.contains(app + " SUCCEEDED"), out);
    ApplicationReport end = CLUSTER.yarn().getApplicationReport(app);
    assertTrue(end.getDiagnostics().contains("worker failures: 1 of"), "the killed worker was replaced: "
        + end.getDiagnostics());
    assertEquals(kdc.userPrincipal().substring(0, kdc.userPrincipal().indexOf('@')), end.getUser());

    String output = "/user/" + end.getUser() + "/edl/" + app;
    FileSystem fs = CLUSTER.fileSystem();
    assertTrue(fs.getFileStatus(new Path(output, ModelOutput.MODEL_FILE)).getLen() > 0);
    assertEquals(end.getUser(), fs.getFileStatus(new Path(output, ModelOutput.MODEL_FILE)).getOwner(),
        "written with the user's tokens");
    assertFalse(List.of(fs.listStatus(new Path(PeriodicCheckpoints.directoryUnder(output)))).isEmpty(),
        "checkpoints in " + output);
  }

  /** A worker's container (not the AM's) of the running attempt. */
  private static String aWorker(ApplicationReport report) throws Exception {
    List<ContainerReport> containers = CLUSTER.yarn().getContainers(report.getCurrentApplicationAttemptId());
    return containers.stream().map(c -> c.getContainerId().toString())
        .filter(id -> !id.endsWith("_000001")).sorted().reduce((a, b) -> b).orElseThrow();
  }

  /** The EDL client in a JVM of its own (the cluster's services own this JVM's Kerberos login). */
  private record Client(Process process, ByteArrayOutputStream stdout) {
    static Client start(EmbeddedKdc kdc, String... args) throws IOException {
      List<String> command = new ArrayList<>(List.of(
          java.nio.file.Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m"));
      command.addAll(JvmOptions.addOpens());
      command.add("-Djava.security.krb5.conf=" + kdc.krb5Conf());
      command.addAll(List.of("-cp", System.getProperty("java.class.path"), EdlCli.class.getName()));
      command.addAll(List.of(args));
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      Thread reader = new Thread(() -> copy(p.getInputStream(), out), "secure-client-output");
      reader.setDaemon(true);
      reader.start();
      return new Client(p, out);
    }

    private static void copy(InputStream in, ByteArrayOutputStream out) {
      try {
        in.transferTo(new java.io.OutputStream() {
          @Override
          public void write(int b) {
            synchronized (out) {
              out.write(b);
            }
          }

          @Override
          public void write(byte[] b, int off, int len) {
            synchronized (out) {
              out.write(b, off, len);
            }
          }
        });
      } catch (IOException closed) {
        // the client exited
      }
    }

    String out() {
      synchronized (stdout) {
        return stdout.toString(StandardCharsets.UTF_8);
      }
    }

    ApplicationId appId() {
      Matcher m = Pattern.compile("Submitted (application_\\d+_\\d+)").matcher(out());
      if (m.find()) {
        return ApplicationId.fromString(m.group(1));
      }
      if (!process.isAlive()) {
        throw new AssertionError("the client exited " + process.exitValue() + " before submitting:\n" + out());
      }
      return null;
    }
  }
}
