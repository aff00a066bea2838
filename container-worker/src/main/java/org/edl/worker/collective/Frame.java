package org.edl.worker.collective;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

/** Room for one frame of a ring all-reduce: its bytes, little-endian, and a float view of them. */
record Frame(ByteBuffer bytes, FloatBuffer floats) {
  static Frame over(ByteBuffer bytes) {
    ByteBuffer b = bytes.order(ByteOrder.LITTLE_ENDIAN);
    return new Frame(b, b.asFloatBuffer());
  }
}
