package org.edl.worker.runtime;

import java.io.FileNotFoundException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.edl.job.ContainerLogging;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.job.ShippedConfiguration;
import org.edl.job.WorkerEnv;
import org.edl.worker.data.BatchSlicer;
import org.edl.worker.gpu.ContainerGpus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker container's main class ({@link WorkerEnv#MAIN_CLASS}). Thin on purpose: read the
 * environment, the localised {@code job.properties} and the secret from the YARN credentials,
 * run a {@link Worker}, and turn the outcome into an exit status. On failure one line naming
 * the cause goes to stderr, whose tail YARN puts into the container's diagnostics.
 */
public final class WorkerMain {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerMain.class);

  private WorkerMain() {}

  public static void main(String[] args) {
    ContainerLogging.ensureConfigured();
    int status;
    try {
      status = run();
    } catch (FencedException e) {
      LOG.error("Worker fenced out of the job", e);
      System.err.println("EDL worker " + System.getenv(WorkerEnv.CONTAINER_ID) + " was declared failed: "
          + causeLine(e));
      status = WorkerEnv.EXIT_FENCED;
    } catch (Throwable t) {
      LOG.error("Worker failed", t);
      System.err.println("EDL worker " + System.getenv(WorkerEnv.CONTAINER_ID) + " failed: " + causeLine(t));
      status = WorkerEnv.EXIT_FAILED;
    }
    System.exit(status);
  }

  static int run() throws Exception {
    JobSpec spec = readSpec(Path.of(WorkerEnv.JOB_SPEC_FILE));
    JobSecret secret = readSecret();
    WorkerConfig config = WorkerConfig.fromEnvironment(System.getenv(), spec, secret,
        ShippedConfiguration.load(Path.of("")));
    // Held until the process ends: the kernel releases the node's claim then, however it ends.
    try (ContainerGpus.Held gpus = ContainerGpus.acquire(System.getenv(), spec.resources().gpusPerWorker(),
        ContainerGpus.PROC_CGROUP, ContainerGpus.CLAIM_WAIT)) {
      return run(config.withGpus(gpus.devices()));
    }
  }

  private static int run(WorkerConfig config) throws Exception {
    JobSpec spec = config.spec();
    // Only where asked for: copying it to HDFS at the end holds the container, and its GPU, ~2 s.
    Timeline timeline = spec.timeline() ? new Timeline() : null;
    String how = "failed";
    long nextStep = -1;
    float[] parameters = null;
    boolean left = false;
    WorkerMetrics metrics = new WorkerMetrics(config.workerId());
    WorkerListener listeners = WorkerListener.both(
        WorkerListener.both(timeline == null ? WorkerListener.NONE : timeline, metrics),
        WorkerListener.both(publishAfterFirstBatch(metrics), ClassArchiveMaker.forThisJvm()));
    try (Worker worker = new Worker(config, ExecutionContext.FROM_SPEC, listeners)) {
      Worker.Outcome outcome = worker.run();
      how = outcome.ending().name().toLowerCase(java.util.Locale.ROOT);
      nextStep = outcome.nextStep();
      parameters = outcome.parameters();
      left = outcome.left();
    } finally {
      if (timeline != null) {
        timeline.ended(nextStep, how, parameters);
        writeTimeline(timeline, config);
        timeline.close();
      }
    }
    return left ? WorkerEnv.EXIT_LEFT : WorkerEnv.EXIT_OK;
  }

  /**
   * Starting Hadoop's metrics system takes 0.7 s of CPU here (commons-configuration, JMX). Begun
   * at start-up, even on a thread of its own, it took that from the registration and the
   * context on a loaded two-core host while a newcomer's GPU idled; the metrics count from the
   * first event either way, so they are published once the worker has trained a batch.
   */
  private static WorkerListener publishAfterFirstBatch(WorkerMetrics metrics) {
    AtomicBoolean started = new AtomicBoolean();
    return new WorkerListener() {
      @Override
      public void batchTrained(String workerId, long step, BatchSlicer.Range positions, int[] samples) {
        if (started.compareAndSet(false, true)) {
          Thread t = new Thread(() -> {
            try {
              metrics.register();
            } catch (RuntimeException e) {
              LOG.warn("Worker metrics not published: {}", e.toString());
            }
          }, "edl-metrics-register");
          t.setDaemon(true);
          t.start();
        }
      }
    };
  }

  /** Best effort: a timeline that cannot be written must not turn a good run into a failure. */
  private static void writeTimeline(Timeline timeline, WorkerConfig config) {
    try {
      LOG.info("Timeline written to {}", timeline.write(config.spec().output(), config.workerId(), config.hadoopConf()));
    } catch (Exception e) {
      LOG.warn("Could not write the timeline to {}: {}", config.spec().output(), e.toString());
    }
  }

  static JobSpec readSpec(Path file) throws Exception {
    if (!Files.isRegularFile(file)) {
      throw new FileNotFoundException("job specification " + file.toAbsolutePath()
          + " was not localised into the container");
    }
    try (InputStream in = Files.newInputStream(file)) {
      return JobSpec.read(in);
    }
  }

  static JobSecret readSecret() throws Exception {
    return readSecret(System.getenv(UserGroupInformation.HADOOP_TOKEN_FILE_LOCATION));
  }

  /**
   * The job secret from the container's token file, read directly: logging in through
   * {@code UserGroupInformation} costs 0.7-1.3 s on these machines and nothing on the way to
   * registering needs it (HDFS logs in on first use, off that path). Without the file (a worker
   * started by hand), the current user's credentials.
   */
  static JobSecret readSecret(String tokenFile) throws Exception {
    Credentials credentials = tokenFile == null || tokenFile.isBlank()
        ? UserGroupInformation.getCurrentUser().getCredentials()
        : Credentials.readTokenStorageFile(new java.io.File(tokenFile), new Configuration(false));
    byte[] key = credentials.getSecretKey(new Text(JobSecret.CREDENTIALS_KEY));
    if (key == null) {
      throw new InvalidInputException(JobSecret.CREDENTIALS_KEY, null,
          "no job secret in the container's credentials (the AM must add it to the launch context)");
    }
    return JobSecret.of(key);
  }

  /** The innermost message worth showing, with the exception kinds on the way. */
  static String causeLine(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String top = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    if (root == t) {
      return top;
    }
    String inner = root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    return top.contains(String.valueOf(root.getMessage())) ? top : top + " (caused by " + inner + ")";
  }
}
