package org.edl.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Threads, open file descriptors and live heap of a JVM on this machine, for the soak benchmark.
 * Threads and descriptors come from {@code /proc}; the heap is what is left after a full
 * collection ({@code jcmd <pid> GC.run}, then {@code jstat -gc}), because the heap in use between
 * collections says more about the collector's timing than about what the process keeps.
 */
public final class ProcessProbe {
  /** One reading; -1 for what could not be read (the process ended meanwhile). */
  public record Reading(int threads, int fds, double liveHeapMb) {
    public static final Reading GONE = new Reading(-1, -1, -1);
  }

  private static final long TOOL_TIMEOUT_S = 60;
  private final Path proc;
  private final Path jdkBin;

  public ProcessProbe() {
    this(Paths.get("/proc"), Paths.get(System.getProperty("java.home"), "bin"));
  }

  ProcessProbe(Path proc, Path jdkBin) {
    this.proc = proc;
    this.jdkBin = jdkBin;
  }

  /** Another JVM of this user. */
  public Reading read(long pid) {
    try {
      int threads = threads(pid);
      int fds = fds(pid);
      run("jcmd", Long.toString(pid), "GC.run");
      double heap = jstatHeapKb(run("jstat", "-gc", Long.toString(pid))) / 1024.0;
      return new Reading(threads, fds, heap);
    } catch (IOException e) {
      return Reading.GONE;
    }
  }

  /** This JVM (the embedded cluster runs in the benchmark's own process). */
  public Reading self() {
    System.gc();
    int fds;
    try {
      fds = fds(ProcessHandle.current().pid());
    } catch (IOException e) {
      fds = -1;
    }
    return new Reading(ManagementFactory.getThreadMXBean().getThreadCount(), fds,
        ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0));
  }

  private int threads(long pid) throws IOException {
    for (String line : Files.readAllLines(proc.resolve(pid + "/status"), StandardCharsets.UTF_8)) {
      if (line.startsWith("Threads:")) {
        return Integer.parseInt(line.substring("Threads:".length()).trim());
      }
    }
    throw new IOException("no Threads: line in /proc/" + pid + "/status");
  }

  private int fds(long pid) throws IOException {
    try (Stream<Path> fds = Files.list(proc.resolve(pid + "/fd"))) {
      return (int) fds.count();
    }
  }

  /**
   * The used columns of {@code jstat -gc}: survivor spaces, eden and old generation (S0U, S1U,
   * EU, OU), in KB. The header names the columns, so their order is read rather than assumed.
   */
  static double jstatHeapKb(String output) throws IOException {
    List<String> lines = output.lines().map(String::trim).filter(l -> !l.isEmpty()).toList();
    if (lines.size() < 2) {
      throw new IOException("jstat -gc printed no figures: " + output);
    }
    List<String> header = List.of(lines.get(0).split("\\s+"));
    String[] values = lines.get(1).split("\\s+");
    double kb = 0;
    for (String column : List.of("S0U", "S1U", "EU", "OU")) {
      int i = header.indexOf(column);
      if (i < 0 || i >= values.length) {
        throw new IOException("jstat -gc has no " + column + " column: " + lines.get(0));
      }
      kb += Double.parseDouble(values[i]);
    }
    return kb;
  }

  private String run(String tool, String... args) throws IOException {
    List<String> command = new java.util.ArrayList<>();
    command.add(jdkBin.resolve(tool).toString());
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      if (!p.waitFor(TOOL_TIMEOUT_S, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", command) + " hung");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running " + tool, e);
    }
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + said.strip());
    }
    return said;
  }
}
