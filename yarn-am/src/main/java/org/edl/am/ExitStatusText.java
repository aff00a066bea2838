package org.edl.am;

import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.edl.job.WorkerEnv;

/** Names a worker container's exit status for the operator: YARN's codes and the worker's own. */
final class ExitStatusText {
  /** 128 + SIGKILL: kill -9, the node manager's forceful shutdown, an out-of-memory kill. */
  static final int KILLED = 137;
  /** 128 + SIGTERM: a graceful shutdown the worker did not survive. */
  static final int TERMINATED = 143;

  private ExitStatusText() {}

  /** {@code "137 (killed)"}, {@code "-102 (PREEMPTED)"}, {@code "1 (worker error)"}. */
  static String of(int exitStatus) {
    String meaning = switch (exitStatus) {
      case WorkerEnv.EXIT_OK -> "finished";
      case WorkerEnv.EXIT_LEFT -> "left the ring";
      case WorkerEnv.EXIT_FAILED -> "worker error";
      case WorkerEnv.EXIT_FENCED -> "declared failed by the leader and fenced out";
      case KILLED -> "killed";
      case TERMINATED -> "terminated";
      case ContainerExitStatus.ABORTED -> "ABORTED: released, or its node was lost";
      case ContainerExitStatus.DISKS_FAILED -> "DISKS_FAILED";
      case ContainerExitStatus.PREEMPTED -> "PREEMPTED";
      case ContainerExitStatus.KILLED_EXCEEDED_VMEM -> "KILLED_EXCEEDED_VMEM";
      case ContainerExitStatus.KILLED_EXCEEDED_PMEM -> "KILLED_EXCEEDED_PMEM";
      case ContainerExitStatus.KILLED_BY_APPMASTER -> "KILLED_BY_APPMASTER";
      case ContainerExitStatus.KILLED_BY_RESOURCEMANAGER -> "KILLED_BY_RESOURCEMANAGER";
      case ContainerExitStatus.KILLED_AFTER_APP_COMPLETION -> "KILLED_AFTER_APP_COMPLETION";
      case ContainerExitStatus.KILLED_BY_CONTAINER_SCHEDULER -> "KILLED_BY_CONTAINER_SCHEDULER";
      default -> null;
    };
    return meaning == null ? Integer.toString(exitStatus) : exitStatus + " (" + meaning + ")";
  }
}
