package org.edl.worker.collective;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.edl.job.JobSecret;

/** N workers in one JVM, each with a real data plane on loopback, run as N threads. */
final class LoopbackMembers implements AutoCloseable {
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  interface RankTask<T> {
    T run(int rank) throws Exception;
  }

  final List<DataPlane> planes = new ArrayList<>();
  final RingTopology topology;
  private final ExecutorService threads;

  LoopbackMembers(int n, JobSecret secret, long version) throws IOException {
    this(n, secret, version, rank -> null);
  }

  /** @param sharedMemoryDir each rank's shared-memory directory, null where it uses TCP only */
  LoopbackMembers(int n, JobSecret secret, long version, IntFunction<Path> sharedMemoryDir) throws IOException {
    this(n, secret, version, sharedMemoryDir, rank -> "127.0.0.1");
  }

  /**
   * @param host each rank's address, which is its host for the ring's layout: loopback has a
   *             whole subnet (127.0.0.1, 127.0.0.2, ...), so ranks on different addresses stand
   *             for members on different hosts
   */
  LoopbackMembers(int n, JobSecret secret, long version, IntFunction<Path> sharedMemoryDir, IntFunction<String> host)
      throws IOException {
    List<RingTopology.Member> members = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      DataPlane plane = DataPlane.start("w" + i, host.apply(i), 0, secret, TIMEOUT, null)
          .shareMemoryIn(sharedMemoryDir.apply(i));
      planes.add(plane);
      members.add(new RingTopology.Member(plane.selfId(), host.apply(i), plane.port()));
    }
    topology = new RingTopology(version, members);
    threads = Executors.newFixedThreadPool(n);
  }

  int size() {
    return planes.size();
  }

  /** Runs {@code task} on every rank at once and returns the results in rank order. */
  <T> List<T> onAll(RankTask<T> task) throws Exception {
    List<Future<T>> futures = new ArrayList<>();
    for (int r = 0; r < size(); r++) {
      int rank = r;
      futures.add(threads.submit(() -> task.run(rank)));
    }
    List<T> results = new ArrayList<>();
    for (Future<T> f : futures) {
      results.add(f.get(2, TimeUnit.MINUTES));
    }
    return results;
  }

  List<Ring> formRings() throws Exception {
    return onAll(r -> Ring.form(planes.get(r), topology, TIMEOUT));
  }

  @Override
  public void close() {
    threads.shutdownNow();
    planes.forEach(DataPlane::close);
  }
}
