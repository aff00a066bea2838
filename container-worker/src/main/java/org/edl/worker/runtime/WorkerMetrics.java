package org.edl.worker.runtime;

import static org.apache.hadoop.metrics2.lib.Interns.info;

import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsInfo;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.edl.worker.data.BatchSlicer;

/**
 * A worker's own figures as a Hadoop metrics2 source, record {@code EdlWorker} in context
 * {@code edl} (JMX: {@code Hadoop:service=EdlWorker,name=EdlWorker}): the step it trained last,
 * its switches and how long each stopped its training, its recoveries, and, on the leader, the
 * checkpoints and how long each took. It hears them as a {@link WorkerListener}.
 */
public final class WorkerMetrics implements WorkerListener, MetricsSource {
  public static final String SERVICE = "EdlWorker";
  public static final String RECORD = "EdlWorker";

  static final MetricsInfo STEP = info("Step", "The last step this worker trained");
  static final MetricsInfo RING_WORKERS = info("RingWorkers", "Workers in its ring after its last switch or recovery");
  static final MetricsInfo SWITCHES = info("Switches", "Topology switches it took part in");
  static final MetricsInfo SWITCH_STOP = info("LastSwitchStopSeconds", "How long its last switch stopped its training");
  static final MetricsInfo RECOVERIES = info("Recoveries", "Recoveries from failed members it carried out");
  static final MetricsInfo RECOVERY_SECONDS = info("LastRecoverySeconds", "How long its last recovery took");
  static final MetricsInfo CHECKPOINTS = info("Checkpoints", "Periodic checkpoints it wrote as leader");
  static final MetricsInfo CHECKPOINT_WRITE = info("LastCheckpointWriteSeconds", "How long its last checkpoint write took");
  static final MetricsInfo CHECKPOINT_BLOCKED = info("LastCheckpointBlockedSeconds",
      "How long training waited for its last checkpoint");
  static final MetricsInfo WORKER = info("Worker", "The worker's container id");

  private final String workerId;
  private volatile long step = -1;
  private volatile int ringWorkers;
  private volatile long switches;
  private volatile double switchStop;
  private volatile long recoveries;
  private volatile double recoverySeconds;
  private volatile long checkpoints;
  private volatile double checkpointWrite;
  private volatile double checkpointBlocked;

  public WorkerMetrics(String workerId) {
    this.workerId = workerId;
  }

  /** Registers with this JVM's metrics system (one worker per container JVM). */
  public WorkerMetrics register() {
    DefaultMetricsSystem.initialize(SERVICE).register(RECORD, "EDL worker " + workerId, this);
    return this;
  }

  @Override
  public void batchTrained(String id, long trained, BatchSlicer.Range positions, int[] samples) {
    step = trained;
  }

  @Override
  public synchronized void switched(String id, SwitchRecord record) {
    switches++;
    switchStop = (record.endNanos() - record.startNanos()) / 1e9;
    ringWorkers = record.workersAfter();
  }

  @Override
  public synchronized void recovered(String id, RecoveryRecord record) {
    recoveries++;
    recoverySeconds = record.seconds();
    ringWorkers = record.workers();
  }

  @Override
  public synchronized void checkpointed(String id, String path, long blockedNanos, long writeNanos) {
    checkpoints++;
    checkpointWrite = writeNanos / 1e9;
    checkpointBlocked = blockedNanos / 1e9;
  }

  @Override
  public synchronized void getMetrics(MetricsCollector collector, boolean all) {
    collector.addRecord(RECORD).setContext("edl").tag(WORKER, workerId)
        .addCounter(STEP, Math.max(0, step))
        .addGauge(RING_WORKERS, ringWorkers)
        .addCounter(SWITCHES, switches)
        .addGauge(SWITCH_STOP, switchStop)
        .addCounter(RECOVERIES, recoveries)
        .addGauge(RECOVERY_SECONDS, recoverySeconds)
        .addCounter(CHECKPOINTS, checkpoints)
        .addGauge(CHECKPOINT_WRITE, checkpointWrite)
        .addGauge(CHECKPOINT_BLOCKED, checkpointBlocked);
  }
}
