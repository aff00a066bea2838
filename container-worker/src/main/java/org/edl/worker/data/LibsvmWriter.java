package org.edl.worker.data;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;

/**
 * Writes a {@link Dataset} as LIBSVM text: labels as their class numbers {@code 0..K-1}, zero
 * features left out. Floats are printed in Java's shortest round-trip form, so reading the file
 * back gives bit-identical features.
 */
public final class LibsvmWriter {
  private LibsvmWriter() {}

  /** Writes every row; flushes but does not close {@code out}. */
  public static void write(Dataset data, OutputStream out) throws IOException {
    Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
    float[] x = data.features();
    int f = data.featureCount();
    StringBuilder line = new StringBuilder(16 * f);
    for (int r = 0; r < data.size(); r++) {
      line.setLength(0);
      line.append(data.label(r));
      int base = r * f;
      for (int j = 0; j < f; j++) {
        float v = x[base + j];
        if (v != 0f) {
          line.append(' ').append(j + 1).append(':').append(v);
        }
      }
      line.append('\n');
      w.write(line.toString());
    }
    w.flush();
  }
}
