package org.edl.worker.coord;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.edl.thrift.Coordinator;
import org.edl.thrift.EdlError;
import org.edl.thrift.JobMeta;
import org.edl.thrift.JobProgress;
import org.edl.thrift.Registration;
import org.edl.thrift.SwitchOrder;
import org.edl.thrift.SyncReply;
import org.edl.thrift.SyncReport;
import org.edl.thrift.Topology;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.job.JobSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Thrift face of the leader. Every worker serves one; it answers only while its worker
 * leads ({@link #lead()}), and otherwise refuses with "not the leader". The decisions live in
 * {@link CoordinatorState}; this class adds the lock, the long poll of {@code awaitTopology}
 * and the waits the leader itself needs.
 */
public final class CoordinatorService implements Coordinator.Iface {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorService.class);
  private static final String ELASTIC_ONLY = " is not supported until elastic scaling (the topology is static)";

  private final JobSpec spec;
  private final Ticker ticker;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private CoordinatorState state;

  public CoordinatorService(JobSpec spec, Ticker ticker) {
    this.spec = spec;
    this.ticker = ticker;
  }

  /** This worker was elected: start answering with fresh job state. */
  public void lead() {
    lock.lock();
    try {
      if (state == null) {
        state = new CoordinatorState(spec, ticker);
        LOG.info("Coordinator active: waiting for {} workers to register", spec.workers());
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Leadership was lost: stop answering (waiters wake up and see it). */
  public void stepDown() {
    lock.lock();
    try {
      if (state != null) {
        LOG.warn("Coordinator stepped down at step {}", state.meta().getStep());
      }
      state = null;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  public boolean isLeading() {
    lock.lock();
    try {
      return state != null;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Registration registerWorker(WorkerInfo worker) throws EdlError {
    lock.lock();
    try {
      CoordinatorState s = leading();
      long before = s.topologyVersion();
      Topology t = s.register(worker);
      LOG.info("Registered {} at {}:{} ({} of {})", worker.getWorkerId(), worker.getHost(),
          worker.getDataPort(), s.registeredCount(), spec.workers());
      if (t.getVersion() != before) {
        LOG.info("Published topology v{}: {}", t.getVersion(), ringText(t));
        changed.signalAll();
      }
      return new Registration(t, s.meta());
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void ready(String workerId, long topologyVersion) throws EdlError {
    throw CoordinatorState.error("ready", workerId, "reporting ready" + ELASTIC_ONLY);
  }

  @Override
  public Topology awaitTopology(long afterVersion, int timeoutMs) throws TException {
    long deadline = ticker.nanos() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMs));
    lock.lock();
    try {
      while (true) {
        if (state == null) {
          // awaitTopology declares no EdlError; an application exception carries the message.
          throw new TApplicationException(TApplicationException.INTERNAL_ERROR, "not the leader");
        }
        if (state.topologyVersion() > afterVersion) {
          return state.topology();
        }
        long left = deadline - ticker.nanos();
        if (left <= 0) {
          return state.topology();
        }
        changed.awaitNanos(left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TApplicationException(TApplicationException.INTERNAL_ERROR, "interrupted");
    } finally {
      lock.unlock();
    }
  }

  @Override
  public SyncReply sync(SyncReport report) throws EdlError {
    lock.lock();
    try {
      CoordinatorState s = leading();
      long before = s.meta().getStep();
      SyncReply reply = s.sync(report);
      if (s.meta().getStep() != before) {
        changed.signalAll();
      }
      return reply;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public SwitchOrder leave(String workerId) throws EdlError {
    throw CoordinatorState.error("leave", workerId, "leaving a running job" + ELASTIC_ONLY);
  }

  @Override
  public void handOff(JobMeta meta, Topology topology, SwitchOrder pending) throws EdlError {
    throw CoordinatorState.error("handOff", String.valueOf(meta == null ? null : meta.getStep()),
        "handing leadership over" + ELASTIC_ONLY);
  }

  /**
   * Waits until every member reported {@code step} (the leader waits for the last step before
   * it writes the model and closes its server, so that no worker's last report is cut off).
   *
   * @return false on timeout or when this worker stopped leading
   */
  public boolean awaitStepComplete(long step, Duration timeout) throws InterruptedException {
    long deadline = ticker.nanos() + timeout.toNanos();
    lock.lock();
    try {
      while (state != null && !state.isComplete(step)) {
        long left = deadline - ticker.nanos();
        if (left <= 0) {
          return false;
        }
        changed.awaitNanos(left);
      }
      return state != null;
    } finally {
      lock.unlock();
    }
  }

  /** The progress report for the ApplicationMaster; empty when not leading. */
  public Optional<JobProgress> progress() {
    lock.lock();
    try {
      return state == null ? Optional.empty() : Optional.of(state.progress());
    } finally {
      lock.unlock();
    }
  }

  /** Whole-run figures for the metrics file; empty when not leading. */
  public Optional<RunSummary> summary() {
    lock.lock();
    try {
      if (state == null) {
        return Optional.empty();
      }
      JobMeta m = state.meta();
      return Optional.of(new RunSummary(m.getStep(), state.topology().getRingSize(),
          state.firstLoss().orElse(Double.NaN), m.isSetLastLoss() ? m.getLastLoss() : Double.NaN,
          state.overallSamplesPerSecond(), m.getSamplesSeen()));
    } finally {
      lock.unlock();
    }
  }

  /** What the leader knows about a finished (or finishing) run. */
  public record RunSummary(long steps, int workers, double firstLoss, double lastLoss,
      double samplesPerSecond, long samples) {}

  private CoordinatorState leading() throws EdlError {
    if (state == null) {
      throw CoordinatorState.error("coordinator", "this worker", "is not the leader");
    }
    return state;
  }

  static String ringText(Topology t) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < t.getRingSize(); i++) {
      WorkerInfo w = t.getRing().get(i);
      b.append(i == 0 ? "" : ", ").append(i).append('=').append(w.getWorkerId())
          .append('@').append(w.getHost()).append(':').append(w.getDataPort());
    }
    return "[" + b + "]";
  }
}
