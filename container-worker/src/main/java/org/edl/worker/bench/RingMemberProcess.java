package org.edl.worker.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import org.edl.job.JobSecret;
import org.edl.worker.collective.DataPlane;
import org.edl.worker.collective.Ring;
import org.edl.worker.collective.RingAllReduce;
import org.edl.worker.collective.RingTopology;

/**
 * One ring member of the multi-host all-reduce benchmark, a process of its own inside a simulated
 * host, driven line by line over its standard input and output by the benchmark (so that the only
 * network traffic is the ring's own). It presents itself as a worker does: its data plane on its
 * host's address, shared memory in its host's {@code /dev/shm} (a peer on another host cannot open
 * its segments, so the ring agrees on TCP there), its node the host's name.
 *
 * <pre>
 * in:  secret BASE64              out: listening PORT
 * in:  ring CHUNK LAYOUT ID@ADDR:PORT@NODE ...   out: formed TRANSPORT   (LAYOUT: by-host or flat)
 * in:  run BYTES WARMUP ITERATIONS        out: times SECONDS ...   (one per timed iteration)
 * in:  quit
 * </pre>
 *
 * Each iteration: every array element set to 1, a one-float-per-member all-reduce as the barrier,
 * then the timed {@code sum}; after the last one every element must equal the member count. Any
 * failure is one {@code error ...} line and exit 1.
 */
public final class RingMemberProcess {
  private static final Duration TIMEOUT = Duration.ofMinutes(5);

  private final String id;
  private final String address;
  private final Path sharedMemoryDir;
  private final PrintStream protocol;

  private RingMemberProcess(String id, String address, Path sharedMemoryDir, PrintStream protocol) {
    this.id = id;
    this.address = address;
    this.sharedMemoryDir = sharedMemoryDir;
    this.protocol = protocol;
  }

  /** {@code ID ADDRESS SHM_DIR} ({@code SHM_DIR} {@code -}: TCP only). */
  public static void main(String[] args) {
    // The protocol owns standard output; anything the libraries print goes to standard error.
    PrintStream protocol = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
        StandardCharsets.UTF_8);
    System.setOut(System.err);
    if (args.length != 3) {
      protocol.println("error usage: RingMemberProcess ID ADDRESS SHM_DIR|-");
      System.exit(2);
    }
    RingMemberProcess member = new RingMemberProcess(args[0], args[1], args[2].equals("-") ? null : Path.of(args[2]),
        protocol);
    try {
      member.serve(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
      System.exit(0);
    } catch (IOException | RuntimeException e) {
      protocol.println("error " + args[0] + ": " + String.valueOf(e).replace('\n', ' '));
      e.printStackTrace();
      System.exit(1);
    }
  }

  private void serve(BufferedReader in) throws IOException {
    JobSecret secret = JobSecret.of(Base64.getDecoder().decode(expect(in, "secret").get(0)));
    try (DataPlane plane = DataPlane.start(id, address, 0, secret, TIMEOUT, null).shareMemoryIn(sharedMemoryDir)) {
      protocol.println("listening " + plane.port());
      List<String> ring = expect(in, "ring");
      int chunkBytes = Integer.parseInt(ring.get(0));
      Ring.Layout layout = layout(ring.get(1));
      RingTopology topology = new RingTopology(1, members(ring.subList(2, ring.size())));
      try (Ring formed = Ring.form(plane, topology, TIMEOUT, chunkBytes, layout);
          RingAllReduce sum = new RingAllReduce(formed, TIMEOUT, chunkBytes)) {
        protocol.println("formed " + formed.transport());
        for (String line = in.readLine(); line != null && !line.equals("quit"); line = in.readLine()) {
          List<String> run = words(line, "run");
          protocol.println("times " + timed(sum, topology.size(), Long.parseLong(run.get(0)),
              Integer.parseInt(run.get(1)), Integer.parseInt(run.get(2))));
        }
      }
    }
  }

  /** Seconds of each timed iteration's {@code sum}, space-separated. */
  private String timed(RingAllReduce sum, int members, long bytes, int warmup, int iterations) throws IOException {
    float[] data = new float[(int) (bytes / Float.BYTES)];
    float[] barrier = new float[members];
    List<String> seconds = new ArrayList<>();
    for (int i = 0; i < warmup + iterations; i++) {
      Arrays.fill(data, 1f);
      sum.sum(barrier);
      long start = System.nanoTime();
      sum.sum(data);
      long took = System.nanoTime() - start;
      if (i >= warmup) {
        seconds.add(String.format(Locale.ROOT, "%.9f", took / 1e9));
      }
    }
    for (float v : data) {
      if (v != members) {
        throw new IOException("all-reduce of " + bytes + " bytes gave " + v + " where " + members + " was due");
      }
    }
    return String.join(" ", seconds);
  }

  private static Ring.Layout layout(String word) throws IOException {
    return switch (word) {
      case "by-host" -> Ring.Layout.BY_HOST;
      case "flat" -> Ring.Layout.FLAT;
      default -> throw new IOException("layout '" + word + "': expected by-host or flat");
    };
  }

  private static List<RingTopology.Member> members(List<String> specs) {
    List<RingTopology.Member> members = new ArrayList<>();
    for (String spec : specs) {
      String[] at = spec.split("@");
      int colon = at[1].lastIndexOf(':');
      members.add(new RingTopology.Member(at[0], at[1].substring(0, colon),
          Integer.parseInt(at[1].substring(colon + 1)), at[2]));
    }
    return members;
  }

  private static List<String> expect(BufferedReader in, String verb) throws IOException {
    String line = in.readLine();
    if (line == null) {
      throw new IOException("the benchmark closed its end before '" + verb + "'");
    }
    return words(line, verb);
  }

  private static List<String> words(String line, String verb) throws IOException {
    List<String> words = List.of(line.strip().split("\\s+"));
    if (!words.get(0).equals(verb)) {
      throw new IOException("expected '" + verb + " ...', got '" + line + "'");
    }
    return words.subList(1, words.size());
  }
}
