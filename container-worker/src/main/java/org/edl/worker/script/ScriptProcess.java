package org.edl.worker.script;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The user's script as the worker's child process. Its standard output goes to the worker's; its
 * standard error too, and its last lines are kept so that a script that dies before it could say
 * why (a syntax error, an import that fails) is reported with its own words.
 */
final class ScriptProcess implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ScriptProcess.class);
  static final int TAIL_LINES = 20;

  private final Process process;
  private final Deque<String> tail = new ArrayDeque<>();
  private final Thread pump;

  private ScriptProcess(Process process) {
    this.process = process;
    this.pump = new Thread(this::pumpErrors, "edl-script-stderr");
    pump.setDaemon(true);
    pump.start();
  }

  /** Starts {@code command} in {@code dir}; {@code onExit} hears its exit status and last error lines. */
  static ScriptProcess start(List<String> command, Path dir, Map<String, String> env,
      BiConsumer<Integer, String> onExit)
      throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
        .redirectOutput(ProcessBuilder.Redirect.INHERIT);
    pb.environment().putAll(env);
    ScriptProcess p = new ScriptProcess(pb.start());
    LOG.info("Started the script (pid {}): {}", p.process.pid(), String.join(" ", command));
    p.process.onExit().thenRun(() -> {
      try {
        p.pump.join(2_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      onExit.accept(p.process.exitValue(), p.lastErrors());
    });
    return p;
  }

  long pid() {
    return process.pid();
  }

  private void pumpErrors() {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        System.err.println(line);
        synchronized (tail) {
          tail.addLast(line);
          if (tail.size() > TAIL_LINES) {
            tail.removeFirst();
          }
        }
      }
    } catch (IOException e) {
      LOG.debug("script's standard error closed: {}", e.toString());
    }
  }

  /** The script's last lines of standard error, prefixed for a message; empty if it wrote none. */
  String lastErrors() {
    synchronized (tail) {
      return tail.isEmpty() ? "" : "; its last lines of standard error:\n" + String.join("\n", tail);
    }
  }

  /** Waits up to {@code millis} for the script to end by itself, then kills it. */
  void awaitOrKill(long millis) throws InterruptedException {
    if (!process.waitFor(millis, TimeUnit.MILLISECONDS)) {
      LOG.warn("The script (pid {}) did not end within {} ms; killing it", process.pid(), millis);
      process.destroyForcibly();
      process.waitFor(5, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }
}
