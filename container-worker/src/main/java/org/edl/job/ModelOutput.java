package org.edl.job;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the trained model ({@code model.bin}) and {@code metrics.json} into the job's output
 * directory through Hadoop's {@link FileSystem}: {@code hdfs://} on a cluster, {@code file://}
 * in tests. Each file is written under a temporary name and renamed, so a reader never sees half
 * a model; the renames happen only while the writer's leadership is still the newest, so a
 * superseded leader never replaces the real one's output. The temporary names carry the writer's
 * leader epoch ({@link TemporaryName}): a writer removes what older epochs left before its own
 * renames, so a fenced leader paused between its check and its rename finds nothing to rename
 * (and one that renamed before is replaced by the newer output). The metrics name the model's
 * length and CRC-32 and the leader epoch that wrote it, and, where the file system keeps one
 * (HDFS), the model file's own checksum: {@link #verify} checks a job's output by them.
 */
public final class ModelOutput {
  private static final Logger LOG = LoggerFactory.getLogger(ModelOutput.class);
  public static final String MODEL_FILE = "model.bin";
  public static final String METRICS_FILE = "metrics.json";
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(SerializationFeature.INDENT_OUTPUT)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /** What {@code metrics.json} holds. Losses and rates are null when not finite. */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record Metrics(
      @JsonProperty("model") String model,
      @JsonProperty("workers") int workers,
      @JsonProperty("steps") long steps,
      @JsonProperty("samples_seen") long samplesSeen,
      @JsonProperty("first_loss") Double firstLoss,
      @JsonProperty("last_loss") Double lastLoss,
      @JsonProperty("samples_per_second") Double samplesPerSecond,
      @JsonProperty("wall_seconds") Double wallSeconds,
      @JsonProperty("leader_epoch") long leaderEpoch,
      @JsonProperty("model_bytes") long modelBytes,
      @JsonProperty("model_crc32") String modelCrc32,
      @JsonProperty("model_file_checksum") String modelFileChecksum) {

    /** The figures of a run; the model's length and checksum are filled in when it is written. */
    public static Metrics of(String model, int workers, long steps, long samplesSeen, double firstLoss,
        double lastLoss, double samplesPerSecond, double wallSeconds, long leaderEpoch) {
      return new Metrics(model, workers, steps, samplesSeen, finite(firstLoss), finite(lastLoss),
          finite(samplesPerSecond), finite(wallSeconds), leaderEpoch, 0, null, null);
    }

    /** @param fileChecksum the written file's checksum as the file system keeps it ({@link #fileChecksum}), or null */
    Metrics describing(long bytes, long crc, String fileChecksum) {
      return new Metrics(model, workers, steps, samplesSeen, firstLoss, lastLoss, samplesPerSecond, wallSeconds,
          leaderEpoch, bytes, Long.toHexString(crc), fileChecksum);
    }

    private static Double finite(double v) {
      return Double.isFinite(v) ? v : null;
    }
  }

  /** Where the files went. */
  public record Written(Path model, Path metrics) {}

  /** The writer's leadership ended before it could put its output in place. */
  public static final class Superseded extends IOException {
    private static final long serialVersionUID = 1L;

    public Superseded(String message) {
      super(message);
    }
  }

  private ModelOutput() {}

  /**
   * The model's state as {@code model.bin} holds it: the worker passes its model's
   * {@code writeState} and how many bytes it expects, so this package needs no worker class.
   */
  public interface State {
    /** Bytes {@link #writeTo} will write, about: the buffer's first size. */
    int expectedBytes();

    void writeTo(DataOutputStream out) throws IOException;
  }

  /** Writes unconditionally (a single process, a test). */
  public static Written write(String outputDir, State model, Metrics metrics, Configuration conf)
      throws IOException {
    return write(outputDir, model, metrics, conf, WriterEpoch.UNATTRIBUTED, () -> true);
  }

  /**
   * Writes both files under temporary names as the leadership of application {@code appId} at the
   * metrics' leader epoch, then, if {@code stillLeading} says so, removes the temporaries older
   * epochs left and renames its own into place (the model first: metrics name a model that exists).
   *
   * @throws Superseded the leadership ended, or a newer one removed the temporaries; nothing was
   *     put in place
   */
  public static Written write(String outputDir, State model, Metrics metrics, Configuration conf,
      String appId, BooleanSupplier stillLeading) throws IOException {
    WriterEpoch writer = new WriterEpoch(appId, metrics.leaderEpoch());
    Path dir = new Path(outputDir);
    FileSystem fs = dir.getFileSystem(conf);
    fs.mkdirs(dir);
    Path modelPath = new Path(dir, MODEL_FILE);
    Path metricsPath = new Path(dir, METRICS_FILE);
    ByteArrayOutputStream state = new ByteArrayOutputStream(model.expectedBytes());
    DataOutputStream data = new DataOutputStream(state);
    model.writeTo(data);
    data.flush();
    byte[] bytes = state.toByteArray();
    CRC32 crc = new CRC32();
    crc.update(bytes);
    Path modelTmp = writeTemporary(fs, modelPath, writer, out -> out.write(bytes));
    // A rename keeps the blocks, so the temporary file's checksum is the model's.
    Metrics described = metrics.describing(bytes.length, crc.getValue(), fileChecksum(fs, modelTmp));
    Path metricsTmp = writeTemporary(fs, metricsPath, writer, out -> JSON.writeValue(nonClosing(out), described));
    if (!stillLeading.getAsBoolean()) {
      fs.delete(modelTmp, false);
      fs.delete(metricsTmp, false);
      throw new Superseded("leader epoch " + metrics.leaderEpoch() + " is not the newest any more: its model and"
          + " metrics were not put in place");
    }
    // Before the renames: a fenced writer's own rename, still to come, then finds no source, and
    // one that came already is replaced by the renames below.
    removeStaleTemporaries(fs, dir, writer);
    replace(fs, modelTmp, modelPath, metrics.leaderEpoch());
    replace(fs, metricsTmp, metricsPath, metrics.leaderEpoch());
    return new Written(fs.makeQualified(modelPath), fs.makeQualified(metricsPath));
  }

  private static void removeStaleTemporaries(FileSystem fs, Path dir, WriterEpoch writer) {
    try {
      StaleTemporaries.sweep(fs, dir, name -> name.equals(MODEL_FILE) || name.equals(METRICS_FILE), writer);
    } catch (IOException e) {
      // Garbage, not a reason to lose the job's output: a fenced writer's rename is still refused
      // by the check it made, or overwritten by these renames.
      LOG.warn("Could not clear stale temporaries in {}: {}", dir, e.toString());
    }
  }

  /** Reads {@code metrics.json} from a job's output directory. */
  public static Metrics readMetrics(Configuration conf, String outputDir) throws IOException {
    Path p = new Path(outputDir, METRICS_FILE);
    FileSystem fs = p.getFileSystem(conf);
    try (InputStream in = fs.open(p)) {
      return JSON.readValue(in, Metrics.class);
    }
  }

  /**
   * What is wrong with a job's output, if anything: metrics missing or unreadable, fewer steps
   * than {@code steps}, the model missing, or not the length and checksum the metrics name.
   */
  public static Optional<String> verify(Configuration conf, String outputDir, long steps) {
    Path dir = new Path(outputDir);
    Metrics m;
    try {
      m = readMetrics(conf, outputDir);
    } catch (FileNotFoundException e) {
      return Optional.of(METRICS_FILE + " is missing in " + dir);
    } catch (IOException e) {
      return Optional.of(METRICS_FILE + " in " + dir + " cannot be read: " + e.getMessage());
    }
    if (m.steps() != steps) {
      return Optional.of(METRICS_FILE + " says " + m.steps() + " steps were trained, not the job's " + steps);
    }
    Path model = new Path(dir, MODEL_FILE);
    try {
      FileSystem fs = model.getFileSystem(conf);
      if (!fs.exists(model)) {
        return Optional.of(MODEL_FILE + " is missing in " + dir);
      }
      // HDFS's file checksum comes from the datanodes' block checksums: the AM compares it without
      // reading the model, which for a large one would add its whole transfer to the job's end.
      String fileChecksum = m.modelFileChecksum() == null ? null : fileChecksum(fs, model);
      if (fileChecksum != null) {
        long length = fs.getFileStatus(model).getLen();
        if (length != m.modelBytes() || !fileChecksum.equals(m.modelFileChecksum())) {
          return Optional.of(MODEL_FILE + " in " + dir + " is not the model " + METRICS_FILE + " describes ("
              + length + " bytes, checksum " + fileChecksum + " against " + m.modelBytes() + " bytes, checksum "
              + m.modelFileChecksum() + ")");
        }
        return Optional.empty();
      }
      CRC32 crc = new CRC32();
      long length = 0;
      byte[] buffer = new byte[1 << 16];
      try (InputStream in = fs.open(model)) {
        for (int n; (n = in.read(buffer)) > 0; ) {
          crc.update(buffer, 0, n);
          length += n;
        }
      }
      if (length != m.modelBytes() || !Long.toHexString(crc.getValue()).equals(m.modelCrc32())) {
        return Optional.of(MODEL_FILE + " in " + dir + " is not the model " + METRICS_FILE + " describes ("
            + length + " bytes, crc32 " + Long.toHexString(crc.getValue()) + " against " + m.modelBytes() + " bytes, crc32 "
            + m.modelCrc32() + ")");
      }
    } catch (IOException e) {
      return Optional.of(MODEL_FILE + " in " + dir + " cannot be read: " + e.getMessage());
    }
    return Optional.empty();
  }

  /**
   * The file's checksum as its file system keeps it ({@code algorithm:hex}; HDFS: an MD5 of its
   * blocks' CRCs, computed by the datanodes), or null where the file system keeps none (the local
   * one) or cannot give it now: then the model is checked by reading it.
   */
  static String fileChecksum(FileSystem fs, Path file) {
    try {
      org.apache.hadoop.fs.FileChecksum c = fs.getFileChecksum(file);
      return c == null ? null : c.getAlgorithmName() + ":" + java.util.HexFormat.of().formatHex(c.getBytes());
    } catch (IOException | UnsupportedOperationException e) {
      return null;
    }
  }

  private interface Body {
    void write(OutputStream out) throws IOException;
  }

  private static Path writeTemporary(FileSystem fs, Path target, WriterEpoch writer, Body body)
      throws IOException {
    // Unique: a superseded leader writing at the same time never touches the real one's file.
    Path tmp = new Path(target.getParent(), TemporaryName.of(target.getName(), writer));
    FSDataOutputStream out = fs.create(tmp, true);
    try {
      body.write(out);
    } catch (IOException | RuntimeException e) {
      FailedWrites.close(out, e);
      throw e;
    }
    out.close();
    return tmp;
  }

  /**
   * Renames {@code tmp} over {@code target}. A missing {@code tmp} must leave {@code target} as it
   * is: a newer leadership removed it, and {@code target} may be that leadership's output.
   *
   * @throws Superseded {@code tmp} is gone
   */
  private static void replace(FileSystem fs, Path tmp, Path target, long epoch) throws IOException {
    try {
      if (fs instanceof ChecksumFileSystem) {
        replaceBesideChecksums(fs, tmp, target);
      } else {
        // HDFS checks the source and replaces the target in one step on the NameNode.
        FileUtil.rename(fs, tmp, target, Options.Rename.OVERWRITE);
      }
    } catch (FileNotFoundException e) {
      if (fs.exists(tmp)) {
        throw e;
      }
      throw new Superseded("leader epoch " + epoch + " is not the newest any more: a newer leadership removed "
          + tmp + ", so " + target + " was left as it is");
    }
  }

  /**
   * The local file system keeps a checksum file beside each file, which only its plain rename
   * moves along. Not atomic, but a local output has no second writer to race with.
   */
  private static void replaceBesideChecksums(FileSystem fs, Path tmp, Path target) throws IOException {
    if (!fs.exists(tmp)) {
      throw new FileNotFoundException(tmp.toString());
    }
    if (fs.exists(target)) {
      fs.delete(target, false);
    }
    if (!fs.rename(tmp, target)) {
      throw new IOException("could not rename " + tmp + " to " + target);
    }
  }

  private static OutputStream nonClosing(OutputStream out) {
    return new java.io.FilterOutputStream(out) {
      @Override
      public void close() throws IOException {
        flush();
      }
    };
  }
}
