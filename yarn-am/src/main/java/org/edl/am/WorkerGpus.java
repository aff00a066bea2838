package org.edl.am;

import java.util.List;
import java.util.Optional;

/**
 * The GPU indices a worker container uses as it reported them ({@link
 * org.edl.job.GpuIndexRecord}): the devices it claimed on its node or YARN gave it, which need
 * not be those the AM suggested.
 */
@FunctionalInterface
public interface WorkerGpus {
  /** Nothing reported: every container's indices are the AM's suggestion. */
  WorkerGpus NONE = containerId -> Optional.empty();

  /** Empty when the container has not said (not started yet, or its record is gone). */
  Optional<List<Integer>> of(String containerId) throws Exception;
}
