package org.edl.bench.partitions;

import java.util.List;
import java.util.SplittableRandom;

/**
 * The partition each seed runs: the kinds in turn (seed 1 the first kind, seed 7 the first again),
 * so that every kind is run once in every six seeds; healed below its timeout on the first round
 * of kinds and above it on the next, alternately; at a seeded moment of the job's training.
 */
public final class PartitionSchedule {
  /** The quorum's loss lasts this long (the 20 s). */
  static final double QUORUM_SECONDS = 20;
  /**
   * Below a timeout: a quarter of it. Half of a ZooKeeper session timeout is not safely below it:
   * the client notices a silent server only after two thirds of it, and its first reconnection
   * attempt may fall inside the cut and wait out a connect timeout, so a 5 s cut of a 10 s session
   * sometimes ended the session (bench run of 2026-12-08, seed 2). Above: one and a half times it.
   */
  static final double BELOW = 0.25;
  static final double ABOVE = 1.5;

  /**
   * What every schedule fits.
   *
   * @param windowStartSeconds the earliest moment of a cut, after training started
   * @param windowEndSeconds   the latest
   * @param syncSeconds        the jobs' sync timeout
   * @param sessionSeconds     the workers' ZooKeeper session timeout
   * @param amExpirySeconds    the ResourceManager's AM liveness expiry
   */
  public record Limits(double windowStartSeconds, double windowEndSeconds, double syncSeconds,
      double sessionSeconds, double amExpirySeconds) {
    double timeout(Partition.Timeout t) {
      return switch (t) {
        case SYNC -> syncSeconds;
        case SESSION -> sessionSeconds;
        case QUORUM -> QUORUM_SECONDS;
        case AM_EXPIRY -> amExpirySeconds;
      };
    }
  }

  private PartitionSchedule() {}

  /** The kinds, in the order seeds take them. */
  public static List<Partition.Kind> kinds() {
    return List.of(Partition.Kind.values());
  }

  public static Partition forSeed(long seed, Limits limits) {
    List<Partition.Kind> kinds = kinds();
    long index = Math.floorMod(seed - 1, (long) kinds.size());
    long round = Math.floorDiv(seed - 1, (long) kinds.size());
    Partition.Kind kind = kinds.get((int) index);
    // Not java.util.Random: its first double barely differs between seeds 1, 2, 3, ...
    SplittableRandom random = new SplittableRandom(seed);
    double at = limits.windowStartSeconds() + random.nextDouble() * (limits.windowEndSeconds()
        - limits.windowStartSeconds());
    double timeout = limits.timeout(kind.timeout());
    double heal = kind == Partition.Kind.ZOOKEEPER_QUORUM ? QUORUM_SECONDS
        : timeout * (round % 2 == 0 ? BELOW : ABOVE);
    return new Partition(kind, round(at), round(heal), timeout);
  }

  private static double round(double seconds) {
    return Math.round(seconds * 10) / 10.0;
  }
}
