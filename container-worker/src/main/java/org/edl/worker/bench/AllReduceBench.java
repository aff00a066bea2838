package org.edl.worker.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSecret;

/**
 * {@code bin/edl bench allreduce}: ring all-reduce against the gather-broadcast baseline and the
 * single-stream loopback limit, members as threads in this JVM over real loopback TCP. Writes
 * {@code allreduce.csv} and {@code allreduce.png} to the output directory. A benchmark, not a
 * test: nothing here asserts a speed.
 */
public final class AllReduceBench {
  public static final String RING = "ring";
  public static final String RING_SHARED_MEMORY = "ring-shm";
  public static final String GATHER_BROADCAST = "gather-broadcast";
  public static final String P2P = "p2p-limit";
  public static final String P2P_SHARED_MEMORY = "p2p-limit-shm";
  private static final Path SHARED_MEMORY = Path.of("/dev/shm");
  private static final int WARMUP = 2;

  private AllReduceBench() {}

  public static void main(String[] args) throws IOException {
    AllReduceBenchOptions options;
    try {
      options = AllReduceBenchOptions.parse(args);
    } catch (InvalidInputException e) {
      System.err.println("edl bench allreduce: " + e.getMessage());
      System.err.println(AllReduceBenchOptions.USAGE);
      System.exit(2);
      return;
    }
    run(options, System.out);
  }

  /** Runs every point, writes the CSV and the plot, and returns the points. */
  public static List<BandwidthPoint> run(AllReduceBenchOptions options, PrintStream progress)
      throws IOException {
    options.validate();
    long largestArrays = options.maxBytes() * options.members().stream().mapToInt(Integer::intValue).max().orElse(0);
    if (largestArrays > Runtime.getRuntime().maxMemory() * 0.8) {
      throw new InvalidInputException("max-bytes", options.maxBytes(), "needs about "
          + (largestArrays >> 20) + " MiB of heap for the largest ring; run with a larger -Xmx (now "
          + (Runtime.getRuntime().maxMemory() >> 20) + " MiB)");
    }
    Files.createDirectories(options.outDir());
    Optional<GlooPeer> gloo = glooPeer(options, progress);
    List<BandwidthPoint> points = new ArrayList<>();

    Path sharedMemoryDir = Files.createTempDirectory(Files.isDirectory(SHARED_MEMORY) && Files.isWritable(SHARED_MEMORY)
        ? SHARED_MEMORY : Path.of(System.getProperty("java.io.tmpdir")), "edl-bench-");
    try {
      try (StreamLimit stream = new StreamLimit(JobSecret.generate(), (int) options.maxBytes())) {
        for (long bytes : options.sizes()) {
          points.add(report(progress, BandwidthPoint.stream(bytes, P2P, medianOf(stream::transfer, bytes, options)),
              options.iterationsFor(bytes)));
        }
      }
      try (SharedMemoryStreamLimit stream = new SharedMemoryStreamLimit(JobSecret.generate(), sharedMemoryDir,
          (int) options.maxBytes(), options.chunkBytes())) {
        progress.println(P2P_SHARED_MEMORY + " in " + sharedMemoryDir + ": " + stream.transport());
        for (long bytes : options.sizes()) {
          points.add(report(progress, BandwidthPoint.stream(bytes, P2P_SHARED_MEMORY,
              medianOf(stream::transfer, bytes, options)), options.iterationsFor(bytes)));
        }
      }

      for (int members : options.members()) {
        try (LoopbackGroup group = new LoopbackGroup(members, options.chunkBytes(), sharedMemoryDir)) {
          progress.println(RING_SHARED_MEMORY + " with " + members + " members: " + group.sharedMemoryTransport());
          for (long bytes : options.sizes()) {
            List<float[]> data = new ArrayList<>();
            for (int r = 0; r < members; r++) {
              float[] a = new float[(int) (bytes / Float.BYTES)];
              Arrays.fill(a, 1f);
              data.add(a);
            }
            int n = options.iterationsFor(bytes);
            double ring = group.medianSeconds(group.ring(), data, WARMUP, n);
            points.add(report(progress, BandwidthPoint.allReduce(members, bytes, RING, ring), n));
            double shared = group.medianSeconds(group.sharedMemoryRing(), data, WARMUP, n);
            points.add(report(progress, BandwidthPoint.allReduce(members, bytes, RING_SHARED_MEMORY, shared), n));
            double gather = group.medianSeconds(group.gatherBroadcast(), data, WARMUP, n);
            points.add(report(progress, BandwidthPoint.allReduce(members, bytes, GATHER_BROADCAST, gather), n));
          }
        }
        if (gloo.isPresent()) {
          for (BandwidthPoint p : gloo.get().run(members, options.sizes(), options.iterations(), WARMUP)) {
            points.add(report(progress, p, options.iterationsFor(p.bytes())));
          }
        }
      }
    } finally {
      Files.deleteIfExists(sharedMemoryDir);
    }

    Path csv = options.outDir().resolve("allreduce.csv");
    try (var out = Files.newBufferedWriter(csv, StandardCharsets.UTF_8)) {
      BandwidthPoint.writeCsv(points, out);
    }
    Path png = options.outDir().resolve("allreduce.png");
    BandwidthPlot.write(points, "All-reduce bus bandwidth, one host: loopback TCP and shared memory ("
        + Runtime.getRuntime().availableProcessors() + " cores)", png);
    progress.println("wrote " + csv + " and " + png);
    return points;
  }

  private interface Transfer {
    double seconds(int bytes) throws IOException;
  }

  /** The median of the timed transfers of {@code bytes}, after the warm-up ones. */
  private static double medianOf(Transfer transfer, long bytes, AllReduceBenchOptions options) throws IOException {
    for (int i = 0; i < WARMUP; i++) {
      transfer.seconds((int) bytes);
    }
    double[] s = new double[options.iterationsFor(bytes)];
    for (int i = 0; i < s.length; i++) {
      s[i] = transfer.seconds((int) bytes);
    }
    return LoopbackGroup.median(s);
  }

  /** The gloo peer the options ask for; {@code auto} without torch says so and goes on without it. */
  private static Optional<GlooPeer> glooPeer(AllReduceBenchOptions options, PrintStream progress) {
    if (options.gloo() == AllReduceBenchOptions.Gloo.OFF) {
      return Optional.empty();
    }
    Optional<GlooPeer> peer = GlooPeer.find(options.python());
    if (peer.isEmpty()) {
      String why = "no Python with torch.distributed and gloo (tried " + options.python() + " and "
          + GlooPeer.DEBIAN_PYTHON + "; Debian: apt-get install python3-torch)";
      if (options.gloo() == AllReduceBenchOptions.Gloo.ON) {
        throw new InvalidInputException("gloo", "on", why);
      }
      progress.println("gloo skipped: " + why);
    } else {
      progress.println("gloo: torch.distributed with " + peer.get().python());
    }
    return peer;
  }

  private static BandwidthPoint report(PrintStream progress, BandwidthPoint p, int iterations) {
    progress.printf(Locale.ROOT, "%-16s members=%d bytes=%-10d algbw=%8.3f GB/s busbw=%8.3f GB/s (median of %d)%n",
        p.impl(), p.members(), p.bytes(), p.algbwGbps(), p.busbwGbps(), iterations);
    progress.flush();
    return p;
  }
}
