package org.edl.worker.data;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.zip.CRC32;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A parsed copy of a text data set (LIBSVM, CSV), in binary, in a directory every worker of the
 * job can read: a worker that joins later reads the floats instead of parsing the text again.
 * Parsing is what a newcomer spent most of its start on (7 s for 60 MB of LIBSVM on a busy
 * two-core machine, against 0.3 s for the copy), and its GPU idles meanwhile.
 *
 * <p>A copy names its source (path, length, modification time, format) in its file name and
 * header, so a changed source is parsed again; it ends with a CRC-32, so a torn or damaged copy is
 * ignored, never trained on. The first worker to parse writes it: the temporary file is created
 * exclusively, so of a first ring that parses together one writes and the others skip.
 */
public final class DatasetCache {
  private static final Logger LOG = LoggerFactory.getLogger(DatasetCache.class);
  private static final byte[] MAGIC = "EDLDATA1".getBytes(StandardCharsets.US_ASCII);
  /** A temporary copy older than this was left by a writer that died; it may be replaced. */
  static final long ABANDONED_MS = 10 * 60_000L;

  /** What a copy is a copy of. */
  public record Source(String path, long length, long modified, DataFormat format) {
    public static Source of(FileStatus status, DataFormat format) {
      return new Source(status.getPath().toString(), status.getLen(), status.getModificationTime(), format);
    }

    String key() {
      return path + "\n" + length + "\n" + modified + "\n" + format;
    }

    String fileName() {
      try {
        byte[] hash = MessageDigest.getInstance("SHA-256").digest(key().getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(hash, 0, 12) + ".bin";
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("every JVM has SHA-256", e);
      }
    }
  }

  private final Path dir;
  private final Configuration conf;

  public DatasetCache(Path dir, Configuration conf) {
    this.dir = dir;
    this.conf = conf;
  }

  /** The cache in {@code dir}; none for an empty name. */
  public static Optional<DatasetCache> in(String dir, Configuration conf) {
    return dir == null || dir.isBlank() ? Optional.empty() : Optional.of(new DatasetCache(new Path(dir), conf));
  }

  public Path pathOf(Source source) {
    return new Path(dir, source.fileName());
  }

  /** The copy of {@code source}, if there is a whole one; anything unreadable is logged and skipped. */
  public Optional<Dataset> read(Source source) {
    Path file = pathOf(source);
    try {
      FileSystem fs = file.getFileSystem(conf);
      try (InputStream raw = fs.open(file)) {
        return Optional.of(read(raw, source));
      }
    } catch (FileNotFoundException e) {
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      LOG.warn("Ignoring the binary copy {} of {}: {}", file, source.path(), e.toString());
      return Optional.empty();
    }
  }

  static Dataset read(InputStream raw, Source source) throws IOException {
    CRC32 crc = new CRC32();
    DataInputStream in = new DataInputStream(new CheckedInputStream(new java.io.BufferedInputStream(raw, 1 << 16), crc));
    byte[] magic = new byte[MAGIC.length];
    in.readFully(magic);
    if (!java.util.Arrays.equals(magic, MAGIC)) {
      throw new IOException("not a data set copy (bad magic)");
    }
    String key = in.readUTF();
    if (!key.equals(source.key())) {
      throw new IOException("a copy of another source: " + key.replace('\n', ' '));
    }
    int rows = in.readInt();
    int featureCount = in.readInt();
    int classCount = in.readInt();
    if (rows < 0 || featureCount <= 0 || classCount <= 0 || (long) rows * featureCount > Integer.MAX_VALUE) {
      throw new IOException("bad shape " + rows + " x " + featureCount + ", " + classCount + " classes");
    }
    int[] labels = readInts(in, rows);
    float[] features = Floats.read(in, rows * featureCount);
    long expected = crc.getValue();
    long stored;
    try {
      stored = in.readLong();
    } catch (EOFException e) {
      throw new IOException("truncated: no checksum");
    }
    if (stored != expected) {
      throw new IOException("checksum mismatch");
    }
    return new Dataset(features, labels, featureCount, classCount);
  }

  /**
   * Writes the copy unless another writer is at it or it exists: the temporary file is created
   * exclusively and renamed into place. Best effort: a failure only costs later workers the parse.
   *
   * @return whether this call wrote it
   */
  public boolean write(Source source, Dataset data) {
    Path file = pathOf(source);
    Path tmp = new Path(dir, "." + source.fileName() + ".writing");
    try {
      FileSystem fs = file.getFileSystem(conf);
      if (fs.exists(file) || !claim(fs, tmp)) {
        return false;
      }
      try {
        try (OutputStream raw = fs.create(tmp, true)) {
          write(raw, source, data);
        }
        if (fs.rename(tmp, file)) {
          LOG.info("Wrote the binary copy {} of {} ({} rows)", file, source.path(), data.size());
          return true;
        }
        return false;
      } finally {
        fs.delete(tmp, false);
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not write the binary copy {} of {}: {}", file, source.path(), e.toString());
      return false;
    }
  }

  /** Creates {@code tmp} exclusively; a stale one a dead writer left is replaced once. */
  private static boolean claim(FileSystem fs, Path tmp) throws IOException {
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        fs.create(tmp, false).close();
        return true;
      } catch (IOException taken) {
        FileStatus st;
        try {
          st = fs.getFileStatus(tmp);
        } catch (FileNotFoundException gone) {
          continue;
        }
        if (System.currentTimeMillis() - st.getModificationTime() < ABANDONED_MS || !fs.delete(tmp, false)) {
          return false;
        }
      }
    }
    return false;
  }

  static void write(OutputStream raw, Source source, Dataset data) throws IOException {
    CRC32 crc = new CRC32();
    DataOutputStream out = new DataOutputStream(new CheckedOutputStream(new java.io.BufferedOutputStream(raw, 1 << 16), crc));
    out.write(MAGIC);
    out.writeUTF(source.key());
    out.writeInt(data.size());
    out.writeInt(data.featureCount());
    out.writeInt(data.classCount());
    writeInts(out, data.labels());
    Floats.write(out, data.features());
    out.flush();
    // The checksum covers everything before it, so it goes out past the checked stream.
    DataOutputStream tail = new DataOutputStream(raw);
    tail.writeLong(crc.getValue());
    tail.flush();
  }

  private static void writeInts(DataOutputStream out, int[] values) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(values.length * Integer.BYTES);
    buf.asIntBuffer().put(values);
    out.write(buf.array());
  }

  private static int[] readInts(DataInputStream in, int count) throws IOException {
    byte[] bytes = new byte[count * Integer.BYTES];
    in.readFully(bytes);
    int[] values = new int[count];
    ByteBuffer.wrap(bytes).asIntBuffer().get(values);
    return values;
  }
}
