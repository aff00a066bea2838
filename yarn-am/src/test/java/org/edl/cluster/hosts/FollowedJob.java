package org.edl.cluster.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.thrift.TDeserializer;
import org.apache.thrift.protocol.TCompactProtocol;
import org.edl.client.JobControlConnection;
import org.edl.client.JobControlLocator;
import org.edl.job.JobPaths;
import org.edl.job.ModelOutput;
import org.edl.testing.Await;
import org.edl.testing.UserShell.Ran;
import org.edl.testing.UserShell.Running;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.edl.thrift.LeaderRecord;

/**
 * A job being followed. Its control connection stays open between polls, as a follower's does:
 * opening one reads the job's secret from HDFS, and after a host is lost every new HDFS client
 * first tries the lost DataNode.
 */
final class FollowedJob {
  static final Duration TIMEOUT = Duration.ofMinutes(8);

  private final String id;
  private final Running client;
  private final String output;
  private final long steps;
  private final int batch;
  private final Configuration conf;
  private final YarnClient yarn;
  private final String zooKeeperConnect;
  private JobControlConnection am;

  /** @param client the terminal that submitted it, following it to its end */
  FollowedJob(String id, Running client, String output, long steps, int batch, Configuration conf, YarnClient yarn,
      String zooKeeperConnect) {
    this.id = id;
    this.client = client;
    this.output = output;
    this.steps = steps;
    this.batch = batch;
    this.conf = conf;
    this.yarn = yarn;
    this.zooKeeperConnect = zooKeeperConnect;
  }

  String output() {
    return output;
  }

  String id() {
    return id;
  }

  JobStatus status() throws Exception {
    if (am == null) {
      am = new JobControlLocator(conf, yarn).connect(id, Duration.ofSeconds(30));
    }
    try {
      return am.control().status();
    } catch (Exception e) {
      am.close();
      am = null;
      throw e;
    }
  }

  String amHost() throws Exception {
    return yarn.getApplicationReport(ApplicationId.fromString(id)).getHost();
  }

  /**
   * Until the leader reports a ring of at least {@code members} that no longer holds
   * {@code container}, whatever the AM's state.
   */
  JobStatus awaitRingWithout(String container, int members) {
    return Await.until("a ring without " + container, this::status, s -> s.isSetProgress()
        && s.getProgress().isSetMembers() && !s.getProgress().getMembers().contains(container)
        && s.getProgress().getMembersSize() >= members, TIMEOUT, Duration.ofMillis(100));
  }

  JobStatus await(String what, Predicate<JobStatus> done) {
    return Await.until(what, this::status, s -> s.getState() == JobState.RUNNING && s.isSetProgress() && done.test(s),
        TIMEOUT, Duration.ofMillis(250));
  }

  /** The leader, as it last published itself in ZooKeeper. */
  String leader() throws Exception {
    try (CuratorFramework zk = CuratorFrameworkFactory.newClient(zooKeeperConnect,
        new ExponentialBackoffRetry(200, 5))) {
      zk.start();
      LeaderRecord record = new LeaderRecord();
      new TDeserializer(new TCompactProtocol.Factory()).deserialize(record, zk.getData().forPath(JobPaths.job(id)));
      return record.getLeaderId();
    }
  }

  /** SUCCEEDED with its model at the last step, each step's samples counted once, {@code failures} counted. */
  /** The next status opens a new connection (to the AM attempt the application report names). */
  void disconnect() {
    if (am != null) {
      am.close();
      am = null;
    }
  }

  void awaitSucceeded(int failures) throws Exception {
    disconnect();
    Ran followed = client.awaitExit(TIMEOUT);
    assertTrue(followed.output().contains(id + " SUCCEEDED"), followed.output());
    ApplicationReport end = yarn.getApplicationReport(ApplicationId.fromString(id));
    assertEquals(FinalApplicationStatus.SUCCEEDED, end.getFinalApplicationStatus(), end.getDiagnostics());
    assertTrue(failures == 0 ? !end.getDiagnostics().contains("worker failures")
        : end.getDiagnostics().contains("worker failures: " + failures + " of"), end.getDiagnostics());
    try (FileSystem fs = FileSystem.newInstance(conf)) {
      assertTrue(fs.getFileStatus(new org.apache.hadoop.fs.Path(output, ModelOutput.MODEL_FILE)).getLen() > 0);
    }
    ModelOutput.Metrics metrics = ModelOutput.readMetrics(conf, output);
    assertEquals(steps, metrics.steps(), metrics.toString());
    assertEquals(steps * batch, metrics.samplesSeen(), metrics.toString());
    assertEquals(Optional.empty(), ModelOutput.verify(conf, output, steps));
  }
}
