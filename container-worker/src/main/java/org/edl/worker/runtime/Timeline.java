package org.edl.worker.runtime;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import org.apache.commons.csv.CSVFormat;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.edl.worker.data.BatchSlicer;

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
 * {@code end}. The chaos benchmark checks from these that no order of a superseded leadership was
 * carried out after a newer one began.
 */
public final class Timeline implements WorkerListener {
  public static final String DIRECTORY = "timeline";
  public static final String HEADER = "event,step,start_ms,end_ms,detail";
  /** One row as CSV (a detail with a comma or a quote is quoted). */
  private static final CSVFormat ROW = CSVFormat.DEFAULT;

  private final LongSupplier clock;
  private final List<String> rows = new ArrayList<>();
  private long batchStart = -1;

  public Timeline() {
    this(System::currentTimeMillis);
  }

  Timeline(LongSupplier clock) {
    this.clock = clock;
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

  /** The run is over; {@code how} says how it ended (finished, left, failed ...). */
  public synchronized void ended(long nextStep, String how) {
    long now = clock.getAsLong();
    add("end", nextStep, now, now, how);
  }

  public synchronized List<String> rows() {
    return List.copyOf(rows);
  }

  /** Writes {@code <outputDir>/timeline/<workerId>.csv}. */
  public synchronized Path write(String outputDir, String workerId, Configuration conf) throws IOException {
    Path file = new Path(new Path(outputDir, DIRECTORY), workerId + ".csv");
    FileSystem fs = file.getFileSystem(conf);
    fs.mkdirs(file.getParent());
    try (FSDataOutputStream out = fs.create(file, true);
        Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8)) {
      w.write(HEADER);
      w.write('\n');
      for (String row : rows) {
        w.write(row);
        w.write('\n');
      }
    }
    return file;
  }

  private void add(String event, long step, long startMs, long endMs, String detail) {
    rows.add(ROW.format(event, step, startMs, endMs, detail));
  }
}
