package org.edl.bench;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.am.LeaderWorkerRemoval;
import org.edl.client.JobControlConnection;
import org.edl.client.JobControlLocator;
import org.edl.client.SubmittedJob;
import org.edl.cluster.EmbeddedCluster;
import org.edl.cluster.EmbeddedClusterBuilder;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobStatus;
import org.edl.worker.data.SyntheticData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the benchmarks drive a job on the embedded cluster: through the AM's job-control endpoint as
 * the {@code edl} commands do, and the leader for a clean end. The cluster offers no notification
 * for "the leader reports n workers", so these poll.
 */
public final class BenchJob {
  private static final Logger LOG = LoggerFactory.getLogger(BenchJob.class);
  static final Duration POLL = Duration.ofMillis(100);
  static final Duration RPC_TIMEOUT = Duration.ofSeconds(60);

  private BenchJob() {}

  /** What a benchmark runs on the cluster: its configuration, clients and data file. */
  @FunctionalInterface
  public interface OnCluster<T> {
    T run(Configuration conf, YarnClient yarn, CuratorFramework zk, String data) throws Exception;
  }

  /**
   * Starts the embedded cluster (2 nodes x 4 {@code yarn.io/gpu}, HDFS, ZooKeeper), writes the
   * synthetic data set {@code dataSpec} as LIBSVM to {@code fileName} in the home directory on
   * HDFS, and runs {@code body} with a started YARN client and ZooKeeper client.
   */
  public static <T> T onEmbeddedCluster(String dataSpec, String fileName, PrintWriter out, OnCluster<T> body)
      throws Exception {
    return onEmbeddedCluster(EmbeddedCluster.builder(), dataSpec, fileName, out, body);
  }

  /** As {@link #onEmbeddedCluster(String, String, PrintWriter, OnCluster)}, with more of {@code builder} set. */
  public static <T> T onEmbeddedCluster(EmbeddedClusterBuilder builder, String dataSpec, String fileName,
      PrintWriter out, OnCluster<T> body) throws Exception {
    out.println("Starting the embedded cluster (2 nodes x 4 yarn.io/gpu, HDFS, ZooKeeper)...");
    out.flush();
    try (EmbeddedCluster cluster = builder.nodes(2).gpusPerNode(4).build().start()) {
      Configuration conf = cluster.configuration();
      FileSystem fs = FileSystem.get(conf);
      Path data = fs.makeQualified(new Path(fs.getHomeDirectory(), "edl-bench/" + fileName));
      try (OutputStream o = fs.create(data, true)) {
        SyntheticData.writeLibsvm(dataSpec, o);
      }
      try (YarnClient yarn = YarnClient.createYarnClient();
          CuratorFramework zk = CuratorFrameworkFactory.newClient(cluster.zkConnectString(),
              new ExponentialBackoffRetry(200, 10))) {
        yarn.init(conf);
        yarn.start();
        zk.start();
        return body.run(conf, yarn, zk, data.toString());
      }
    }
  }

  /** Waits for the AM to register, then connects as {@code edl scale-out} does. */
  public static JobControlConnection connect(Configuration conf, YarnClient yarn, SubmittedJob job) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    while (System.nanoTime() < deadline) {
      ApplicationReport r = yarn.getApplicationReport(job.appId());
      if (r.getYarnApplicationState() == YarnApplicationState.RUNNING && r.getRpcPort() > 0) {
        return new JobControlLocator(conf, yarn).connect(job.appId().toString(), RPC_TIMEOUT);
      }
      if (r.getYarnApplicationState().ordinal() > YarnApplicationState.RUNNING.ordinal()) {
        throw new IllegalStateException(job.appId() + " ended before it ran: " + r.getDiagnostics());
      }
      Thread.sleep(POLL.toMillis() * 2);
    }
    throw new IllegalStateException(job.appId() + " did not start its AM within 3 minutes");
  }

  /**
   * Waits until the leader reports {@code workers} workers and then {@code batches} more steps,
   * with the job RUNNING (no change under way); returns the last status seen.
   */
  public static JobStatus awaitSize(JobControl.Iface control, Duration timeout, int workers, int batches, String name)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    long firstStep = -1;
    while (System.nanoTime() < deadline) {
      JobStatus s = control.status();
      if (s.isSetProgress() && s.getProgress().getWorkers() == workers) {
        long step = s.getProgress().getStep();
        if (firstStep < 0) {
          firstStep = step;
        } else if (step >= firstStep + batches && s.getState() == org.edl.thrift.JobState.RUNNING) {
          // RUNNING too: the ring can show the new size while a leaver's container is still
          // exiting, and the AM refuses the next change until it has (found by a failed rerun).
          return s;
        }
      }
      switch (s.getState()) {
        case FAILED, KILLED, SUCCEEDED -> throw new IllegalStateException("[" + name + "] job ended while waiting for "
            + workers + " workers: " + s.getState() + " " + s.getDiagnostics());
        default -> { }
      }
      Thread.sleep(POLL.toMillis());
    }
    throw new IllegalStateException("[" + name + "] the job did not train " + batches + " batches with "
        + workers + " workers within " + timeout);
  }

  /** One line for the console: the job's state, workers and step. */
  public static String describe(JobControl.Iface control) throws Exception {
    JobStatus s = control.status();
    return s.getState() + (s.isSetProgress() ? ", " + s.getProgress().getWorkers() + " workers at step "
        + s.getProgress().getStep() : "") + ", target " + s.getTargetWorkers();
  }

  /** Ends the job cleanly so that every worker writes its timeline: a final stop-for-restart. */
  public static void endJob(CuratorFramework zk, SubmittedJob job) throws Exception {
    String dir = job.spec().output() + "/bench-end";
    LeaderWorkerRemoval.callLeader(zk, job.appId().toString(), job.secret(), RPC_TIMEOUT,
        "ending the benchmark job", leader -> leader.stopForRestart(dir));
  }

  public static ApplicationReport awaitFinished(YarnClient yarn, SubmittedJob job) throws Exception {
    while (true) {
      ApplicationReport r = yarn.getApplicationReport(job.appId());
      YarnApplicationState s = r.getYarnApplicationState();
      if (s == YarnApplicationState.FINISHED || s == YarnApplicationState.FAILED || s == YarnApplicationState.KILLED) {
        LOG.info("{} ended: {} {}", job.appId(), r.getFinalApplicationStatus(), r.getDiagnostics());
        return r;
      }
      Thread.sleep(POLL.toMillis() * 5);
    }
  }
}
