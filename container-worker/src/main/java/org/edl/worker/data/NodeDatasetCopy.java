package org.edl.worker.data;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's data set, parsed, on this node's local disk, in the application's directory that YARN
 * gives every container of the application on the node ({@code LOCAL_DIRS}) and deletes with
 * the application. The first worker on a node that loads the data set writes it; the job's later
 * workers there read it without opening an HDFS client at all: a newcomer's start spent about
 * half a second on the client and the read of the binary copy, while its GPU idled.
 *
 * <p>A copy is the data set as the job's first worker on this node found it: later workers of
 * the job there train on the same samples even if the source changes while the job runs, which
 * a worker loading the source again would not. It carries its source and format in its header and
 * a CRC-32 at its end ({@link DatasetCache}'s format), so a torn or damaged copy is never trained
 * on; it is written to a temporary file and moved into place.
 */
public final class NodeDatasetCopy {
  private static final Logger LOG = LoggerFactory.getLogger(NodeDatasetCopy.class);
  /** YARN's application-level local directories of this container, comma-separated. */
  public static final String LOCAL_DIRS = "LOCAL_DIRS";
  private static final String SUBDIRECTORY = "edl-data";

  private final Path dir;

  public NodeDatasetCopy(Path dir) {
    this.dir = dir;
  }

  /** In the first of {@code LOCAL_DIRS}; none outside a YARN container. */
  public static Optional<NodeDatasetCopy> fromEnvironment(Map<String, String> env) {
    String dirs = env.get(LOCAL_DIRS);
    if (dirs == null || dirs.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(new NodeDatasetCopy(Path.of(dirs.split(",")[0].strip()).resolve(SUBDIRECTORY)));
  }

  /** What the copy of {@code data} in {@code format} is named after and says it holds. */
  static DatasetCache.Source sourceOf(String data, DataFormat format) {
    return new DatasetCache.Source(data, -1, -1, format);
  }

  Path pathOf(String data, DataFormat format) {
    return dir.resolve(sourceOf(data, format).fileName());
  }

  /** The copy of {@code data}, if this node has a whole one; anything unreadable is logged and skipped. */
  public Optional<Dataset> read(String data, DataFormat format) {
    Path file = pathOf(data, format);
    try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
      return Optional.of(DatasetCache.read(in, sourceOf(data, format)));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      LOG.warn("Ignoring this node's copy {} of {}: {}", file, data, e.toString());
      return Optional.empty();
    }
  }

  /**
   * Writes the copy unless this node has one or another worker is writing it. Best effort: a
   * failure only costs the job's later workers on this node the read from HDFS.
   *
   * @return whether this call wrote it
   */
  public boolean write(String data, DataFormat format, Dataset d) {
    Path file = pathOf(data, format);
    Path tmp = dir.resolve("." + file.getFileName() + ".writing");
    try {
      Files.createDirectories(dir);
      if (Files.exists(file)) {
        return false;
      }
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE), 1 << 16)) {
        DatasetCache.write(out, sourceOf(data, format), d);
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file);
      }
      LOG.info("Wrote this node's copy {} of {} ({} rows)", file, data, d.size());
      return true;
    } catch (FileAlreadyExistsException e) {
      return false; // another worker on this node is writing it
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not write this node's copy {} of {}: {}", file, data, e.toString());
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException ignored) {
        // nothing more to do: the application's directory goes with the application
      }
      return false;
    }
  }
}
