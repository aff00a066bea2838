package org.edl.worker.coord.rpc;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.thrift.TDeserializer;
import org.apache.thrift.TException;
import org.apache.thrift.TSerializer;
import org.apache.thrift.protocol.TCompactProtocol;
import org.edl.job.JobSpec;
import org.edl.job.rpc.WireEnums;
import org.edl.thrift.EdlError;
import org.edl.thrift.FinishReply;
import org.edl.thrift.HeartbeatReply;
import org.edl.thrift.JobMeta;
import org.edl.thrift.JobProgress;
import org.edl.thrift.LeaderRecord;
import org.edl.thrift.RecoveryMode;
import org.edl.thrift.RecoveryOrder;
import org.edl.thrift.Registration;
import org.edl.thrift.StopOrder;
import org.edl.thrift.SwitchOrder;
import org.edl.thrift.SyncReply;
import org.edl.thrift.SyncReport;
import org.edl.thrift.Topology;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.coord.Admission;
import org.edl.worker.coord.CheckpointRef;
import org.edl.worker.coord.CoordinatorState;
import org.edl.worker.coord.FinishAnswer;
import org.edl.worker.coord.HeartbeatAnswer;
import org.edl.worker.coord.JobOutput;
import org.edl.worker.coord.JobPosition;
import org.edl.worker.coord.JobRecord;
import org.edl.worker.coord.LeaderProgress;
import org.edl.worker.coord.Member;
import org.edl.worker.coord.MemberRing;
import org.edl.worker.coord.RecoveryPlan;
import org.edl.worker.coord.Refused;
import org.edl.worker.coord.StepReport;
import org.edl.worker.coord.StopPlan;
import org.edl.worker.coord.SwitchPlan;
import org.edl.worker.coord.SyncAnswer;

/**
 * The one place where the coordinator's values meet Thrift: each record to and from the struct
 * that carries it over the wire or into ZooKeeper. Nothing inside {@link CoordinatorState} sees a
 * Thrift type.
 */
public final class Wire {
  private Wire() {}

  /** Whether {@code workerId} is in {@code t}'s ring. */
  public static boolean contains(Topology t, String workerId) {
    return t.getRing().stream().anyMatch(w -> w.getWorkerId().equals(workerId));
  }

  public static Member member(WorkerInfo w) {
    return new Member(w.getWorkerId(), w.getHost(), w.getDataPort(), w.isSetGpuIndex() ? w.getGpuIndex() : -1,
        nodeOf(w), scriptPortOf(w));
  }

  public static WorkerInfo workerInfo(Member m) {
    WorkerInfo w = new WorkerInfo(m.id(), m.host(), m.dataPort());
    if (m.gpuIndex() >= 0) {
      w.setGpuIndex(m.gpuIndex());
    }
    if (!m.node().equals(m.host())) {
      w.setNode(m.node());
    }
    if (m.scriptPort() > 0) {
      w.setScriptPort(m.scriptPort());
    }
    return w;
  }

  /** The port of {@code w}'s script's rendezvous store; -1 for a worker that runs no script. */
  public static int scriptPortOf(WorkerInfo w) {
    return w.isSetScriptPort() ? w.getScriptPort() : -1;
  }

  /** The node {@code w} runs on: its NodeManager's id, or its host from a worker that sent none. */
  public static String nodeOf(WorkerInfo w) {
    return w.isSetNode() && !w.getNode().isBlank() ? w.getNode() : w.getHost();
  }

  public static MemberRing ring(Topology t) {
    return new MemberRing(t.getVersion(), t.getRing().stream().map(Wire::member).toList());
  }

  public static Topology topology(MemberRing r) {
    return new Topology(r.version(), new ArrayList<>(r.members().stream().map(Wire::workerInfo).toList()));
  }

  public static JobPosition position(JobMeta m) {
    return new JobPosition(m.getStep(), m.getEpoch(), m.isSetSamplesSeen() ? m.getSamplesSeen() : 0,
        m.isSetFinishedChunks() ? m.getFinishedChunksSize() : 0, m.isSetLastLoss() ? m.getLastLoss() : Double.NaN);
  }

  public static JobMeta meta(JobPosition p, JobSpec spec) {
    JobMeta m = new JobMeta(p.step(), p.dataEpoch(), WireEnums.toWire(spec.training().batchRule()),
        spec.training().batchSize(), spec.training().learningRate());
    m.setSamplesSeen(p.samplesSeen());
    List<Integer> chunks = new ArrayList<>(p.finishedChunks());
    for (int i = 0; i < p.finishedChunks(); i++) {
      chunks.add(i);
    }
    m.setFinishedChunks(chunks);
    if (!Double.isNaN(p.lastLoss())) {
      m.setLastLoss(p.lastLoss());
    }
    return m;
  }

  public static SwitchOrder switchOrder(SwitchPlan p) {
    SwitchOrder o = new SwitchOrder(p.version(), p.atStep());
    o.setTopology(topology(p.next()));
    o.setJoiners(new ArrayList<>(p.joiners()));
    o.setLeavers(new ArrayList<>(p.leavers()));
    if (p.broadcasterId() != null) {
      o.setBroadcasterId(p.broadcasterId());
    }
    o.setLeaderLeaves(p.leaderLeaves());
    if (p.awaitedJoiners() > 0) {
      o.setAwaitedJoiners(p.awaitedJoiners());
    }
    o.setLeaderEpoch(p.leaderEpoch());
    if (p.joinerShare() < 1) {
      o.setJoinerShare(p.joinerShare());
    }
    return o;
  }

  public static SwitchPlan switchPlan(SwitchOrder o) {
    return new SwitchPlan(o.getAtStep(), o.isSetTopology() ? ring(o.getTopology()) : new MemberRing(o.getTopologyVersion(),
        List.of()), o.isSetJoiners() ? o.getJoiners() : List.of(), o.isSetLeavers() ? o.getLeavers() : List.of(),
        o.getBroadcasterId(), o.isLeaderLeaves(), o.isSetAwaitedJoiners() ? o.getAwaitedJoiners() : 0,
        o.isSetLeaderEpoch() ? o.getLeaderEpoch() : 0, joinerShareOf(o));
  }

  /** The order's joiner share; an absent or impossible one means even parts. */
  public static double joinerShareOf(SwitchOrder o) {
    double s = o.isSetJoinerShare() ? o.getJoinerShare() : 1;
    return s > 0 && s <= 1 ? s : 1;
  }

  public static StopOrder stopOrder(StopPlan p) {
    StopOrder o = new StopOrder(p.atStep(), p.directory());
    o.setLeaderEpoch(p.leaderEpoch());
    return o;
  }

  public static RecoveryOrder recoveryOrder(RecoveryPlan p) {
    RecoveryOrder o = new RecoveryOrder(p.version());
    o.setTopology(topology(p.ring()));
    o.setMode(switch (p.mode()) {
      case CONSISTENT -> RecoveryMode.CONSISTENT;
      case APPROXIMATE -> RecoveryMode.APPROXIMATE;
      case RESUME -> RecoveryMode.RESUME;
    });
    o.setFailed(new ArrayList<>(p.failed()));
    o.setNextStep(p.nextStep());
    o.setBatchStart(p.batchStart());
    if (p.checkpoint() != null) {
      o.setCheckpoint(p.checkpoint());
    }
    if (p.sourceId() != null) {
      o.setSourceId(p.sourceId());
    }
    o.setLeaderEpoch(p.leaderEpoch());
    return o;
  }

  public static StepReport stepReport(SyncReport r) {
    StepReport.Builder b = StepReport.of(r.getWorkerId(), r.getStep(), r.getLoss(), r.getBatchSeconds(),
        r.getSamples());
    if (r.isSetBatchStart()) {
      b.batchStart(r.getBatchStart());
    }
    if (r.isSetEpochSize()) {
      b.epochSize(r.getEpochSize());
    }
    if (r.isSetComputeSeconds()) {
      b.computeSeconds(r.getComputeSeconds());
    }
    if (r.isSetLeaderEpoch()) {
      b.leaderEpoch(r.getLeaderEpoch());
    }
    return b.build();
  }

  public static SyncReply syncReply(SyncAnswer a, long leaderEpoch) {
    SyncReply reply = new SyncReply();
    a.pending().ifPresent(r -> reply.setPendingTopology(topology(r)));
    a.order().ifPresent(o -> reply.setSwitchOrder(switchOrder(o)));
    a.stop().ifPresent(s -> reply.setStopOrder(stopOrder(s)));
    if (a.recover()) {
      reply.setRecover(true);
    }
    reply.setLeaderEpoch(leaderEpoch);
    return reply;
  }

  public static Registration registration(Admission a, JobSpec spec, long leaderEpoch) {
    Registration r = new Registration(topology(a.ring()), meta(a.position(), spec));
    r.setPending(a.pending());
    r.setLeaderEpoch(leaderEpoch);
    if (a.retryAfterMs() > 0) {
      r.setRetryAfterMs(a.retryAfterMs());
    }
    return r;
  }

  public static HeartbeatReply heartbeatReply(HeartbeatAnswer a) {
    HeartbeatReply r = new HeartbeatReply(a.leaderEpoch());
    r.setAbandonRing(a.abandonRing());
    r.setFenced(a.fenced());
    a.ahead().ifPresent(o -> r.setSwitchOrder(switchOrder(o)));
    return r;
  }

  public static FinishReply finishReply(FinishAnswer a, long leaderEpoch) {
    FinishReply r = new FinishReply(leaderEpoch);
    r.setDone(a.done());
    r.setRecover(a.recover());
    if (a.output() != null) {
      r.setModelPath(a.output().modelPath());
    }
    return r;
  }

  public static JobProgress progress(LeaderProgress p) {
    JobProgress j = new JobProgress(p.step(), p.totalSteps(), p.loss(), p.samplesPerSecond(), p.workers());
    j.setEpoch(p.dataEpoch());
    j.setSamplesSeen(p.samplesSeen());
    if (!Double.isNaN(p.leaderSeconds())) {
      j.setLeaderSeconds(p.leaderSeconds());
    }
    if (!Double.isNaN(p.firstLoss())) {
      j.setFirstLoss(p.firstLoss());
    }
    if (!p.events().isEmpty()) {
      j.setEvents(new ArrayList<>(p.events()));
    }
    j.setLeaderEpoch(p.leaderEpoch());
    j.setTopologyVersion(p.topologyVersion());
    j.setMembers(new ArrayList<>(p.members()));
    j.setFailed(new ArrayList<>(p.failed()));
    j.setPhase(p.phase().name());
    if (p.output() != null) {
      j.setModelPath(p.output().modelPath());
      j.setMetricsPath(p.output().metricsPath());
    }
    return j;
  }

  public static EdlError error(Refused r) {
    EdlError e = new EdlError(r.getMessage());
    e.setField(r.field());
    e.setValue(r.value());
    return e;
  }

  public static LeaderRecord leaderRecord(JobRecord r, JobSpec spec) {
    LeaderRecord l = new LeaderRecord(r.leaderId(), topology(r.ring()), meta(r.position(), spec));
    l.setLeaderEpoch(r.leaderEpoch());
    if (r.checkpoint() != null) {
      l.setCheckpoint(r.checkpoint().path());
      l.setCheckpointMeta(meta(r.checkpoint().at(), spec));
    }
    l.setInitialMeta(meta(r.initial(), spec));
    l.setFenced(new ArrayList<>(r.fenced()));
    if (r.pending() != null) {
      l.setPending(switchOrder(r.pending()));
    }
    l.setStragglerRuns(new HashMap<>(r.stragglerRuns()));
    if (!Double.isNaN(r.firstLoss())) {
      l.setFirstLoss(r.firstLoss());
    }
    l.setDeparted(r.departed());
    if (r.output() != null) {
      l.setModelPath(r.output().modelPath());
      l.setMetricsPath(r.output().metricsPath());
    }
    if (r.stoppedInto() != null) {
      l.setStoppedInto(r.stoppedInto());
    }
    if (r.stop() != null) {
      l.setStop(stopOrder(r.stop()));
    }
    if (!r.joinOrders().isEmpty()) {
      Map<String, SwitchOrder> orders = new HashMap<>();
      r.joinOrders().forEach((id, p) -> orders.put(id, switchOrder(p)));
      l.setJoinOrders(orders);
    }
    return l;
  }

  public static JobRecord jobRecord(LeaderRecord l) {
    return new JobRecord(l.getLeaderId(), l.isSetLeaderEpoch() ? l.getLeaderEpoch() : 0, ring(l.getTopology()),
        position(l.getMeta()), l.isSetCheckpoint() && l.isSetCheckpointMeta()
            ? new CheckpointRef(l.getCheckpoint(), position(l.getCheckpointMeta())) : null,
        l.isSetInitialMeta() ? position(l.getInitialMeta()) : JobPosition.START,
        l.isSetFenced() ? l.getFenced() : List.of(), l.isSetPending() ? switchPlan(l.getPending()) : null,
        l.isSetStragglerRuns() ? l.getStragglerRuns() : Map.of(), l.isSetFirstLoss() ? l.getFirstLoss() : Double.NaN,
        l.isDeparted(), l.isSetModelPath() ? new JobOutput(l.getModelPath(), l.getMetricsPath()) : null,
        l.getStoppedInto(), l.isSetStop() ? new StopPlan(l.getStop().getAtStep(), l.getStop().getDirectory(),
            l.getStop().isSetLeaderEpoch() ? l.getStop().getLeaderEpoch() : 0) : null,
        joinOrders(l));
  }

  private static Map<String, SwitchPlan> joinOrders(LeaderRecord l) {
    Map<String, SwitchPlan> orders = new HashMap<>();
    if (l.isSetJoinOrders()) {
      l.getJoinOrders().forEach((id, o) -> orders.put(id, switchPlan(o)));
    }
    return orders;
  }

  /** The record as ZooKeeper holds it (Thrift compact protocol). */
  public static byte[] bytes(JobRecord r, JobSpec spec) {
    try {
      return new TSerializer(new TCompactProtocol.Factory()).serialize(leaderRecord(r, spec));
    } catch (TException e) {
      throw new IllegalStateException("cannot serialise the leader record: " + e, e);
    }
  }

  public static JobRecord jobRecord(byte[] bytes) {
    try {
      LeaderRecord l = new LeaderRecord();
      new TDeserializer(new TCompactProtocol.Factory()).deserialize(l, bytes);
      return jobRecord(l);
    } catch (TException e) {
      throw new IllegalStateException("cannot read the leader record: " + e, e);
    }
  }
}
