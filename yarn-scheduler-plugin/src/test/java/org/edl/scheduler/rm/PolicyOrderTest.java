package org.edl.scheduler.rm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.Schedulable;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The two comparators over plain Schedulables (queues for users, apps inside a user). */
class PolicyOrderTest {

  @BeforeAll
  static void gpusAreAResourceType() {
    Configuration conf = new YarnConfiguration();
    conf.set(YarnConfiguration.RESOURCE_TYPES, ResourceInformation.GPU_URI);
    ResourceUtils.resetResourceTypes(conf);
  }

  private record Fake(String name, long gpus, long memory, float weight, int priority,
      long start) implements Schedulable {
    @Override public String getName() { return name; }
    @Override public Resource getDemand() { return Resource.newInstance(0, 0); }
    @Override public Resource getResourceUsage() {
      Resource r = Resource.newInstance(memory, 1);
      r.setResourceValue(ResourceInformation.GPU_URI, gpus);
      return r;
    }
    @Override public Resource getMinShare() { return Resource.newInstance(0, 0); }
    @Override public Resource getMaxShare() { return Resource.newInstance(1 << 20, 1 << 10); }
    @Override public float getWeight() { return weight; }
    @Override public long getStartTime() { return start; }
    @Override public Priority getPriority() { return Priority.newInstance(priority); }
    @Override public void updateDemand() {}
    @Override public Resource assignContainer(FSSchedulerNode node) { return null; }
    @Override public Resource getFairShare() { return Resource.newInstance(0, 0); }
    @Override public void setFairShare(Resource fairShare) {}
    @Override public boolean isPreemptable() { return true; }
  }

  private static List<String> sorted(java.util.Comparator<Schedulable> c, Fake... fakes) {
    List<Schedulable> l = new ArrayList<>(List.of(fakes));
    l.sort(c);
    return l.stream().map(Schedulable::getName).toList();
  }

  /**
   * GPUs held / weight: carol 6/2 = 3, dave 2/1 = 2, erin 0/1 = 0 (but lots of memory), frank
   * 4/0.5 = 8. Order erin, dave, carol, frank; memory plays no part while GPUs differ.
   */
  @Test
  void usersByGpusHeldRelativeToWeight() {
    var policy = new UserFairPolicy();
    assertEquals(List.of("erin", "dave", "carol", "frank"), sorted(policy.getComparator(),
        new Fake("carol", 6, 1024, 2f, 1, 0), new Fake("dave", 2, 1024, 1f, 1, 0),
        new Fake("erin", 0, 1 << 16, 1f, 1, 0), new Fake("frank", 4, 1024, 0.5f, 1, 0)));
  }

  /**
   * Nobody holds GPUs (a CPU-only queue): memory held relative to weight decides, as the stock
   * fair policy would: gina 2048/2 = 1024 before hank 1536/1 = 1536; ties by name (ida, jo).
   */
  @Test
  void equallyStarvedUsersByMemoryRelativeToWeightThenName() {
    var policy = new UserFairPolicy();
    assertEquals(List.of("gina", "hank", "ida", "jo"), sorted(policy.getComparator(),
        new Fake("jo", 0, 4096, 1f, 1, 0), new Fake("hank", 0, 1536, 1f, 1, 0),
        new Fake("ida", 0, 4096, 1f, 1, 0), new Fake("gina", 0, 2048, 2f, 1, 0)));
  }

  /** Within a user: priority 5 before 1; equal priorities by submit time. */
  @Test
  void appsByPriorityThenSubmitTime() {
    var policy = new AppOrderPolicy();
    assertEquals(List.of("urgent", "early", "late"), sorted(policy.getComparator(),
        new Fake("late", 0, 0, 1f, 1, 200), new Fake("early", 0, 0, 1f, 1, 100),
        new Fake("urgent", 0, 0, 1f, 5, 300)));
  }
}
