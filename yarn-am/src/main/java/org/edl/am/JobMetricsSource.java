package org.edl.am;

import static org.apache.hadoop.metrics2.lib.Interns.info;

import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsInfo;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.MetricsSystem;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobProgress;
import org.edl.thrift.JobStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's figures as a Hadoop metrics2 source, record {@code EdlJob} in context {@code edl}: so
 * they reach JMX ({@code Hadoop:service=EdlApplicationMaster,name=EdlJob}) and any sink the
 * cluster's {@code hadoop-metrics2.properties} configures, like every other Hadoop daemon's. Read
 * from the job-control endpoint's own status when a sink or JMX asks.
 */
public final class JobMetricsSource implements MetricsSource {
  private static final Logger LOG = LoggerFactory.getLogger(JobMetricsSource.class);
  public static final String SERVICE = "EdlApplicationMaster";
  public static final String RECORD = "EdlJob";

  static final MetricsInfo STEP = info("Step", "Steps trained (the leader's last report)");
  static final MetricsInfo TOTAL_STEPS = info("TotalSteps", "Steps the job trains in all");
  static final MetricsInfo SAMPLES_PER_SECOND = info("SamplesPerSecond", "Recent training throughput");
  static final MetricsInfo SAMPLES_SEEN = info("SamplesSeen", "Samples trained so far");
  static final MetricsInfo RING_WORKERS = info("RingWorkers", "Workers in the ring the leader reports");
  static final MetricsInfo TARGET_WORKERS = info("TargetWorkers", "Workers the job wants now");
  static final MetricsInfo CONTAINERS = info("Containers", "Worker containers the AM holds");
  static final MetricsInfo FAILED_WORKERS = info("FailedWorkers", "Workers declared failed so far");
  static final MetricsInfo RING_VERSION = info("RingVersion", "Version of the ring: grows with every membership change");
  static final MetricsInfo LEADER_EPOCH = info("LeaderEpoch", "The leadership's epoch: grows with every new leader");
  static final MetricsInfo STATE = info("State", "The job's state");
  static final MetricsInfo APP_ID = info("ApplicationId", "The YARN application");

  private final JobControl.Iface control;

  JobMetricsSource(JobControl.Iface control) {
    this.control = control;
  }

  /** Registers with the JVM's metrics system, which it starts under {@link #SERVICE} if nobody has. */
  static JobMetricsSource register(JobControl.Iface control, String appId) {
    MetricsSystem ms = DefaultMetricsSystem.initialize(SERVICE);
    JobMetricsSource source = new JobMetricsSource(control);
    ms.register(RECORD, "EDL job " + appId, source);
    return source;
  }

  static void unregister() {
    try {
      DefaultMetricsSystem.instance().unregisterSource(RECORD);
    } catch (RuntimeException e) {
      LOG.debug("metrics: {}", e.toString());
    }
  }

  @Override
  public void getMetrics(MetricsCollector collector, boolean all) {
    JobStatus s;
    try {
      s = control.status();
    } catch (Exception e) {
      LOG.debug("metrics: no job status ({})", e.toString());
      return;
    }
    MetricsRecordBuilder r = collector.addRecord(RECORD).setContext("edl")
        .tag(APP_ID, s.getAppId()).tag(STATE, s.getState().name())
        .addGauge(TARGET_WORKERS, s.getTargetWorkers())
        .addGauge(CONTAINERS, s.getContainersSize());
    if (s.isSetProgress()) {
      JobProgress p = s.getProgress();
      r.addCounter(STEP, p.getStep())
          .addGauge(TOTAL_STEPS, p.getTotalSteps())
          .addGauge(SAMPLES_PER_SECOND, p.getSamplesPerSecond())
          .addCounter(SAMPLES_SEEN, p.isSetSamplesSeen() ? p.getSamplesSeen() : 0)
          .addGauge(RING_WORKERS, p.getWorkers())
          .addCounter(FAILED_WORKERS, p.isSetFailed() ? p.getFailedSize() : 0)
          .addCounter(RING_VERSION, p.isSetTopologyVersion() ? p.getTopologyVersion() : 0)
          .addCounter(LEADER_EPOCH, p.isSetLeaderEpoch() ? p.getLeaderEpoch() : 0);
    }
  }
}
