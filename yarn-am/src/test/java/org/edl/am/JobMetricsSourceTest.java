package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobProgress;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.edl.thrift.ProfileResult;
import org.edl.thrift.ScaleMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The job's figures reach JMX through Hadoop's metrics system, as an admin's tools read them. */
class JobMetricsSourceTest {
  @AfterEach
  void unregister() {
    JobMetricsSource.unregister();
  }

  @Test
  void theJobsFiguresAreHadoopMetricsReadableOverJmx() throws Exception {
    JobProgress p = new JobProgress(1200, 5000, 0.5, 2310.5, 3);
    p.setSamplesSeen(76_800);
    p.setFailed(List.of("container_1_0001_01_000004"));
    p.setTopologyVersion(4);
    p.setLeaderEpoch(2);
    JobStatus status = new JobStatus("application_1_0001", JobState.RUNNING, 3, List.of("c2", "c3", "c5"));
    status.setProgress(p);
    JobMetricsSource.register(new FixedStatus(status), "application_1_0001");

    MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    Set<ObjectName> names = jmx.queryNames(new ObjectName("Hadoop:name=" + JobMetricsSource.RECORD + ",*"), null);
    assertEquals(1, names.size(), names.toString());
    ObjectName bean = names.iterator().next();
    assertEquals(1200L, jmx.getAttribute(bean, "Step"));
    assertEquals(2310.5, jmx.getAttribute(bean, "SamplesPerSecond"));
    assertEquals(76_800L, jmx.getAttribute(bean, "SamplesSeen"));
    assertEquals(3, jmx.getAttribute(bean, "RingWorkers"));
    assertEquals(3, jmx.getAttribute(bean, "TargetWorkers"));
    assertEquals(1, jmx.getAttribute(bean, "FailedWorkers"));
    assertEquals(4L, jmx.getAttribute(bean, "RingVersion"));
    assertEquals("RUNNING", jmx.getAttribute(bean, "tag.State"));
    assertEquals("application_1_0001", jmx.getAttribute(bean, "tag.ApplicationId"));
  }

  /** A job-control endpoint that only answers status, with a fixed one. */
  private record FixedStatus(JobStatus status) implements JobControl.Iface {
    @Override
    public JobStatus status() {
      return status;
    }

    @Override
    public void reportProgress(JobProgress progress) {
      throw new UnsupportedOperationException();
    }

    @Override
    public JobStatus scaleOut(int count, ScaleMode mode) {
      throw new UnsupportedOperationException();
    }

    @Override
    public JobStatus scaleIn(int count, List<String> containerIds, ScaleMode mode) {
      throw new UnsupportedOperationException();
    }

    @Override
    public JobStatus migrate(String fromHost, String toHost) {
      throw new UnsupportedOperationException();
    }

    @Override
    public ProfileResult profile(int minWorkers, int maxWorkers, int batches) {
      throw new UnsupportedOperationException();
    }
  }
}
