package org.edl.worker.coord;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobMeta;
import org.edl.thrift.JobProgress;
import org.edl.thrift.SyncReply;
import org.edl.thrift.SyncReport;
import org.edl.thrift.Topology;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.job.JobSpec;

/**
 * The leader's decisions, with no Thrift server, socket or lock in it: who is registered, which
 * ring is published (with its version), the job meta-data, and the per-batch reports. Not
 * thread-safe; {@link CoordinatorService} serialises calls. Time comes from an injected
 * {@link Ticker}.
 *
 * <p>Static topology (issue 3): registrations are collected until {@link JobSpec#workers()}
 * workers are known; then topology version 1 is published, ordered by worker id (the YARN
 * container id), so the ring does not depend on which worker happened to register first.
 * Version 0 is "no ring yet".
 */
public final class CoordinatorState {
  /** Steps of history used for the current samples/s. */
  private static final int RATE_WINDOW = 20;

  private final JobSpec spec;
  private final Ticker ticker;
  private final Map<String, WorkerInfo> registered = new LinkedHashMap<>();
  private Topology topology = new Topology(0, new ArrayList<>());
  private final JobMeta meta;
  private final TreeMap<Long, StepTally> openSteps = new TreeMap<>();
  private final Map<String, Double> lastBatchSeconds = new LinkedHashMap<>();
  /** (nanos, samplesSeen) at each completed step, newest last. */
  private final Deque<long[]> completions = new ArrayDeque<>();
  private Double firstLoss;
  private long firstCompletionNanos = -1;
  private long samplesAtFirstCompletion;

  public CoordinatorState(JobSpec spec, Ticker ticker) {
    this.spec = spec;
    this.ticker = ticker;
    this.meta = new JobMeta(0, 0, spec.batchRule(), spec.batchSize(), spec.learningRate());
    meta.setSamplesSeen(0);
  }

  /**
   * Records a worker. Registering again with the same id and address is harmless (a retried
   * call); the same id at another address, or a worker beyond the static ring, is refused.
   *
   * @return the topology now published (version 0 and an empty ring while still waiting)
   */
  public Topology register(WorkerInfo worker) throws EdlError {
    requireText("workerId", worker.getWorkerId());
    requireText("host", worker.getHost());
    if (worker.getDataPort() <= 0 || worker.getDataPort() > 65535) {
      throw error("dataPort", Integer.toString(worker.getDataPort()), "not a TCP port");
    }
    WorkerInfo known = registered.get(worker.getWorkerId());
    if (known != null) {
      if (known.getHost().equals(worker.getHost()) && known.getDataPort() == worker.getDataPort()) {
        return topology();
      }
      throw error("workerId", worker.getWorkerId(), "already registered at " + known.getHost() + ":"
          + known.getDataPort() + ", now from " + worker.getHost() + ":" + worker.getDataPort());
    }
    if (registered.size() >= spec.workers()) {
      throw error("workerId", worker.getWorkerId(), "the ring is static with " + spec.workers()
          + " workers; joining a running job comes with elastic scaling");
    }
    registered.put(worker.getWorkerId(), worker.deepCopy());
    if (registered.size() == spec.workers()) {
      List<WorkerInfo> ring = new ArrayList<>(registered.values());
      ring.sort(Comparator.comparing(WorkerInfo::getWorkerId));
      topology = new Topology(1, ring);
    }
    return topology();
  }

  public int registeredCount() {
    return registered.size();
  }

  /** A copy of the published topology. */
  public Topology topology() {
    return topology.deepCopy();
  }

  public long topologyVersion() {
    return topology.getVersion();
  }

  /** A copy of the job meta-data: step is the number of completed steps. */
  public JobMeta meta() {
    return meta.deepCopy();
  }

  /**
   * Records one worker's report for one batch. A step is complete when every member of the ring
   * reported it; its loss is the sample-weighted mean of the members' losses.
   */
  public SyncReply sync(SyncReport report) throws EdlError {
    String id = report.getWorkerId();
    if (!inRing(id)) {
      throw error("workerId", id, "not a member of topology version " + topology.getVersion());
    }
    long step = report.getStep();
    if (step < meta.getStep()) {
      throw error("step", Long.toString(step), "already completed (job is at step " + meta.getStep() + ")");
    }
    if (report.getSamples() < 0 || Double.isNaN(report.getBatchSeconds())) {
      throw error("samples", Integer.toString(report.getSamples()), "a report needs samples >= 0 and a batch time");
    }
    lastBatchSeconds.put(id, report.getBatchSeconds());
    StepTally tally = openSteps.computeIfAbsent(step, s -> new StepTally());
    tally.add(id, report);
    completeReadySteps();
    return new SyncReply();
  }

  /** True when every member reported {@code step}. */
  public boolean isComplete(long step) {
    return step < meta.getStep();
  }

  public Optional<Double> firstLoss() {
    return Optional.ofNullable(firstLoss);
  }

  /** The latest batch time each worker reported, for straggler detection later. */
  public Map<String, Double> lastBatchSeconds() {
    return Map.copyOf(lastBatchSeconds);
  }

  /** Samples per second over the last few completed steps; 0 before two steps completed. */
  public double recentSamplesPerSecond() {
    if (completions.size() < 2) {
      return 0;
    }
    long[] oldest = completions.peekFirst();
    long[] newest = completions.peekLast();
    return rate(newest[1] - oldest[1], newest[0] - oldest[0]);
  }

  /** Samples per second from the first completed step to the last. */
  public double overallSamplesPerSecond() {
    if (completions.isEmpty()) {
      return 0;
    }
    long[] newest = completions.peekLast();
    return rate(newest[1] - samplesAtFirstCompletion, newest[0] - firstCompletionNanos);
  }

  /** What the leader reports to the ApplicationMaster. */
  public JobProgress progress() {
    JobProgress p = new JobProgress(meta.getStep(), spec.steps(),
        meta.isSetLastLoss() ? meta.getLastLoss() : Double.NaN, recentSamplesPerSecond(),
        topology.getRingSize());
    p.setEpoch(meta.getEpoch());
    if (firstLoss != null) {
      p.setFirstLoss(firstLoss);
    }
    return p;
  }

  private void completeReadySteps() {
    int members = topology.getRingSize();
    while (!openSteps.isEmpty()) {
      Map.Entry<Long, StepTally> first = openSteps.firstEntry();
      // Steps complete in order: a later step cannot finish before an earlier one.
      if (first.getKey() != meta.getStep() || first.getValue().reporters.size() < members) {
        return;
      }
      openSteps.pollFirstEntry();
      StepTally t = first.getValue();
      double loss = t.samples == 0 ? Double.NaN : t.weightedLoss / t.samples;
      meta.setStep(meta.getStep() + 1);
      meta.setLastLoss(loss);
      meta.setSamplesSeen(meta.getSamplesSeen() + t.samples);
      if (firstLoss == null) {
        firstLoss = loss;
      }
      long now = ticker.nanos();
      if (firstCompletionNanos < 0) {
        firstCompletionNanos = now;
        samplesAtFirstCompletion = meta.getSamplesSeen();
      }
      completions.addLast(new long[] {now, meta.getSamplesSeen()});
      if (completions.size() > RATE_WINDOW) {
        completions.pollFirst();
      }
    }
  }

  private boolean inRing(String workerId) {
    for (WorkerInfo w : topology.getRing()) {
      if (w.getWorkerId().equals(workerId)) {
        return true;
      }
    }
    return false;
  }

  private static double rate(long samples, long nanos) {
    return nanos <= 0 ? 0 : samples * 1e9 / nanos;
  }

  private static void requireText(String field, String value) throws EdlError {
    if (value == null || value.isBlank()) {
      throw error(field, String.valueOf(value), "must not be empty");
    }
  }

  static EdlError error(String field, String value, String problem) {
    EdlError e = new EdlError(field + "=" + value + ": " + problem);
    e.setField(field);
    e.setValue(value);
    return e;
  }

  /** The reports for one step so far. */
  private static final class StepTally {
    final Set<String> reporters = new HashSet<>();
    double weightedLoss;
    long samples;

    void add(String id, SyncReport r) {
      if (reporters.add(id)) {
        weightedLoss += r.getLoss() * r.getSamples();
        samples += r.getSamples();
      }
    }
  }
}
