package org.edl.worker.gpu;

import java.util.List;
import java.util.Objects;

/**
 * The GPUs one worker trains on.
 *
 * @param indices      the devices as the node numbers them: what the worker reports (the ring's
 *                     member, {@code edl status}) and what two workers on one node never share
 * @param cudaOrdinals the same devices as CUDA numbers them inside this container: the indices
 *                     themselves where the container sees all the node's devices, {@code 0..n-1}
 *                     where YARN's Docker runtime or device cgroup shows it only its own
 * @param source       who chose them, for the worker's log
 */
public record GpuDevices(List<Integer> indices, List<Integer> cudaOrdinals, String source) {
  /** No GPU asked for (or a test's worker thread). */
  public static final GpuDevices NONE = new GpuDevices(List.of(), List.of(), "no GPU asked for");

  public GpuDevices {
    indices = List.copyOf(indices);
    cudaOrdinals = List.copyOf(cudaOrdinals);
    Objects.requireNonNull(source, "source");
    if (indices.size() != cudaOrdinals.size()) {
      throw new IllegalArgumentException("indices " + indices + " and CUDA ordinals " + cudaOrdinals + " differ in number");
    }
  }

  public boolean isEmpty() {
    return indices.isEmpty();
  }

  /** The first index, or -1 with none: the ring member's {@code gpuIndex}. */
  public int first() {
    return indices.isEmpty() ? -1 : indices.get(0);
  }
}
