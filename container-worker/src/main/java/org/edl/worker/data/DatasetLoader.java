package org.edl.worker.data;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.UnsupportedFileSystemException;
import org.edl.job.InvalidInputException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the job's {@code data} string into a data set: a {@code synthetic:} spec is generated;
 * anything else is a path opened through Hadoop's {@link FileSystem}, so {@code hdfs://},
 * {@code file://} and the cluster's default file system all work the same way.
 */
public final class DatasetLoader {
  private static final Logger LOG = LoggerFactory.getLogger(DatasetLoader.class);

  private DatasetLoader() {}

  /** Loads the whole data set into memory. */
  public static Dataset load(String data, String format, Configuration conf) throws IOException {
    return load(data, format, Optional.empty(), conf);
  }

  /**
   * Loads the whole data set into memory, from {@code cache}'s binary copy of a text file when it
   * has a whole one for the file as it is now; after parsing, writes that copy in the background
   * for the workers that come later.
   */
  public static Dataset load(String data, String format, Optional<DatasetCache> cache, Configuration conf)
      throws IOException {
    return load(data, format, cache, Optional.empty(), conf);
  }

  /**
   * As {@link #load(String, String, Optional, Configuration)}, first from {@code node}'s copy on
   * this node's disk, without touching the file system of {@code data}; a worker that loaded the
   * data set otherwise writes that copy in the background for the job's later workers here.
   */
  public static Dataset load(String data, String format, Optional<DatasetCache> cache, Optional<NodeDatasetCopy> node,
      Configuration conf) throws IOException {
    if (SyntheticSpec.isSynthetic(data)) {
      SyntheticSpec spec = SyntheticSpec.parse(data);
      LOG.info("Generating {}", spec.format());
      return SyntheticData.generate(spec);
    }
    DataFormat resolved = DataFormat.resolve(format, requirePath(data));
    if (node.isPresent()) {
      long start = System.nanoTime();
      Optional<Dataset> local = node.get().read(data, resolved);
      if (local.isPresent()) {
        LOG.info("Loaded {} ({}) from this node's copy {} in {} ms: {} rows, {} features, {} classes", data, resolved,
            node.get().pathOf(data, resolved), (System.nanoTime() - start) / 1_000_000, local.get().size(),
            local.get().featureCount(), local.get().classCount());
        return local.get();
      }
    }
    Dataset d = loadFromSource(data, resolved, cache, conf);
    node.ifPresent(n -> inBackground("edl-node-dataset-copy", () -> n.write(data, resolved, d)));
    return d;
  }

  private static Dataset loadFromSource(String data, DataFormat resolved, Optional<DatasetCache> cache,
      Configuration conf) throws IOException {
    Path path = pathOf(data);
    FileSystem fs = fileSystemOf(path, data, conf);
    FileStatus status = statusOf(fs, path, data);
    DatasetCache.Source source = DatasetCache.Source.of(status, resolved);
    if (cache.isPresent()) {
      long start = System.nanoTime();
      Optional<Dataset> copy = cache.get().read(source);
      if (copy.isPresent()) {
        LOG.info("Loaded {} ({}) from its binary copy {} in {} ms: {} rows, {} features, {} classes", data, resolved,
            cache.get().pathOf(source), (System.nanoTime() - start) / 1_000_000, copy.get().size(),
            copy.get().featureCount(), copy.get().classCount());
        return copy.get();
      }
    }
    Dataset d;
    try (Reader in = new InputStreamReader(fs.open(path), StandardCharsets.UTF_8)) {
      d = resolved == DataFormat.LIBSVM ? LibsvmReader.read(in, data) : CsvReader.read(in, data);
    }
    LOG.info("Loaded {} ({}): {} rows, {} features, {} classes",
        data, resolved, d.size(), d.featureCount(), d.classCount());
    cache.ifPresent(c -> inBackground("edl-dataset-copy", () -> c.write(source, d)));
    return d;
  }

  private static void inBackground(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
  }

  /**
   * Checks the data set and returns its shape, streaming through a file without keeping it: what
   * the client runs before it submits, so a bad line fails there and not in every container.
   */
  public static DatasetSummary validate(String data, String format, Configuration conf) throws IOException {
    if (SyntheticSpec.isSynthetic(data)) {
      return SyntheticSpec.parse(data).summary();
    }
    DataFormat resolved = DataFormat.resolve(format, requirePath(data));
    try (Reader in = open(data, conf)) {
      return resolved == DataFormat.LIBSVM ? LibsvmReader.summarize(in, data) : CsvReader.summarize(in, data);
    }
  }

  private static String requirePath(String data) {
    if (data == null || data.isBlank()) {
      throw new InvalidInputException("data", data, "a data set is required");
    }
    return data;
  }

  private static Reader open(String data, Configuration conf) throws IOException {
    Path path = pathOf(data);
    FileSystem fs = fileSystemOf(path, data, conf);
    statusOf(fs, path, data);
    return new InputStreamReader(fs.open(path), StandardCharsets.UTF_8);
  }

  private static Path pathOf(String data) {
    try {
      return new Path(data);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException("data", data, "not a valid path: " + e.getMessage());
    }
  }

  private static FileSystem fileSystemOf(Path path, String data, Configuration conf) throws IOException {
    try {
      return path.getFileSystem(conf);
    } catch (UnsupportedFileSystemException e) {
      throw new InvalidInputException("data", data, "no file system for scheme '" + path.toUri().getScheme() + "'");
    }
  }

  private static FileStatus statusOf(FileSystem fs, Path path, String data) throws IOException {
    FileStatus status;
    try {
      status = fs.getFileStatus(path);
    } catch (FileNotFoundException e) {
      throw new InvalidInputException("data", data, "does not exist");
    }
    if (status.isDirectory()) {
      throw new InvalidInputException("data", data, "is a directory; give a file");
    }
    return status;
  }
}
