package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A worker's switches, recoveries and checkpoints reach JMX through Hadoop's metrics system. */
class WorkerMetricsTest {
  @AfterEach
  void unregister() {
    DefaultMetricsSystem.instance().unregisterSource(WorkerMetrics.RECORD);
  }

  @Test
  void whatTheWorkerDidIsReadableOverJmx() throws Exception {
    WorkerMetrics m = new WorkerMetrics("container_1_0001_01_000002");
    WorkerListener both = WorkerListener.both(WorkerListener.NONE, m);
    both.batchTrained("w", 41, null, new int[0]);
    both.switched("w", new SwitchRecord(3, 42, SwitchRecord.Role.BROADCASTER, 4, 5, 1_000_000_000L,
        1_250_000_000L, 0.1, 0.1));
    both.recovered("w", new RecoveryRecord(4, "consistent", List.of("c5"), 50, 41, 0, "checkpoint", "ckpt", 4,
        2_000_000_000L, 5_500_000_000L));
    both.checkpointed("w", "hdfs:///ckpt/1", 20_000_000L, 700_000_000L);
    both.batchTrained("w", 60, null, new int[0]);
    // JMX shows a snapshot, taken at registration and then at most every metrics period (10 s).
    m.register();

    MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    Set<ObjectName> names = jmx.queryNames(new ObjectName("Hadoop:name=" + WorkerMetrics.RECORD + ",*"), null);
    assertEquals(1, names.size(), names.toString());
    ObjectName bean = names.iterator().next();
    assertEquals(60L, jmx.getAttribute(bean, "Step"));
    assertEquals(4, jmx.getAttribute(bean, "RingWorkers"), "the recovery came last");
    assertEquals(1L, jmx.getAttribute(bean, "Switches"));
    assertEquals(0.25, jmx.getAttribute(bean, "LastSwitchStopSeconds"));
    assertEquals(1L, jmx.getAttribute(bean, "Recoveries"));
    assertEquals(3.5, jmx.getAttribute(bean, "LastRecoverySeconds"));
    assertEquals(1L, jmx.getAttribute(bean, "Checkpoints"));
    assertEquals(0.7, jmx.getAttribute(bean, "LastCheckpointWriteSeconds"));
    assertEquals(0.02, jmx.getAttribute(bean, "LastCheckpointBlockedSeconds"));
    assertEquals("container_1_0001_01_000002", jmx.getAttribute(bean, "tag.Worker"));
  }
}
