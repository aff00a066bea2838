package org.edl.am;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fleet's book of its worker containers: which it holds (in launch order), which have
 * started, which are newcomers the leader has not yet shown in the ring, how many requested
 * containers are still to be allocated, and the GPU indices suggested to each. It records what the
 * fleet did and what YARN said; {@link WorkerFleet} decides. Main thread only, like the fleet.
 */
final class FleetBook {
  private final Map<String, WorkerContainer> live = new LinkedHashMap<>();
  private final Set<String> started = new HashSet<>();
  /** Launched while the job ran, and not shown in the ring since: the change that brought them has not landed. */
  private final Set<String> newcomers = new LinkedHashSet<>();
  private final GpuSlots gpus = new GpuSlots();
  private int outstanding;

  /** A container that already runs (a previous AM attempt launched it) with {@code indices}. */
  void adopt(WorkerContainer c, List<Integer> indices) {
    live.put(c.id(), c);
    started.add(c.id());
    gpus.take(c, indices);
  }

  /** Books {@code c} as launched and returns the GPU indices suggested to it. */
  List<Integer> launch(WorkerContainer c, boolean newcomer, int gpusPerWorker) {
    live.put(c.id(), c);
    if (newcomer) {
      newcomers.add(c.id());
    }
    return gpus.assign(c, gpusPerWorker);
  }

  void requested(int count) {
    outstanding += count;
  }

  /** The requests not yet granted were withdrawn: none of them is awaited any more. */
  void withdrawn() {
    outstanding = 0;
  }

  /** One requested container arrived (an allocation beyond the requests counts nothing). */
  void allocated() {
    outstanding = Math.max(0, outstanding - 1);
  }

  int outstanding() {
    return outstanding;
  }

  /** @return false: not one of the fleet's containers (released, or gone) */
  boolean started(String containerId) {
    if (!live.containsKey(containerId)) {
      return false;
    }
    started.add(containerId);
    return true;
  }

  boolean hasStarted(String containerId) {
    return started.contains(containerId);
  }

  int startedCount() {
    return started.size();
  }

  /** Host and GPU indices of every container held, in launch order. */
  List<org.edl.thrift.WorkerPlacement> placements() {
    List<org.edl.thrift.WorkerPlacement> out = new ArrayList<>(live.size());
    for (WorkerContainer c : live.values()) {
      out.add(new org.edl.thrift.WorkerPlacement(c.id(), c.host(), gpus.of(c.id())));
    }
    return out;
  }

  /** Null when the fleet does not hold it. */
  WorkerContainer get(String containerId) {
    return live.get(containerId);
  }

  boolean isLive(String containerId) {
    return live.containsKey(containerId);
  }

  boolean isNewcomer(String containerId) {
    return newcomers.contains(containerId);
  }

  int size() {
    return live.size();
  }

  boolean isEmpty() {
    return live.isEmpty();
  }

  /** The containers held, in launch order (a live view). */
  Set<String> ids() {
    return Collections.unmodifiableSet(live.keySet());
  }

  List<WorkerContainer> containers() {
    return new ArrayList<>(live.values());
  }

  /** The container is gone: its GPUs are free. */
  void forget(WorkerContainer c) {
    live.remove(c.id());
    started.remove(c.id());
    newcomers.remove(c.id());
    gpus.free(c);
  }

  /** The change that brought the newcomers has landed: the leader showed them in the ring. */
  void newcomersJoined() {
    newcomers.clear();
  }

  boolean onlyNewcomersLeft() {
    return !live.isEmpty() && newcomers.containsAll(live.keySet());
  }

  /** Every container requested has been allocated and has started. */
  boolean containersIn() {
    return outstanding == 0 && started.containsAll(live.keySet());
  }
}
