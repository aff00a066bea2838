package org.edl.scheduler.rm;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairSchedulerConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad preemption settings stop a real ResourceManager while it initialises (before it binds a
 * port), with a message naming the key and the value.
 */
class PreemptionSettingsTest {
  @TempDir Path dir;

  private String refusal(String key, String value) throws Exception {
    Path alloc = dir.resolve("fair-scheduler.xml");
    Files.writeString(alloc, FairPluginOnResourceManagerTest.allocations("1.0", "drf"));
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(YarnConfiguration.RM_SCHEDULER, EdlFairScheduler.class.getName());
    conf.set(FairSchedulerConfiguration.ALLOCATION_FILE, alloc.toString());
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
    conf.set(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES,
        GpuFairPreemptionPolicy.class.getName());
    conf.set(key, value);
    ResourceManager rm = new ResourceManager();
    try {
      Exception e = assertThrows(Exception.class, () -> rm.init(conf));
      StringBuilder all = new StringBuilder();
      for (Throwable t = e; t != null; t = t.getCause()) {
        all.append(t.getMessage()).append(" | ");
      }
      return all.toString();
    } finally {
      rm.stop();
    }
  }

  @Test
  void aNegativeGracePeriodIsRefused() throws Exception {
    String m = refusal(GpuFairPreemptionPolicy.GRACE_MS, "-30000");
    assertTrue(m.contains(GpuFairPreemptionPolicy.GRACE_MS) && m.contains("-30000"), m);
  }

  @Test
  void aGracePeriodThatIsNoNumberIsRefused() throws Exception {
    String m = refusal(GpuFairPreemptionPolicy.GRACE_MS, "30s");
    assertTrue(m.contains(GpuFairPreemptionPolicy.GRACE_MS) && m.contains("'30s'"), m);
  }

  @Test
  void badElasticTiresiasSettingsAreRefused() throws Exception {
    String[][] bad = {
      {TiresiasSettings.QUEUE_LIMITS, "10000,500"},
      {TiresiasSettings.QUEUE_LIMITS, "500;10000"},
      {TiresiasSettings.WAITING_THRESHOLD, "-1"},
      {TiresiasSettings.MIN_FRACTION, "1.5"},
    };
    for (String[] b : bad) {
      String m = refusal(b[0], b[1]);
      assertTrue(m.contains(b[0]) && m.contains("'" + b[1] + "'"), m);
    }
  }

  @Test
  void fairSchedulerPreemptionOnIsRefused() throws Exception {
    String m = refusal(FairSchedulerConfiguration.PREEMPTION, "true");
    assertTrue(m.contains("yarn.scheduler.fair.preemption=false"), m);
  }
}
