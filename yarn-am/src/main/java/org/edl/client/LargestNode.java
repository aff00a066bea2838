package org.edl.client;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.edl.am.GpuCount;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSpec;

/**
 * Refuses, before anything is staged, a worker that no running node could ever hold (more GPUs or
 * memory than the largest node has): YARN would keep its request pending for ever.
 */
final class LargestNode {
  private LargestNode() {}

  static void check(YarnClient yarn, JobSpec spec) throws IOException, YarnException {
    // The RM knows the cluster's resource types; this JVM may not have read them yet.
    ResourceUtils.reinitializeResources(yarn.getResourceTypeInfo());
    List<NodeReport> nodes = yarn.getNodeReports(NodeState.RUNNING);
    long largestGpus = 0;
    long largestMemory = 0;
    for (NodeReport node : nodes) {
      Resource capability = node.getCapability();
      largestMemory = Math.max(largestMemory, capability.getMemorySize());
      largestGpus = Math.max(largestGpus, GpuCount.of(capability));
    }
    if (spec.resources().gpusPerWorker() > largestGpus) {
      throw new InvalidInputException("gpus-per-worker", spec.resources().gpusPerWorker(),
          "more than any node has (largest: " + largestGpus + " " + ResourceInformation.GPU_URI + ")");
    }
    if (spec.resources().memoryMb() > largestMemory) {
      throw new InvalidInputException("worker-memory", spec.resources().memoryMb(),
          "more than any node has (largest: " + largestMemory + " MB)");
    }
  }
}
