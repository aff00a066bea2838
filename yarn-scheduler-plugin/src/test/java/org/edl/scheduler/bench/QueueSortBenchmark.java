package org.edl.scheduler.bench;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.Schedulable;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.SchedulingPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.DominantResourceFairnessPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.FairSharePolicy;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.edl.scheduler.rm.UserFairPolicy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One scheduling pass's ordering work: sorting 1,000 user queues with the parent queue's
 * comparator, as FSParentQueue does before offering a node. {@code edl} is {@link
 * UserFairPolicy}; {@code drf} and {@code fair} are the stock policies it is measured against.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class QueueSortBenchmark {
  static final int USERS = 1_000;

  @Param({"edl", "drf", "fair"})
  public String impl;

  private Schedulable[] queues;
  private Comparator<Schedulable> comparator;

  /** A user queue as the comparators see it. */
  record UserQueue(String name, Resource usage, Resource demand, Resource minShare,
      Resource fairShare, float weight) implements Schedulable {
    @Override public String getName() { return name; }
    @Override public Resource getDemand() { return demand; }
    @Override public Resource getResourceUsage() { return usage; }
    @Override public Resource getMinShare() { return minShare; }
    @Override public Resource getMaxShare() { return Resource.newInstance(Long.MAX_VALUE, Integer.MAX_VALUE); }
    @Override public float getWeight() { return weight; }
    @Override public long getStartTime() { return 0; }
    @Override public Priority getPriority() { return Priority.newInstance(1); }
    @Override public void updateDemand() {}
    @Override public Resource assignContainer(FSSchedulerNode node) { return null; }
    @Override public Resource getFairShare() { return fairShare; }
    @Override public void setFairShare(Resource r) {}
    @Override public boolean isPreemptable() { return true; }
  }

  /** DRF needs the cluster's size; an unstarted scheduler that reports 1,000 8-GPU nodes. */
  static final class SizedScheduler extends FairScheduler {
    private final Resource cluster = gpus(Resource.newInstance(1_000L * 256 * 1024, 1_000 * 64), 8_000);

    @Override
    public Resource getClusterResource() {
      return cluster;
    }
  }

  static Resource gpus(Resource r, long gpus) {
    r.setResourceValue(ResourceInformation.GPU_URI, gpus);
    return r;
  }

  @Setup
  public void setUp() {
    Configuration conf = new YarnConfiguration();
    conf.set(YarnConfiguration.RESOURCE_TYPES, ResourceInformation.GPU_URI);
    ResourceUtils.resetResourceTypes(conf);
    Random rnd = new Random(1);
    queues = new Schedulable[USERS];
    for (int i = 0; i < USERS; i++) {
      int held = rnd.nextInt(17);
      queues[i] = new UserQueue("root.users.u" + i,
          gpus(Resource.newInstance(held * 8192L, held * 4), held),
          gpus(Resource.newInstance((held + rnd.nextInt(9)) * 8192L, (held + 8) * 4), held + 8),
          gpus(Resource.newInstance(0, 0), 0),
          gpus(Resource.newInstance(8 * 8192L, 32), 8),
          0.5f + rnd.nextInt(8) * 0.5f);
    }
    SchedulingPolicy policy = switch (impl) {
      case "edl" -> new UserFairPolicy();
      case "drf" -> new DominantResourceFairnessPolicy();
      case "fair" -> new FairSharePolicy();
      default -> throw new IllegalArgumentException("impl " + impl);
    };
    policy.initialize(new SizedScheduler().getContext());
    comparator = policy.getComparator();
  }

  @Benchmark
  public Schedulable[] sortUserQueues() {
    Schedulable[] copy = queues.clone();
    Arrays.sort(copy, comparator);
    return copy;
  }
}
