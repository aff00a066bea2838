package org.edl.worker.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import org.junit.jupiter.api.Test;

class GradientLoopsTest {
  @Test
  void addFrameAddsTheFramesFirstFloatsAtTheOffsetAndNothingElse() {
    FloatBuffer frame = ByteBuffer.allocateDirect(4 * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
    frame.put(0, new float[] {1f, 2f, 3f, 99f});
    float[] into = {10f, 10f, 10f, 10f, 10f};
    GradientLoops.addFrame(frame, new float[4], into, 1, 3);
    assertArrayEquals(new float[] {10f, 11f, 12f, 13f, 10f}, into);
  }

  @Test
  void divideAveragesAndZeroClears() {
    float[] sum = {4f, -6f, 1f};
    GradientLoops.divide(sum, 2);
    assertArrayEquals(new float[] {2f, -3f, 0.5f}, sum);
    GradientLoops.zero(sum);
    assertArrayEquals(new float[3], sum);
  }
}
