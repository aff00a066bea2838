package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.job.WorkerEnv;
import org.edl.job.BatchRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkerMainTest {
  @TempDir
  Path dir;

  @Test
  void aMissingJobFileIsNamed() {
    FileNotFoundException e = assertThrows(FileNotFoundException.class,
        () -> WorkerMain.readSpec(dir.resolve(WorkerEnv.JOB_SPEC_FILE)));
    assertTrue(e.getMessage().contains("job.properties"), e.getMessage());
  }

  @Test
  void aMissingEnvironmentVariableIsNamed() {
    Map<String, String> env = Map.of(WorkerEnv.APP_ID, "application_1_0001", WorkerEnv.CONTAINER_ID, "c1",
        WorkerEnv.NM_HOST, "h1");
    InvalidInputException e = assertThrows(InvalidInputException.class, () -> WorkerConfig.fromEnvironment(
        env, spec(), JobSecret.generate(), new Configuration()));
    assertEquals(WorkerEnv.ZK_CONNECT, e.field());
  }

  @Test
  void theCheckpointToRestoreFromComesFromTheEnvironment() {
    Map<String, String> env = Map.of(WorkerEnv.APP_ID, "application_1_0001", WorkerEnv.CONTAINER_ID, "c1",
        WorkerEnv.NM_HOST, "h1", WorkerEnv.ZK_CONNECT, "zk:2181",
        WorkerEnv.RESTORE_FROM, " hdfs:///edl/ckpt/application_1_0001 ");
    WorkerConfig config = WorkerConfig.fromEnvironment(env, spec(), JobSecret.generate(), new Configuration());
    assertEquals("hdfs:///edl/ckpt/application_1_0001", config.restoreFrom());
    env = Map.of(WorkerEnv.APP_ID, "application_1_0001", WorkerEnv.CONTAINER_ID, "c1",
        WorkerEnv.NM_HOST, "h1", WorkerEnv.ZK_CONNECT, "zk:2181");
    assertEquals(null, WorkerConfig.fromEnvironment(env, spec(), JobSecret.generate(), new Configuration())
        .restoreFrom(), "no variable: a fresh start");
  }

  /** The secret comes from the container's token file without logging in to Hadoop security. */
  @Test
  void theSecretIsReadFromTheContainersTokenFile() throws Exception {
    JobSecret secret = JobSecret.generate();
    org.apache.hadoop.security.Credentials credentials = new org.apache.hadoop.security.Credentials();
    credentials.addSecretKey(new org.apache.hadoop.io.Text(JobSecret.CREDENTIALS_KEY), secret.bytes());
    java.nio.file.Path file = dir.resolve("container_tokens");
    credentials.writeTokenStorageFile(new org.apache.hadoop.fs.Path(file.toUri()), new Configuration(false));
    assertEquals(secret, WorkerMain.readSecret(file.toString()));
    org.apache.hadoop.security.Credentials none = new org.apache.hadoop.security.Credentials();
    java.nio.file.Path empty = dir.resolve("no_secret");
    none.writeTokenStorageFile(new org.apache.hadoop.fs.Path(empty.toUri()), new Configuration(false));
    assertEquals(JobSecret.CREDENTIALS_KEY, assertThrows(InvalidInputException.class,
        () -> WorkerMain.readSecret(empty.toString())).field());
  }

  @Test
  void theWorkersNodeIsItsNodeManagersHostAndPort() {
    Map<String, String> env = Map.of(WorkerEnv.APP_ID, "application_1_0001", WorkerEnv.CONTAINER_ID, "c1",
        WorkerEnv.NM_HOST, "localhost", WorkerEnv.NM_PORT, "40123", WorkerEnv.ZK_CONNECT, "zk:2181");
    WorkerConfig config = WorkerConfig.fromEnvironment(env, spec(), JobSecret.generate(), new Configuration());
    assertEquals("localhost", config.host(), "peers still connect to the host");
    assertEquals("localhost:40123", config.node());
    Map<String, String> noPort = Map.of(WorkerEnv.APP_ID, "application_1_0001", WorkerEnv.CONTAINER_ID, "c1",
        WorkerEnv.NM_HOST, "h1", WorkerEnv.ZK_CONNECT, "zk:2181");
    assertEquals("h1", WorkerConfig.fromEnvironment(noPort, spec(), JobSecret.generate(), new Configuration()).node());
  }

  /** The host's directory comes from the NodeManager's admin environment; the job can still say TCP. */
  @Test
  void ringsShareMemoryInDevShmUnlessTheHostOrTheJobSaysOtherwise() {
    Map<String, String> env = Map.of(WorkerEnv.APP_ID, "application_1_0001", WorkerEnv.CONTAINER_ID, "c1",
        WorkerEnv.NM_HOST, "h1", WorkerEnv.ZK_CONNECT, "zk:2181");
    WorkerConfig plain = WorkerConfig.fromEnvironment(env, spec(), JobSecret.generate(), new Configuration());
    assertEquals(java.nio.file.Path.of("/dev/shm"), plain.ringSharedMemoryDir());
    Map<String, String> elsewhere = new java.util.HashMap<>(env);
    elsewhere.put(WorkerEnv.SHARED_MEMORY_DIR, "/run/edl-shm");
    assertEquals(java.nio.file.Path.of("/run/edl-shm"),
        WorkerConfig.fromEnvironment(elsewhere, spec(), JobSecret.generate(), new Configuration()).ringSharedMemoryDir());
    elsewhere.put(WorkerEnv.SHARED_MEMORY_DIR, "none");
    assertEquals(null,
        WorkerConfig.fromEnvironment(elsewhere, spec(), JobSecret.generate(), new Configuration()).ringSharedMemoryDir());
    JobSpec tcp = spec().toBuilder().ringTransport("tcp").build();
    assertEquals(null, WorkerConfig.fromEnvironment(env, tcp, JobSecret.generate(), new Configuration())
        .ringSharedMemoryDir(), "--ring-transport tcp wins over the host's directory");
  }

  @Test
  void aRelaunchSetsTheFirstRingSizeThroughTheEnvironment() {
    JobSpec job = JobSpec.builder().name("t").model("softmax")
        .data("synthetic:samples=64,features=4,classes=3,seed=1").format("auto").workers(2).minWorkers(1)
        .maxWorkers(4).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(10).batchSize(12)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).hidden(8).seed(7).backend("cpu")
        .output("file:///tmp/x").build();
    Map<String, String> env = Map.of(WorkerEnv.APP_ID, "application_1_0001", WorkerEnv.CONTAINER_ID, "c1",
        WorkerEnv.NM_HOST, "h1", WorkerEnv.ZK_CONNECT, "zk:2181", WorkerEnv.FIRST_RING_WORKERS, "3");
    assertEquals(3, WorkerConfig.fromEnvironment(env, job, JobSecret.generate(),
        new Configuration()).spec().scale().workers());
    Map<String, String> bad = Map.of(WorkerEnv.APP_ID, "application_1_0001", WorkerEnv.CONTAINER_ID, "c1",
        WorkerEnv.NM_HOST, "h1", WorkerEnv.ZK_CONNECT, "zk:2181", WorkerEnv.FIRST_RING_WORKERS, "three");
    org.edl.job.InvalidInputException e = org.junit.jupiter.api.Assertions.assertThrows(
        org.edl.job.InvalidInputException.class,
        () -> WorkerConfig.fromEnvironment(bad, job, JobSecret.generate(), new Configuration()));
    org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("EDL_FIRST_RING_WORKERS"), e.getMessage());
  }

  @Test
  void approximateRecoveryAndTheSessionTimeoutComeFromTheContainersEnvironment() {
    Map<String, String> base = Map.of(WorkerEnv.APP_ID, "application_1_0001", WorkerEnv.CONTAINER_ID, "c1",
        WorkerEnv.NM_HOST, "h1", WorkerEnv.ZK_CONNECT, "zk:2181");
    WorkerConfig plain = WorkerConfig.fromEnvironment(base, spec(), JobSecret.generate(), new Configuration());
    assertEquals(org.edl.job.Recovery.Mode.CONSISTENT, plain.spec().recovery().mode());
    assertEquals(WorkerConfig.DEFAULT_ZK_SESSION_TIMEOUT, plain.zkSessionTimeout());

    Map<String, String> env = new java.util.HashMap<>(base);
    env.put(org.edl.job.Recovery.APPROXIMATE_ENV, "1");
    env.put(WorkerEnv.ZK_SESSION_TIMEOUT_MS, "2500");
    WorkerConfig config = WorkerConfig.fromEnvironment(env, spec(), JobSecret.generate(), new Configuration());
    assertEquals(org.edl.job.Recovery.Mode.APPROXIMATE, config.spec().recovery().mode(),
        "USE_APPX_RECOVERY=1 wins over the spec's consistent");
    assertEquals(java.time.Duration.ofMillis(2500), config.zkSessionTimeout());

    env.put(WorkerEnv.ZK_SESSION_TIMEOUT_MS, "soon");
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> WorkerConfig.fromEnvironment(env, spec(), JobSecret.generate(), new Configuration()));
    assertEquals(WorkerEnv.ZK_SESSION_TIMEOUT_MS, e.field());
  }

  private static JobSpec spec() {
    return JobSpec.builder().name("t").model("softmax")
        .data("synthetic:samples=64,features=4,classes=3,seed=1").format("auto").workers(1).minWorkers(1)
        .maxWorkers(1).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(10).batchSize(12)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).hidden(8).seed(7).backend("cpu")
        .output("file:///tmp/x").build();
  }

  @Test
  void theCauseLineKeepsTheInnermostReason() {
    Exception e = new IOException("joining the job failed", new IllegalStateException("wrong job secret"));
    assertEquals("joining the job failed (caused by IllegalStateException: wrong job secret)",
        WorkerMain.causeLine(e));
  }
}
