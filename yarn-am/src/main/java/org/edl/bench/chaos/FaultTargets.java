package org.edl.bench.chaos;

import java.util.List;
import java.util.Random;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.thrift.TDeserializer;
import org.apache.thrift.protocol.TCompactProtocol;
import org.edl.client.SubmittedJob;
import org.edl.job.JobPaths;
import org.edl.thrift.JobStatus;
import org.edl.thrift.LeaderRecord;

/**
 * Which container a fault hits, decided when it happens: the leader as it last published itself
 * in ZooKeeper, a follower among the AM's containers, or the AM's own container.
 */
final class FaultTargets {
  /**
   * The leader's record, written with Thrift's compact protocol whenever the ring, the newest
   * checkpoint or the fenced workers change (docs/architecture.md): {@code /edl/<appId>/job}.
   */
  static String leaderRecordPath(String appId) {
    return JobPaths.job(appId);
  }

  private final YarnClient yarn;
  private final CuratorFramework zk;
  private final SubmittedJob job;
  private final Random random;

  /** {@code random}: which follower; seeded by the run so a rerun picks alike where it can. */
  FaultTargets(YarnClient yarn, CuratorFramework zk, SubmittedJob job, Random random) {
    this.yarn = yarn;
    this.zk = zk;
    this.job = job;
    this.random = random;
  }

  /**
   * The container a fault of this kind hits now.
   *
   * @param last the AM's last status, for its containers
   * @throws IllegalStateException no such container now (no follower, no leader record)
   */
  String victim(Fault.Kind kind, JobStatus last) throws Exception {
    return switch (kind) {
      case KILL_LEADER, PAUSE_LEADER -> leader();
      case KILL_WORKER, PAUSE_WORKER -> follower(last);
      case KILL_AM -> amContainer();
    };
  }

  String leader() throws Exception {
    LeaderRecord record = new LeaderRecord();
    new TDeserializer(new TCompactProtocol.Factory()).deserialize(record,
        zk.getData().forPath(leaderRecordPath(job.appId().toString())));
    return record.getLeaderId();
  }

  String follower(JobStatus last) throws Exception {
    if (last == null) {
      throw new IllegalStateException("the AM has not reported its containers");
    }
    String leader = leader();
    List<String> followers = last.getContainers().stream().filter(c -> !c.equals(leader)).sorted().toList();
    if (followers.isEmpty()) {
      throw new IllegalStateException("no container but the leader " + leader + " among " + last.getContainers());
    }
    return followers.get(random.nextInt(followers.size()));
  }

  String amContainer() throws Exception {
    ApplicationReport report = yarn.getApplicationReport(job.appId());
    return yarn.getApplicationAttemptReport(report.getCurrentApplicationAttemptId()).getAMContainerId().toString();
  }
}
