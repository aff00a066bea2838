package org.edl.worker.runtime;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import java.util.zip.CRC32;
import org.apache.commons.csv.CSVFormat;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.edl.worker.data.BatchSlicer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's life in wall-clock milliseconds: process start, registration, every batch, every
 * switch, the end. Written next to the model as {@code timeline/<workerId>.csv} so that the
 * scaling benchmark can tell, from outside the containers, how long each worker did not train
 * and how long newcomers took to start. Wall clock (not the ticker) because the lines of
 * different processes are compared; on one machine that is exact, on a cluster as good as NTP.
 *
 * <p>Rows: {@code event,step,start_ms,end_ms,detail}; events {@code process}, {@code registered},
 * {@code ready}, {@code batch}, {@code switch} (detail: role and worker counts), {@code lead}
 * (detail: the leader epoch this worker claimed), {@code order} (detail: kind, the epoch of the
 * leadership that gave it and the ring version it leads to: every order this worker went by, when
 * it received it),
 * {@code end}, and {@code trained} last (detail: {@link Coverage#detail}: how many sample positions
 * this worker trained, a fingerprint of them, and the CRC-32 of its final parameters). The chaos
 * benchmark checks from these that no order of a superseded leadership was carried out after a
 * newer one began; the soak benchmark that the job's workers together trained every position
 * once and ended with the same parameters.
 *
 * <p>A long job trains millions of batches: rows go to a local file ({@code spill}, in the
 * container's working directory, which YARN deletes with the container) as they happen, so the
 * worker's heap does not grow with its steps; {@link #write} copies the file to HDFS at the end.
 */
public final class Timeline implements WorkerListener, AutoCloseable {
  public static final String DIRECTORY = "timeline";
  public static final String HEADER = "event,step,start_ms,end_ms,detail";
  /** The local file a container's timeline is spilled to. */
  public static final String SPILL_FILE = "edl-timeline.csv";
  /** One row as CSV (a detail with a comma or a quote is quoted). */
  private static final CSVFormat ROW = CSVFormat.DEFAULT;
  private static final Logger LOG = LoggerFactory.getLogger(Timeline.class);

  /**
   * The sample positions one worker trained, in constant space: how many, and the sum (mod 2^64)
   * of a 64-bit mix of each. Summed over all workers of a job it equals the same figures of the
   * positions {@code [0, n)} exactly when every position was trained once (a repeated and a
   * skipped position would have to cancel in a 64-bit hash sum).
   */
  public record Coverage(long positions, long fingerprint) {
    public static final Coverage NONE = new Coverage(0, 0);

    /** The coverage of positions {@code [from, to)}. */
    public static Coverage of(long from, long to) {
      long sum = 0;
      for (long p = from; p < to; p++) {
        sum += mix(p);
      }
      return new Coverage(Math.max(0, to - from), sum);
    }

    public Coverage plus(Coverage other) {
      return new Coverage(positions + other.positions, fingerprint + other.fingerprint);
    }

    /** As the {@code trained} row writes it: {@code positions=<n> fingerprint=<hex>}. */
    public String detail() {
      return "positions=" + positions + " fingerprint=" + Long.toHexString(fingerprint);
    }

    /** SplitMix64's finaliser: neighbouring positions get unrelated values. */
    static long mix(long p) {
      long z = p + 0x9E3779B97F4A7C15L;
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      return z ^ (z >>> 31);
    }
  }

  private final LongSupplier clock;
  private final java.nio.file.Path spill;
  private final Writer rows;
  private long batchStart = -1;
  private Coverage coverage = Coverage.NONE;
  /** Set when a row could not be spilled: the timeline has holes and is not copied. */
  private IOException broken;

  /** A timeline spilled to {@link #SPILL_FILE} in the working directory. */
  public Timeline() throws IOException {
    this(System::currentTimeMillis, java.nio.file.Path.of(SPILL_FILE));
  }

  Timeline(LongSupplier clock, java.nio.file.Path spill) throws IOException {
    this.clock = clock;
    this.spill = spill;
    this.rows = new BufferedWriter(Files.newBufferedWriter(spill, StandardCharsets.UTF_8), 1 << 16);
    rows.write(HEADER);
    rows.write('\n');
    long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
    add("process", -1, jvmStart, clock.getAsLong(), "");
  }

  @Override
  public synchronized void registered(String workerId, boolean newcomer) {
    long now = clock.getAsLong();
    add("registered", -1, now, now, newcomer ? "newcomer" : "first-ring");
  }

  @Override
  public synchronized void readyToJoin(String workerId, long topologyVersion, long atNanos) {
    long now = clock.getAsLong();
    add("ready", -1, now, now, "v" + topologyVersion);
  }

  @Override
  public synchronized void beforeBatch(String workerId, long step) {
    batchStart = clock.getAsLong();
  }

  @Override
  public synchronized void batchTrained(String workerId, long step, BatchSlicer.Range positions, int[] samples) {
    long now = clock.getAsLong();
    add("batch", step, batchStart < 0 ? now : batchStart, now, "");
    batchStart = -1;
    if (positions != null) {
      coverage = coverage.plus(Coverage.of(positions.from(), positions.to()));
    }
  }

  @Override
  public synchronized void switched(String workerId, SwitchRecord r) {
    long now = clock.getAsLong();
    long stoppedMs = r.stoppedNanos() / 1_000_000;
    add("switch", r.atStep(), now - stoppedMs, now,
        r.role().name().toLowerCase(Locale.ROOT) + " " + r.workersBefore() + "->" + r.workersAfter());
  }

  @Override
  public synchronized void leading(String workerId, long leaderEpoch) {
    long now = clock.getAsLong();
    add("lead", -1, now, now, "epoch " + leaderEpoch);
  }

  @Override
  public synchronized void orderReceived(String workerId, String kind, long leaderEpoch, long topologyVersion) {
    long now = clock.getAsLong();
    add("order", -1, now, now, kind + " epoch " + leaderEpoch + " v" + topologyVersion);
  }

  /**
   * The run is over; {@code how} says how it ended (finished, left, failed ...);
   * {@code parameters} are the worker's final parameters, null if it has none.
   */
  public synchronized void ended(long nextStep, String how, float[] parameters) {
    long now = clock.getAsLong();
    add("end", nextStep, now, now, how);
    add("trained", nextStep, now, now, coverage.detail()
        + (parameters == null ? "" : " parameters=" + Long.toHexString(crc32(parameters))));
  }

  /** The positions trained so far. */
  public synchronized Coverage coverage() {
    return coverage;
  }

  /** The rows so far, the header first. */
  public synchronized List<String> rows() throws IOException {
    rows.flush();
    return Files.readAllLines(spill, StandardCharsets.UTF_8);
  }

  /** Copies the timeline to {@code <outputDir>/timeline/<workerId>.csv}. */
  public synchronized Path write(String outputDir, String workerId, Configuration conf) throws IOException {
    if (broken != null) {
      throw new IOException("the timeline is incomplete: " + broken.getMessage(), broken);
    }
    rows.flush();
    Path file = new Path(new Path(outputDir, DIRECTORY), workerId + ".csv");
    FileSystem fs = file.getFileSystem(conf);
    fs.mkdirs(file.getParent());
    fs.copyFromLocalFile(false, true, new Path(spill.toAbsolutePath().toUri()), file);
    return file;
  }

  @Override
  public synchronized void close() throws IOException {
    rows.close();
  }

  /** CRC-32 of the parameters' IEEE bits, big-endian as {@code model.bin} stores floats. */
  static long crc32(float[] parameters) {
    CRC32 crc = new CRC32();
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(4 * 1024);
    for (int i = 0; i < parameters.length; i++) {
      if (!b.hasRemaining()) {
        crc.update(b.flip());
        b.clear();
      }
      b.putInt(Float.floatToRawIntBits(parameters[i]));
    }
    crc.update(b.flip());
    return crc.getValue();
  }

  private void add(String event, long step, long startMs, long endMs, String detail) {
    if (broken != null) {
      return;
    }
    try {
      rows.write(ROW.format(event, step, startMs, endMs, detail));
      rows.write('\n');
    } catch (IOException e) {
      // The timeline is a record, not part of training: a full local disk ends the record (and
      // write says so), not the run.
      broken = e;
      LOG.warn("Timeline recording stopped: cannot write {}: {}", spill.toAbsolutePath(), e.toString());
    }
  }
}
