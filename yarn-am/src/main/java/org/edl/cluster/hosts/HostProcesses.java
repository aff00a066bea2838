package org.edl.cluster.hosts;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The processes running in a host's namespace, and ending them all: SIGTERM, then SIGKILL. */
final class HostProcesses {
  private static final Duration GRACE = Duration.ofSeconds(10);

  private HostProcesses() {}

  static List<ProcessHandle> in(String namespace) {
    List<ProcessHandle> processes = new ArrayList<>();
    try {
      for (String pid : Commands.run(List.of("ip", "netns", "pids", namespace)).split("\\s+")) {
        if (!pid.isBlank()) {
          ProcessHandle.of(Long.parseLong(pid)).ifPresent(processes::add);
        }
      }
    } catch (IOException | NumberFormatException e) {
      // No such namespace any more: nothing runs in it.
    }
    return processes;
  }

  static void killAll(String namespace) {
    List<ProcessHandle> processes = in(namespace);
    processes.forEach(ProcessHandle::destroy);
    long deadline = System.nanoTime() + GRACE.toNanos();
    while (processes.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    in(namespace).forEach(ProcessHandle::destroyForcibly);
  }

  /** SIGKILL to every process in the namespace at once, as when a host loses its power. */
  static void killAllAtOnce(String namespace) {
    List<ProcessHandle> processes = in(namespace);
    processes.forEach(ProcessHandle::destroyForcibly);
    for (ProcessHandle p : processes) {
      p.onExit().join();
    }
  }
}
