package org.edl.bench.hosts;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.edl.am.JvmOptions;
import org.edl.client.LocalClasspath;
import org.edl.cluster.hosts.SimulatedHost;
import org.edl.job.JobSecret;
import org.edl.worker.bench.RingMemberProcess;

/**
 * Our ring's members, a JVM each ({@link RingMemberProcess}), {@code perHost} on every host in
 * host order, presenting themselves as workers on YARN do: each on its host's address, the first
 * of a host with a {@code /dev/shm} of the host's own and the others beside it, so that the ring
 * agrees on shared memory inside a host and TCP between hosts.
 */
final class HostRingMembers implements AutoCloseable {
  private static final long WARM_UP_BYTES = 16 << 20;
  private static final int WARM_UP_ITERATIONS = 5;

  private final List<MemberProcess> members = new ArrayList<>();
  private final Map<String, String> transports = new LinkedHashMap<>();

  private HostRingMembers() {}

  /**
   * Starts the members and forms their ring with {@code chunkBytes} chunks; {@code flat}: a flat
   * ring even where hosts hold several members (otherwise the all-reduce goes by host).
   */
  static HostRingMembers form(List<SimulatedHost> hosts, int perHost, boolean flat, int chunkBytes, long maxBytes,
      Path logDir) throws IOException {
    HostRingMembers ring = new HostRingMembers();
    try {
      ring.start(hosts, perHost, flat, chunkBytes, maxBytes, logDir);
      return ring;
    } catch (IOException | RuntimeException e) {
      ring.close();
      throw e;
    }
  }

  private void start(List<SimulatedHost> hosts, int perHost, boolean flat, int chunkBytes, long maxBytes,
      Path logDir) throws IOException {
    String secret = Base64.getEncoder().encodeToString(JobSecret.generate().bytes());
    List<String> spec = new ArrayList<>();
    for (SimulatedHost host : hosts) {
      long firstPid = -1;
      for (int k = 0; k < perHost; k++) {
        String id = host.name() + "-" + k;
        List<String> java = java(maxBytes, chunkBytes, id, host.address());
        MemberProcess m = MemberProcess.start(id,
            k == 0 ? host.commandWithOwnSharedMemory(java) : host.commandBeside(firstPid, java), logDir, Map.of());
        members.add(m);
        if (k == 0) {
          firstPid = m.pid();
        }
        m.send("secret " + secret);
        spec.add(id + "@" + host.address() + ":" + m.expect("listening") + "@" + host.name());
      }
    }
    String ringLine = "ring " + chunkBytes + " " + (flat ? "flat" : "by-host") + " " + String.join(" ", spec);
    members.forEach(m -> m.send(ringLine));
    for (MemberProcess m : members) {
      transports.put(m.name(), m.expect("formed"));
    }
  }

  private static List<String> java(long maxBytes, int chunkBytes, String id, String address) {
    // The array, the ring's scratch and frames, and room for the JVM's own.
    long heapMiB = ((maxBytes + 8L * chunkBytes) >> 20) + 256;
    List<String> java = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + heapMiB + "m", "-Xms" + heapMiB + "m", "-XX:+UseSerialGC", "-Djava.net.preferIPv4Stack=true"));
    java.addAll(JvmOptions.addOpens());
    java.addAll(List.of("-cp", LocalClasspath.absolute(), RingMemberProcess.class.getName(), id, address, "/dev/shm"));
    return java;
  }

  /**
   * Untimed all-reduces of up to {@link #WARM_UP_BYTES} until the members' JVMs have compiled the
   * ring's loops: without them the first size measured ran interpreted (one run's 6-member ring
   * at 1 MiB: 0.27 of the link first, 1.06 after a 16 MiB point).
   */
  void warmUp(long largest) throws IOException {
    medianSeconds(Math.min(largest, WARM_UP_BYTES), WARM_UP_ITERATIONS, 1);
  }

  /** How each member's ring links carry frames ("tcp", "shared memory", or each direction's). */
  Map<String, String> transports() {
    return transports;
  }

  int size() {
    return members.size();
  }

  /**
   * The median over {@code iterations} of the slowest member's all-reduce of {@code bytes}, each
   * after a barrier, as gloo_allreduce.py times gloo's.
   */
  double medianSeconds(long bytes, int warmup, int iterations) throws IOException {
    String run = "run " + bytes + " " + warmup + " " + iterations;
    members.forEach(m -> m.send(run));
    double[] slowest = new double[iterations];
    for (MemberProcess m : members) {
      String[] times = m.expect("times").split(" ");
      if (times.length != iterations) {
        throw m.failure("gave " + times.length + " times for " + iterations + " iterations");
      }
      for (int i = 0; i < iterations; i++) {
        slowest[i] = Math.max(slowest[i], Double.parseDouble(times[i]));
      }
    }
    Arrays.sort(slowest);
    return iterations % 2 == 1 ? slowest[iterations / 2] : (slowest[iterations / 2 - 1] + slowest[iterations / 2]) / 2;
  }

  @Override
  public void close() {
    members.forEach(m -> m.send("quit"));
    members.forEach(MemberProcess::close);
  }
}
