package org.edl.am;

import java.util.List;
import java.util.Map;

/**
 * What the fleet decided about one launch beyond the job-wide launch context: the GPU device
 * indices on the container's host (YARN does not set {@code CUDA_VISIBLE_DEVICES} for fake or
 * plugin-less GPUs, so the AM hands indices out itself), and environment of this launch only,
 * such as the checkpoint a stop-resume relaunch restores from.
 */
public record WorkerLaunch(List<Integer> gpuIndices, Map<String, String> env) {
  public WorkerLaunch {
    gpuIndices = List.copyOf(gpuIndices);
    env = Map.copyOf(env);
  }

  public WorkerLaunch(List<Integer> gpuIndices) {
    this(gpuIndices, Map.of());
  }
}
