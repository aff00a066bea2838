package org.edl.bench.hosts;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A benchmark member started as a process inside a simulated host: its standard input and output
 * are the benchmark's line protocol with it, its standard error goes to a log file of its own, and
 * every failure names the member and ends with the last lines of that log.
 */
final class MemberProcess implements AutoCloseable {
  private static final int LOG_TAIL_LINES = 15;

  private final String name;
  private final Path log;
  private final Process process;
  private final BufferedReader out;
  private final PrintWriter in;

  private MemberProcess(String name, Path log, Process process) {
    this.name = name;
    this.log = log;
    this.process = process;
    this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
  }

  static MemberProcess start(String name, List<String> command, Path logDir, java.util.Map<String, String> env)
      throws IOException {
    Path log = logDir.resolve(name + ".log");
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putAll(env);
    return new MemberProcess(name, log, pb.start());
  }

  String name() {
    return name;
  }

  long pid() {
    return process.pid();
  }

  void send(String line) {
    in.println(line);
  }

  /** The member's next line, which must start with {@code verb}; the words after it. */
  String expect(String verb) throws IOException {
    String line = out.readLine();
    if (line == null || !line.startsWith(verb + " ") && !line.equals(verb)) {
      throw failure(line == null ? "ended before '" + verb + "'" : "said '" + line + "' where '" + verb + " ...' was due");
    }
    return line.substring(verb.length()).strip();
  }

  /** Its next line, or null at its end. */
  String readLine() throws IOException {
    return out.readLine();
  }

  /** Waits for its end; an exit other than 0 is a failure. */
  void awaitExit(long minutes) throws IOException {
    try {
      if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
        throw failure("ran past " + minutes + " minutes");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException(name + ": interrupted");
    }
    if (process.exitValue() != 0) {
      throw failure("exited " + process.exitValue());
    }
  }

  IOException failure(String what) {
    String tail = "";
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      tail = String.join("\n  ", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
    } catch (IOException e) {
      tail = "(no log: " + e.getMessage() + ")";
    }
    return new IOException(name + " " + what + "; the end of " + log + ":\n  " + tail);
  }

  /** Closes its input (a member ends there), then waits a little and kills what is left. */
  @Override
  public void close() {
    in.close();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
