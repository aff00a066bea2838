package org.edl.bench.chaos;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.edl.bench.ContainerProcesses;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out faults on the containers' processes: finds the victim, signals it, and for a
 * pause sends the SIGCONT when it is due. Closing it continues every process still paused, so
 * that no frozen JVM outlives a run, whatever ended it.
 */
final class FaultInjector implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FaultInjector.class);

  private record Paused(FaultRecovery recovery, ContainerProcesses.ContainerProcess process, double resumeAt) {}

  private final ContainerProcesses processes;
  private final FaultTargets targets;
  private final List<Paused> paused = new ArrayList<>();

  FaultInjector(ContainerProcesses processes, FaultTargets targets) {
    this.processes = processes;
    this.targets = targets;
  }

  /**
   * Applies {@code fault} now; never throws: a fault that cannot be applied comes back as such,
   * with the reason, and the run goes on.
   *
   * @param now    seconds since training started
   * @param before the last poll, for the victim's choice and the state at the fault
   */
  FaultRecovery apply(Fault fault, double now, FaultRecovery.Observation before) {
    String victim;
    try {
      victim = targets.victim(fault.kind(), before.status());
    } catch (Exception e) {
      LOG.warn("{}: no victim: {}", fault.compact(), e.toString());
      return FaultRecovery.notApplied(fault, "no victim: " + e.getMessage());
    }
    try {
      ContainerProcesses.ContainerProcess p = processes.find(victim);
      FaultRecovery r = FaultRecovery.applied(fault, victim, now, before);
      if (fault.kind().isPause()) {
        processes.pause(p);
        paused.add(new Paused(r, p, now + fault.pauseSeconds()));
      } else {
        processes.kill(p);
      }
      LOG.info("{}: {} {} (pid {}) at {} s", fault.compact(), fault.kind().isPause() ? "paused" : "killed", victim,
          p.pid(), String.format(java.util.Locale.ROOT, "%.1f", now));
      return r;
    } catch (Exception e) {
      LOG.warn("{}: could not signal {}: {}", fault.compact(), victim, e.toString());
      return FaultRecovery.notApplied(fault, victim + ": " + e.getMessage());
    }
  }

  /** Continues the paused processes whose pause is over. */
  void resumeDue(double now) {
    for (Iterator<Paused> i = paused.iterator(); i.hasNext();) {
      Paused p = i.next();
      if (now >= p.resumeAt()) {
        resume(p, now);
        i.remove();
      }
    }
  }

  private void resume(Paused p, double now) {
    continueProcess(p);
    p.recovery().resumed(now);
  }

  private void continueProcess(Paused p) {
    try {
      processes.resume(p.process());
    } catch (Exception e) {
      // Killed by its NodeManager while it was stopped (its application ended): nothing to continue.
      LOG.warn("Could not continue container {}: {}", p.process().containerId(), e.toString());
    }
  }

  @Override
  public void close() {
    paused.forEach(this::continueProcess);
    paused.clear();
  }
}
