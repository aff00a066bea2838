package org.edl.scheduler.sim;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/** Opens a trace or profile file for reading, gunzipping it when its name ends in {@code .gz}. */
final class TraceFiles {
  private TraceFiles() {}

  static BufferedReader open(Path file) throws IOException {
    if (!file.getFileName().toString().endsWith(".gz")) {
      return Files.newBufferedReader(file);
    }
    InputStream raw = Files.newInputStream(file);
    try {
      return new BufferedReader(new InputStreamReader(new GZIPInputStream(raw, 1 << 16), StandardCharsets.UTF_8));
    } catch (IOException e) {
      raw.close();
      throw e;
    }
  }
}
