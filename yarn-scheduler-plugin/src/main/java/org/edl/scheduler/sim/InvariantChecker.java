package org.edl.scheduler.sim;

import java.util.Collection;
import org.edl.scheduler.core.policy.ClusterPolicy;

/**
 * What must hold after every event whatever the policy: no GPU held by two jobs and none held
 * that the cluster lacks; every running job within the policy's [min, max]; work conserved (a job
 * never does more than its work, and a finished one did all of it). Throws on the first breach.
 */
final class InvariantChecker {
  private final int capacity;
  private final int[] owner;

  InvariantChecker(int capacity) {
    this.capacity = capacity;
    this.owner = new int[capacity];
  }

  void check(double now, Collection<SimJob> running, int busy, int freeCount, ClusterPolicy policy) {
    java.util.Arrays.fill(owner, -1);
    int held = 0;
    for (SimJob j : running) {
      if (j.held.length != j.gpus) {
        fail(now, j + " holds " + j.held.length + " GPU ids for a count of " + j.gpus);
      }
      for (int g : j.held) {
        if (g < 0 || g >= capacity) {
          fail(now, j + " holds GPU " + g + ", which the cluster lacks");
        }
        if (owner[g] >= 0) {
          fail(now, "GPU " + g + " given twice: to job " + owner[g] + " and " + j);
        }
        owner[g] = j.index;
      }
      held += j.gpus;
      if (j.gpus < policy.minGpus(j) || j.gpus > policy.maxGpus(j)) {
        fail(now, j + " runs outside [" + policy.minGpus(j) + ", " + policy.maxGpus(j) + "] under " + policy.name());
      }
      if (j.done > j.totalWork * (1 + 1e-9) + 1e-9) {
        fail(now, j + " did " + j.done + " of " + j.totalWork + " work");
      }
    }
    if (held != busy || held + freeCount != capacity) {
      fail(now, "GPUs held " + held + ", counted busy " + busy + ", free " + freeCount + ", cluster " + capacity);
    }
  }

  void checkFinished(double now, SimJob j, ClusterPolicy policy) {
    if (Math.abs(j.done - j.totalWork) > 1e-6 * Math.max(1, j.totalWork)) {
      fail(now, j + " finished with " + j.done + " of " + j.totalWork + " work done");
    }
    double fastest = j.totalWork / maxSpeedup(j, policy.maxGpus(j));
    if (now - j.start < fastest * (1 - 1e-9) - 1e-6) {
      fail(now, j + " finished in " + (now - j.start) + " s, faster than its work allows (" + fastest + " s)");
    }
  }

  private static double maxSpeedup(SimJob j, int max) {
    double best = 0;
    for (int n = 1; n <= max; n++) {
      best = Math.max(best, j.model.speedup(n));
    }
    return best;
  }

  private static void fail(double now, String what) {
    throw new IllegalStateException("invariant broken at t=" + now + ": " + what);
  }
}
