package org.edl.worker.runtime;

import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Checks the host's shared-memory directory once, at start-up, so that a missing one costs a log line, not a ring. */
final class SharedMemoryDirs {
  private static final Logger LOG = LoggerFactory.getLogger(SharedMemoryDirs.class);

  private SharedMemoryDirs() {}

  /** {@code dir} where this process can create files in it; null (TCP only) otherwise, or where it was null. */
  static Path usable(Path dir) {
    if (dir == null) {
      LOG.info("Ring links use TCP only (the job's --ring-transport or this host's EDL_SHM_DIR says so)");
      return null;
    }
    if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
      LOG.info("Ring links use TCP only: {} is not a directory this worker can write", dir);
      return null;
    }
    return dir;
  }
}
