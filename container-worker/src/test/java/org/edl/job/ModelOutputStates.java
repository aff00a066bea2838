package org.edl.job;

import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Random;

/** Model states for the output tests: seeded random bytes, written as they are. */
final class ModelOutputStates {
  private ModelOutputStates() {}

  static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  static ModelOutput.State of(byte[] bytes) {
    return new ModelOutput.State() {
      @Override
      public int expectedBytes() {
        return bytes.length;
      }

      @Override
      public void writeTo(DataOutputStream out) throws IOException {
        out.write(bytes);
      }
    };
  }
}
