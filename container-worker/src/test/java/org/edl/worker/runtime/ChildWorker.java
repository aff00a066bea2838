package org.edl.worker.runtime;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link ChildWorkerMain} process of an {@link ElasticJob}, and the signals a test sends it:
 * SIGKILL, SIGSTOP, SIGCONT. Its output is kept for the markers it prints and for the failure
 * message of a test.
 */
final class ChildWorker implements AutoCloseable {
  private final Process process;
  private final List<String> lines = new ArrayList<>();
  /** Everything the child printed, kept for reading after a failed run. */
  private final java.nio.file.Path log;

  private ChildWorker(Process process, String workerId) throws IOException {
    this.process = process;
    this.log = java.nio.file.Path.of("target", "child-workers", workerId + ".log");
    java.nio.file.Files.createDirectories(log.getParent());
    java.nio.file.Files.deleteIfExists(log);
    Thread reader = new Thread(this::read, "child-worker-output");
    reader.setDaemon(true);
    reader.start();
  }

  static ChildWorker start(ElasticJob job, String workerId, String zkConnect, String mode, long holdAt,
      Duration zkSession) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    Process p = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
        ChildWorkerMain.class.getName(), job.appId, workerId, zkConnect, job.spec.output(),
        HexFormat.of().formatHex(job.secret.bytes()), mode, Long.toString(holdAt),
        Long.toString(zkSession.toMillis())).redirectErrorStream(true).start();
    return new ChildWorker(p, workerId);
  }

  private void read() {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        synchronized (lines) {
          lines.add(line);
          lines.notifyAll();
        }
        java.nio.file.Files.writeString(log, line + "\n", StandardCharsets.UTF_8,
            java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
      }
    } catch (IOException e) {
      // the child is gone
    }
  }

  /** Waits until the child printed a line starting with {@code marker}; returns that line. */
  String await(String marker, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lines) {
      while (true) {
        for (String l : lines) {
          if (l.startsWith(marker)) {
            return l;
          }
        }
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0 || !process.isAlive() && lines.stream().noneMatch(l -> l.startsWith(marker))) {
          if (left > 0) {
            process.waitFor(1, TimeUnit.SECONDS);
          }
          throw new TimeoutException("the child did not print '" + marker + "':\n" + tail());
        }
        lines.wait(Math.min(left, 200));
      }
    }
  }

  boolean printed(String text) {
    synchronized (lines) {
      return lines.stream().anyMatch(l -> l.contains(text));
    }
  }

  void stop() throws Exception {
    signal("STOP");
  }

  void resume() throws Exception {
    signal("CONT");
  }

  void kill() {
    process.destroyForcibly();
  }

  private void signal(String name) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new IOException("kill -" + name + " " + process.pid() + " failed");
    }
  }

  /** The exit status, waiting at most {@code timeout}. */
  int exitStatus(Duration timeout) throws Exception {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      dumpThreads();
      throw new TimeoutException("the child is still running after " + timeout + " (threads in " + log + "):\n"
          + tail());
    }
    return process.exitValue();
  }

  /** Appends the child's thread dump to its log: why it still runs. */
  private void dumpThreads() {
    try {
      Process jcmd = new ProcessBuilder("jcmd", Long.toString(process.pid()), "Thread.print")
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
      jcmd.waitFor(30, TimeUnit.SECONDS);
    } catch (IOException | InterruptedException e) {
      // a dump is a help, not a need
    }
  }

  /** The last 60 lines the child printed. */
  String tail() {
    synchronized (lines) {
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
