package org.edl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A user's terminal: each command line runs in {@code bash -c} from the repository's root, as
 * typed, with the environment the user exported and nothing of the test JVM's class path. Every
 * command's output goes to a numbered log file of its own, kept after the run.
 */
public final class UserShell {
  private final Path root;
  private final Path logs;
  private final Map<String, String> env;
  private final AtomicInteger counter;

  public UserShell(Path root, Path logs) throws IOException {
    this(root, Files.createDirectories(logs), baseEnvironment(logs), new AtomicInteger());
  }

  private UserShell(Path root, Path logs, Map<String, String> env, AtomicInteger counter) {
    this.root = root;
    this.logs = logs;
    this.env = env;
    this.counter = counter;
  }

  /** The terminal after {@code export name=value}. */
  public UserShell with(String name, String value) {
    Map<String, String> next = new HashMap<>(env);
    next.put(name, value);
    return new UserShell(root, logs, next, counter);
  }

  public Path logs() {
    return logs;
  }

  /** Runs {@code line} to its end; fails the test past {@code timeout}, naming the line and its log. */
  public Ran run(String line, Duration timeout) throws IOException, InterruptedException {
    Running running = start(line);
    return running.awaitExit(timeout);
  }

  /** Starts {@code line} and returns at once, as a command left running in another terminal. */
  public Running start(String line) throws IOException {
    Path log = logs.resolve(String.format(Locale.ROOT, "%02d-%s.log", counter.incrementAndGet(), slug(line)));
    Files.writeString(log, "$ " + line + "\n", StandardCharsets.UTF_8);
    // A terminal's command gets Ctrl-C: SIGINT at its default. A build started in the background
    // of a script (CI's, `nohup ... &`) has SIGINT ignored, every process it starts inherits that,
    // and a JVM that finds SIGINT ignored never runs its shutdown hooks for it.
    ProcessBuilder pb = new ProcessBuilder("/usr/bin/env", "--default-signal=INT,QUIT", "bash", "-c", line)
        .directory(root.toFile())
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().clear();
    pb.environment().putAll(env);
    return new Running(line, pb.start(), log);
  }

  /**
   * The test JVM's environment less what would hand a command anything the user's terminal
   * lacks; bin/edl writes its own log to {@code logs}.
   */
  private static Map<String, String> baseEnvironment(Path logs) {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.remove("HADOOP_CONF_DIR");
    env.remove("CLASSPATH");
    env.remove("EDL_JAVA_OPTS");
    env.remove("EDL_REBUILD");
    env.put("EDL_LOG_DIR", logs.resolve("edl-logs").toString());
    return env;
  }

  private static String slug(String line) {
    String s = line.replaceAll("[^A-Za-z0-9]+", "-").replaceAll("^-|-$", "");
    return s.length() > 60 ? s.substring(0, 60) : s;
  }

  /** A command's exit status and everything it printed. */
  public record Ran(String line, int exit, String output) {
    public Ran assertSucceeded() {
      assertEquals(0, exit, "`" + line + "` exited " + exit + ":\n" + output);
      return this;
    }
  }

  /** A command still running. */
  public static final class Running implements AutoCloseable {
    private final String line;
    private final Process process;
    private final Path log;

    Running(String line, Process process, Path log) {
      this.line = line;
      this.process = process;
      this.log = log;
    }

    public String output() throws IOException {
      String all = Files.readString(log, StandardCharsets.UTF_8);
      return all.substring(all.indexOf('\n') + 1);
    }

    public boolean isAlive() {
      return process.isAlive();
    }

    /** Waits until what the command printed so far holds {@code done}; fails if it ends first or past {@code timeout}. */
    public String awaitOutput(java.util.function.Predicate<String> done, Duration timeout, String what) {
      return Await.until("`" + line + "` to print " + what, () -> {
        String out = output();
        if (!done.test(out) && !process.isAlive()) {
          throw new AssertionError("`" + line + "` ended before printing " + what + ":\n" + out);
        }
        return out;
      }, done, timeout, Duration.ofMillis(250));
    }

    public Ran awaitExit(Duration timeout) throws IOException, InterruptedException {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        close();
        fail("`" + line + "` still ran after " + timeout.toSeconds() + " s; its output (" + log + "):\n" + output());
      }
      return new Ran(line, process.exitValue(), output());
    }

    /** Ctrl-C in the command's terminal: SIGINT, then its exit. */
    public Ran interrupt(Duration timeout) throws IOException, InterruptedException {
      // bash's own kill: a fresh machine need not have procps.
      Process kill = new ProcessBuilder("bash", "-c", "kill -INT " + process.pid()).inheritIO().start();
      assertEquals(0, kill.waitFor(), "kill -INT " + process.pid());
      return awaitExit(timeout);
    }

    /** What Ctrl-C and then a kill would do: the command and everything it started end. */
    @Override
    public void close() throws InterruptedException {
      if (!process.isAlive()) {
        return;
      }
      // Listed first: once the command is gone, what it started is no longer its descendants.
      java.util.List<ProcessHandle> started = process.descendants().toList();
      process.destroy();
      if (!process.waitFor(90, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
      }
      started.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }
  }
}
