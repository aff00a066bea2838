package org.edl.worker.collective;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Arrays;

/**
 * The loops that run over a whole gradient every step (adding what a peer sent, averaging,
 * zeroing), in one place so that a new worker can have them compiled before its first step.
 *
 * <p>A JVM runs a loop interpreted, then in C1's profiling code, until C2 has compiled it. A
 * newcomer's first all-reduce ran its additions that way: they were compiled by C2 only as it
 * ended (0.3 s after it began, against 0.17 s for the members' steady ones), and the whole ring
 * moves at its slowest member's pace. {@link #warmUp} calls them on a small buffer often enough
 * for the JIT to compile them in the background while the worker still starts.
 */
public final class GradientLoops {
  /** Enough calls for C2 (tiered compilation's thresholds: 600 calls with loops this long). */
  private static final int WARM_UP_CALLS = 2_000;
  private static final int WARM_UP_FLOATS = 1_024;

  private GradientLoops() {}

  /**
   * Adds {@code n} floats of {@code frame} (from index 0) to {@code into} from {@code offset},
   * through {@code scratch}. More than C1's inlining limit (35 bytes) on purpose: its callers'
   * early code calls the compiled loop instead of a profiling copy of it.
   */
  public static void addFrame(FloatBuffer frame, float[] scratch, float[] into, int offset, int n) {
    frame.get(0, scratch, 0, n);
    for (int i = 0; i < n; i++) {
      into[offset + i] += scratch[i];
    }
  }

  /** Divides every element of {@code sum} by {@code count}: a gradient summed over a batch, averaged. */
  public static void divide(float[] sum, int count) {
    for (int i = 0; i < sum.length; i++) {
      sum[i] /= count;
    }
  }

  /** Zeroes {@code gradient} for the next step. */
  public static void zero(float[] gradient) {
    Arrays.fill(gradient, 0f);
  }

  /**
   * Runs each loop {@value #WARM_UP_CALLS} times on {@value #WARM_UP_FLOATS} floats (a few ms),
   * through a direct little-endian buffer as the ring's frames are, so that the JIT compiles the
   * code the steps will run.
   */
  public static void warmUp() {
    FloatBuffer frame = ByteBuffer.allocateDirect(WARM_UP_FLOATS * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN)
        .asFloatBuffer();
    float[] scratch = new float[WARM_UP_FLOATS];
    float[] sum = new float[WARM_UP_FLOATS];
    for (int call = 0; call < WARM_UP_CALLS; call++) {
      zero(sum);
      addFrame(frame, scratch, sum, 0, WARM_UP_FLOATS);
      divide(sum, 2);
    }
  }
}
