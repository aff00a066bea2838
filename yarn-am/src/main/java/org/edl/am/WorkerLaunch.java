package org.edl.am;

import java.util.List;
import java.util.Map;

/**
 * What the fleet decided about one launch beyond the job-wide launch context: the GPU device
 * indices the AM suggests on the container's host (YARN says which devices a container got only
 * where it isolates them, and the worker then uses those; elsewhere the worker claims these on its
 * node first), and environment of this launch only, such as the checkpoint a stop-resume
 * relaunch restores from or the node's GPU count.
 */
public record WorkerLaunch(List<Integer> gpuIndices, Map<String, String> env) {
  public WorkerLaunch {
    gpuIndices = List.copyOf(gpuIndices);
    env = Map.copyOf(env);
  }

  public WorkerLaunch(List<Integer> gpuIndices) {
    this(gpuIndices, Map.of());
  }

  /** This launch with {@code name=value} added to its environment. */
  public WorkerLaunch withEnv(String name, String value) {
    Map<String, String> more = new java.util.HashMap<>(env);
    more.put(name, value);
    return new WorkerLaunch(gpuIndices, more);
  }
}
