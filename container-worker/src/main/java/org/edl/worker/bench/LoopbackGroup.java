package org.edl.worker.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.edl.job.JobSecret;
import org.edl.worker.collective.AllReduce;
import org.edl.worker.collective.DataPlane;
import org.edl.worker.collective.GatherBroadcastAllReduce;
import org.edl.worker.collective.Ring;
import org.edl.worker.collective.RingAllReduce;
import org.edl.worker.collective.RingTopology;

/**
 * {@code n} members in this JVM, one thread each, with real data planes on loopback and both
 * all-reduce implementations formed over them.
 */
final class LoopbackGroup implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofMinutes(5);

  interface Impl {
    AllReduce of(int rank);
  }

  private final int size;
  private final List<DataPlane> planes = new ArrayList<>();
  private final List<Ring> rings;
  private final List<RingAllReduce> ringImpls;
  private final List<Ring> sharedRings;
  private final List<RingAllReduce> sharedRingImpls;
  private final List<GatherBroadcastAllReduce> gatherImpls;
  private final ExecutorService threads;

  /** @param sharedMemoryDir where the second ring's segments go (a tmpfs, as workers use) */
  LoopbackGroup(int size, int chunkBytes, Path sharedMemoryDir) throws IOException {
    this.size = size;
    JobSecret secret = JobSecret.generate();
    List<RingTopology.Member> members = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      DataPlane p = DataPlane.start("m" + i, "127.0.0.1", 0, secret, TIMEOUT, null);
      planes.add(p);
      members.add(new RingTopology.Member(p.selfId(), "127.0.0.1", p.port()));
    }
    RingTopology topology = new RingTopology(1, members);
    threads = Executors.newFixedThreadPool(size);
    rings = onAll(r -> Ring.form(planes.get(r), topology, TIMEOUT, chunkBytes));
    ringImpls = onAll(r -> new RingAllReduce(rings.get(r), TIMEOUT, chunkBytes));
    // The same members once more, as workers on one host form their ring: through shared memory.
    planes.forEach(p -> p.shareMemoryIn(sharedMemoryDir));
    RingTopology shared = new RingTopology(2, members);
    sharedRings = onAll(r -> Ring.form(planes.get(r), shared, TIMEOUT, chunkBytes));
    sharedRingImpls = onAll(r -> new RingAllReduce(sharedRings.get(r), TIMEOUT, chunkBytes));
    gatherImpls = onAll(r -> GatherBroadcastAllReduce.form(planes.get(r), topology, TIMEOUT));
  }

  /** The ring over loopback TCP. */
  Impl ring() {
    return ringImpls::get;
  }

  /** The ring through shared-memory segments, where a worker's ring to a peer on its host goes. */
  Impl sharedMemoryRing() {
    return sharedRingImpls::get;
  }

  /** How the shared-memory ring's links ended up, for the report: "shared memory" unless a directory refused. */
  String sharedMemoryTransport() {
    return sharedRings.get(0).transport();
  }

  Impl gatherBroadcast() {
    return gatherImpls::get;
  }

  /**
   * Median seconds of {@code iterations} all-reduces of {@code data} (one array per rank), after
   * {@code warmup} untimed ones. An iteration lasts from the first member starting to the last
   * finishing; members start together at a barrier.
   */
  double medianSeconds(Impl impl, List<float[]> data, int warmup, int iterations) throws IOException {
    int total = warmup + iterations;
    long[][] start = new long[size][total];
    long[][] end = new long[size][total];
    CyclicBarrier barrier = new CyclicBarrier(size);
    onAll(r -> {
      AllReduce op = impl.of(r);
      for (int i = 0; i < total; i++) {
        await(barrier);
        start[r][i] = System.nanoTime();
        op.sum(data.get(r));
        end[r][i] = System.nanoTime();
      }
      return null;
    });
    double[] seconds = new double[iterations];
    for (int i = warmup; i < total; i++) {
      long first = Long.MAX_VALUE;
      long last = Long.MIN_VALUE;
      for (int r = 0; r < size; r++) {
        first = Math.min(first, start[r][i]);
        last = Math.max(last, end[r][i]);
      }
      seconds[i - warmup] = (last - first) / 1e9;
    }
    return median(seconds);
  }

  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

  private static void await(CyclicBarrier barrier) throws IOException {
    try {
      barrier.await();
    } catch (Exception e) {
      throw new IOException("a member failed", e);
    }
  }

  private interface RankTask<T> {
    T run(int rank) throws IOException;
  }

  private <T> List<T> onAll(RankTask<T> task) throws IOException {
    List<Future<T>> futures = new ArrayList<>();
    for (int r = 0; r < size; r++) {
      int rank = r;
      futures.add(threads.submit(() -> task.run(rank)));
    }
    List<T> results = new ArrayList<>();
    try {
      for (Future<T> f : futures) {
        results.add(f.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    }
    return results;
  }

  @Override
  public void close() throws IOException {
    for (RingAllReduce r : ringImpls) {
      r.close();
    }
    for (RingAllReduce r : sharedRingImpls) {
      r.close();
    }
    gatherImpls.forEach(GatherBroadcastAllReduce::close);
    rings.forEach(Ring::close);
    sharedRings.forEach(Ring::close);
    planes.forEach(DataPlane::close);
    threads.shutdownNow();
  }
}
