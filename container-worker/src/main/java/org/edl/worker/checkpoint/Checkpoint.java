package org.edl.worker.checkpoint;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.edl.job.FailedWrites;
import org.edl.job.TemporaryName;
import org.edl.job.WriterEpoch;
import org.edl.worker.model.IncompatibleStateException;
import org.edl.worker.model.TrainableModel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One checkpoint on any Hadoop file system (HDFS on a cluster, the local one in tests): the
 * model's parameters and the job's position, in a directory of its own under a checkpoint
 * directory:
 *
 * <pre>
 * &lt;directory&gt;/ckpt-00000000000000000120/   named by the next step, zero-padded so names sort
 *     model.bin               TrainableModel.writeState (shape header + flat parameters)
 *     checkpoint.properties   {@link CheckpointMeta}
 *     _COMPLETE               length and CRC-32 of both files; written last
 * &lt;directory&gt;/.ckpt-….&lt;appId&gt;.e&lt;epoch&gt;.&lt;uuid&gt;.tmp/
 *                             a write in progress (or one whose writer died or was fenced)
 * </pre>
 *
 * A write fills a hidden temporary directory, writes the marker last and then renames the
 * directory into place: a crash at any point leaves either no {@code ckpt-*} directory or a
 * complete one. The temporary's name carries its writer's leader epoch ({@link TemporaryName}),
 * so that a later leadership removes what a fenced one left
 * ({@link CheckpointDirectory#removeStaleTemporaries});
 * removing it also takes away what a fenced writer still paused before its rename would rename.
 * Reading checks the marker, the meta-data's checksum and the model file's length;
 * {@link #restoreInto} checks the model file's checksum as it loads it. A directory of several
 * checkpoints is read through its newest one; {@link CheckpointDirectory} lists, prunes and
 * searches such a directory.
 */
public final class Checkpoint {
  private static final Logger LOG = LoggerFactory.getLogger(Checkpoint.class);

  public static final String PREFIX = "ckpt-";
  public static final String MODEL_FILE = "model.bin";
  public static final String META_FILE = "checkpoint.properties";
  public static final String COMPLETE_MARKER = "_COMPLETE";
  static final Pattern NAME = Pattern.compile(Pattern.quote(PREFIX) + "\\d{20}");
  private static final int IO_BUFFER = 1 << 16;

  /** Length and CRC-32 of one file, as the marker records them. */
  record Sum(long length, long crc) {
    String text() {
      return length + " " + Long.toHexString(crc);
    }
  }

  private final FileSystem fs;
  private final Path path;
  private final CheckpointMeta meta;
  private final Sum modelSum;

  Checkpoint(FileSystem fs, Path path, CheckpointMeta meta, Sum modelSum) {
    this.fs = fs;
    this.path = path;
    this.meta = meta;
    this.modelSum = modelSum;
  }

  /** This checkpoint's own directory, fully qualified. */
  public Path path() {
    return path;
  }

  public CheckpointMeta meta() {
    return meta;
  }

  /** Bytes of the model file. */
  public long modelBytes() {
    return modelSum.length();
  }

  /** The name of the checkpoint that resumes at {@code nextStep}. */
  public static String nameFor(long nextStep) {
    return String.format("%s%020d", PREFIX, nextStep);
  }

  /**
   * Writes {@code model} and {@code meta} as a new checkpoint under {@code directory} (created
   * if missing). Never replaces an existing checkpoint.
   */
  public static Checkpoint write(Configuration conf, String directory, CheckpointMeta meta,
      TrainableModel model) throws IOException {
    return write(conf, directory, meta, model, WriterEpoch.UNATTRIBUTED, Commit.ALWAYS);
  }

  /**
   * As {@link #write(Configuration, String, CheckpointMeta, TrainableModel)}, by a leadership of
   * application {@code appId} (its epoch is the meta-data's), renamed into place only when
   * {@code commit} allows it. The model streams from its parameters to the file system, with no
   * copy in memory: for a worker that does not train meanwhile (a stop), whose heap may hold
   * little more than the model and its gradient.
   */
  public static Checkpoint write(Configuration conf, String directory, CheckpointMeta meta,
      TrainableModel model, String appId, Commit commit) throws IOException {
    if (model.parameters().length != meta.parameterCount() || !model.name().equals(meta.model())) {
      throw new IllegalArgumentException("meta-data for " + meta.model() + " (" + meta.parameterCount()
          + " parameters) does not describe " + model.name() + " (" + model.parameters().length + ")");
    }
    return CheckpointCommit.write(conf, directory, meta, out -> {
      DataOutputStream data = new DataOutputStream(new BufferedOutputStream(out, IO_BUFFER));
      model.writeState(data);
      data.flush();
    }, new WriterEpoch(appId, meta.leaderEpoch()), commit);
  }

  /**
   * The model's state as {@link TrainableModel#writeState} writes it, taken in memory: a
   * periodic checkpoint copies it on the training thread and writes it on another.
   */
  public static byte[] snapshot(TrainableModel model) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream(model.parameters().length * Float.BYTES + 256);
    DataOutputStream data = new DataOutputStream(b);
    model.writeState(data);
    data.flush();
    return b.toByteArray();
  }

  /** Writes a {@link #snapshot} of the model {@code meta} describes as a new checkpoint. */
  public static Checkpoint write(Configuration conf, String directory, CheckpointMeta meta,
      byte[] modelState) throws IOException {
    return write(conf, directory, meta, modelState, WriterEpoch.UNATTRIBUTED, Commit.ALWAYS);
  }

  /**
   * Asked once the checkpoint is complete under its temporary name (may it become visible?) and
   * again once it is in place (may it stay?).
   */
  @FunctionalInterface
  public interface Commit {
    Commit ALWAYS = () -> true;

    /** False: the writer's leadership is over; the checkpoint is dropped, or taken back if it was in place. */
    boolean allowed();
  }

  /**
   * As {@link #write(Configuration, String, CheckpointMeta, byte[])}, by a leadership of
   * application {@code appId} (its epoch is the meta-data's), renamed into place only when
   * {@code commit} allows it: a leader that was superseded while it wrote leaves nothing a
   * recovery or a resubmission could take.
   */
  public static Checkpoint write(Configuration conf, String directory, CheckpointMeta meta,
      byte[] modelState, String appId, Commit commit) throws IOException {
    return CheckpointCommit.write(conf, directory, meta, out -> out.write(modelState),
        new WriterEpoch(appId, meta.leaderEpoch()),
        commit);
  }

  /**
   * Reads the checkpoint at {@code location}: a checkpoint's own directory, or a directory of
   * checkpoints (its newest is read). Checks completeness, the meta-data's checksum and the
   * model file's length, not yet the model bytes (see {@link #restoreInto}); cheap enough to
   * show a checkpoint's step and workers.
   *
   * @throws FileNotFoundException when nothing is there
   * @throws IOException           naming the path when the checkpoint is incomplete or damaged
   */
  public static Checkpoint read(Configuration conf, String location) throws IOException {
    Path p = new Path(location);
    FileSystem fs = p.getFileSystem(conf);
    p = fs.makeQualified(p);
    if (!fs.exists(p)) {
      throw new FileNotFoundException("checkpoint " + p + " does not exist");
    }
    if (!fs.getFileStatus(p).isDirectory()) {
      throw new IOException("checkpoint " + p + " is a file; expected a checkpoint directory");
    }
    if (isCheckpointDir(fs, p)) {
      return readOne(fs, p);
    }
    List<Path> all = CheckpointDirectory.list(fs, p);
    if (all.isEmpty()) {
      throw new FileNotFoundException("no checkpoint in " + p + " (no " + PREFIX + "* directory)");
    }
    return readOne(fs, all.get(all.size() - 1));
  }

  static boolean isCheckpointDir(FileSystem fs, Path p) throws IOException {
    return NAME.matcher(p.getName()).matches() || fs.exists(new Path(p, META_FILE))
        || fs.exists(new Path(p, MODEL_FILE));
  }

  /**
   * Reads the whole model file and checks it against the checksum the marker recorded, without
   * loading it into a model.
   *
   * @throws IOException naming the path when it does not match
   */
  public void verify() throws IOException {
    Path modelPath = new Path(path, MODEL_FILE);
    CRC32 crc = new CRC32();
    long length = 0;
    byte[] buffer = new byte[IO_BUFFER];
    try (InputStream in = fs.open(modelPath)) {
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        crc.update(buffer, 0, n);
        length += n;
      }
    } catch (IOException e) {
      throw new IOException("checkpoint " + path + " is damaged: reading " + MODEL_FILE + " failed: "
          + e.getMessage(), e);
    }
    if (length != modelSum.length() || crc.getValue() != modelSum.crc()) {
      throw new IOException("checkpoint " + path + " is damaged: " + MODEL_FILE + " does not match its checksum");
    }
  }

  static Checkpoint readOne(FileSystem fs, Path dir) throws IOException {
    Path markerPath = new Path(dir, COMPLETE_MARKER);
    if (!fs.exists(markerPath)) {
      throw new IOException("checkpoint " + dir + " is incomplete: no " + COMPLETE_MARKER
          + " marker (its write did not finish)");
    }
    Map<String, Sum> sums = parseMarker(readAll(fs, markerPath), markerPath);
    byte[] metaBytes = readAll(fs, new Path(dir, META_FILE));
    CRC32 crc = new CRC32();
    crc.update(metaBytes);
    Sum metaSum = sums.get(META_FILE);
    if (metaSum.length() != metaBytes.length || metaSum.crc() != crc.getValue()) {
      throw new IOException("checkpoint " + dir + " is damaged: " + META_FILE + " does not match its checksum");
    }
    CheckpointMeta meta = CheckpointMeta.parse(new String(metaBytes, StandardCharsets.UTF_8),
        "checkpoint " + new Path(dir, META_FILE));
    Path modelPath = new Path(dir, MODEL_FILE);
    if (!fs.exists(modelPath)) {
      throw new IOException("checkpoint " + dir + " is damaged: " + MODEL_FILE + " is missing");
    }
    long length = fs.getFileStatus(modelPath).getLen();
    Sum modelSum = sums.get(MODEL_FILE);
    if (length != modelSum.length()) {
      throw new IOException("checkpoint " + dir + " is damaged: " + MODEL_FILE + " has " + length
          + " bytes, the checkpoint recorded " + modelSum.length());
    }
    return new Checkpoint(fs, dir, meta, modelSum);
  }

  /**
   * Loads the parameters into {@code model}, checking first that the checkpoint is of this model
   * and then the model file's checksum. After an IOException other than
   * {@link IncompatibleStateException} the parameters are undefined: do not train with them.
   *
   * @throws IncompatibleStateException when the checkpoint holds another model or shape
   */
  public void restoreInto(TrainableModel model) throws IOException {
    if (!model.name().equals(meta.model()) || model.parameters().length != meta.parameterCount()) {
      throw new IncompatibleStateException("checkpoint " + path + " holds " + meta.model() + " with "
          + meta.parameterCount() + " parameters; this job's model is " + model.name() + " with "
          + model.parameters().length);
    }
    Path modelPath = new Path(path, MODEL_FILE);
    CRC32 crc = new CRC32();
    try (InputStream raw = fs.open(modelPath);
        CheckedInputStream checked = new CheckedInputStream(new BufferedInputStream(raw, IO_BUFFER), crc)) {
      try {
        model.readState(new DataInputStream(checked));
      } catch (IncompatibleStateException e) {
        throw new IncompatibleStateException("checkpoint " + path + ": " + e.getMessage());
      } catch (EOFException e) {
        throw new IOException("checkpoint " + path + " is damaged: " + MODEL_FILE + " ends early", e);
      } catch (IOException e) {
        // A file system's own checksums (HDFS, the local ChecksumFileSystem) may see it first.
        throw new IOException("checkpoint " + path + " is damaged: reading " + MODEL_FILE + " failed: "
            + e.getMessage(), e);
      }
      long extra = 0;
      while (checked.read() >= 0) {
        extra++;
      }
      if (extra != 0 || crc.getValue() != modelSum.crc()) {
        throw new IOException("checkpoint " + path + " is damaged: " + MODEL_FILE + " does not match its checksum");
      }
    }
    LOG.info("Restored {} parameters of {} from {} (next step {})", meta.parameterCount(), meta.model(),
        path, meta.nextStep());
  }

  @Override
  public String toString() {
    return path + " (next step " + meta.nextStep() + ", " + meta.workers() + " workers)";
  }

  interface Body {
    void write(OutputStream out) throws IOException;
  }

  static Sum writeFile(FileSystem fs, Path file, Body body) throws IOException {
    CRC32 crc = new CRC32();
    long length;
    FSDataOutputStream raw = fs.create(file, false);
    try {
      CheckedOutputStream out = new CheckedOutputStream(raw, crc);
      body.write(out);
      out.flush();
      // On HDFS: on the DataNodes' disks before the marker is written and the rename publishes it.
      raw.hsync();
      length = raw.getPos();
    } catch (IOException | RuntimeException e) {
      FailedWrites.close(raw, e);
      throw e;
    }
    raw.close();
    return new Sum(length, crc.getValue());
  }

  private static byte[] readAll(FileSystem fs, Path file) throws IOException {
    try (InputStream in = fs.open(file)) {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      in.transferTo(b);
      return b.toByteArray();
    } catch (FileNotFoundException e) {
      throw new IOException("checkpoint " + file.getParent() + " is damaged: " + file.getName() + " is missing", e);
    }
  }

  private static Map<String, Sum> parseMarker(byte[] bytes, Path marker) throws IOException {
    Map<String, Sum> sums = new LinkedHashMap<>();
    for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      String[] kv = line.split("=", 2);
      String[] v = kv.length == 2 ? kv[1].trim().split(" ") : new String[0];
      try {
        if (v.length != 2) {
          throw new NumberFormatException();
        }
        sums.put(kv[0].trim(), new Sum(Long.parseLong(v[0]), Long.parseLong(v[1], 16)));
      } catch (NumberFormatException e) {
        throw new IOException("checkpoint marker " + marker + " is damaged: '" + line + "'");
      }
    }
    for (String f : List.of(MODEL_FILE, META_FILE)) {
      if (!sums.containsKey(f)) {
        throw new IOException("checkpoint marker " + marker + " is damaged: no entry for " + f);
      }
    }
    return sums;
  }
}
