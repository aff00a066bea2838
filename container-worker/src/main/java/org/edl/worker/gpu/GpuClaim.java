package org.edl.worker.gpu;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * GPU indices this process holds on its node (see {@link GpuClaims}). Closing gives them back;
 * so does the end of the process, however it ends.
 */
public final class GpuClaim implements Closeable {
  private final Path dir;
  private final List<Integer> indices;
  private final List<Path> files;

  GpuClaim(Path dir, List<Integer> indices, List<Path> files) {
    this.dir = dir;
    this.indices = List.copyOf(indices);
    this.files = List.copyOf(files);
  }

  /** The claimed indices, in the order they were preferred. */
  public List<Integer> indices() {
    return indices;
  }

  public Path dir() {
    return dir;
  }

  @Override
  public void close() throws IOException {
    for (Path f : files) {
      GpuClaims.release(f);
    }
  }

  @Override
  public String toString() {
    return indices + " in " + dir;
  }
}
