package org.edl.am;

import java.util.List;

/**
 * What the fleet decided about one launch beyond the job-wide launch context: the GPU device
 * indices on the container's host. YARN does not set {@code CUDA_VISIBLE_DEVICES} for fake
 * (or plugin-less) GPUs, so the AM hands indices out itself.
 */
public record WorkerLaunch(List<Integer> gpuIndices) {
  public WorkerLaunch {
    gpuIndices = List.copyOf(gpuIndices);
  }
}
