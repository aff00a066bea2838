package org.edl.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OS processes of YARN containers running on this machine, and signals to them. The chaos
 * benchmark needs a real SIGKILL or SIGSTOP of one JVM: YARN's own {@code signalToContainer}
 * offers a forceful shutdown but no pause, and it goes through the NodeManager, which knows the
 * container is going. Every container's environment has {@code CONTAINER_ID=<id>} (the
 * NodeManager sets it), inherited by the launch shell, the JVM it starts and whatever that JVM
 * starts; the container's JVM is the shallowest java process carrying it (a worker starts a JVM of
 * its own to write the class-data archive, which must not be taken for the worker). Linux only ({@code /proc}); the processes must belong to this
 * user, as they do on the embedded cluster.
 */
public final class ContainerProcesses {
  private static final Logger LOG = LoggerFactory.getLogger(ContainerProcesses.class);
  private static final String ENV_KEY = "CONTAINER_ID=";

  /** One container's JVM: its pid, and its start time so a reused pid is not taken for it. */
  public record ContainerProcess(String containerId, long pid, long startTicks) {}

  /** No java process of the container on this machine (not started yet, ended, or elsewhere). */
  public static final class NotFoundException extends IllegalStateException {
    private static final long serialVersionUID = 1L;
    private final String containerId;

    NotFoundException(String containerId, String why) {
      super("no java process of container " + containerId + " on this machine: " + why);
      this.containerId = containerId;
    }

    public String containerId() {
      return containerId;
    }
  }

  private final Path proc;

  public ContainerProcesses() {
    this(Paths.get("/proc"));
  }

  ContainerProcesses(Path procRoot) {
    this.proc = procRoot;
  }

  /**
   * The container's JVM.
   *
   * @throws NotFoundException no process here has the id in its environment, or none of them is java
   */
  public ContainerProcess find(String containerId) throws IOException {
    String entry = ENV_KEY + containerId;
    List<Long> carrying = new ArrayList<>();
    try (DirectoryStream<Path> pids = Files.newDirectoryStream(proc, p -> isPid(p.getFileName().toString()))) {
      for (Path dir : pids) {
        if (environmentHas(dir.resolve("environ"), entry)) {
          carrying.add(Long.parseLong(dir.getFileName().toString()));
        }
      }
    }
    if (carrying.isEmpty()) {
      throw new NotFoundException(containerId, "no process has " + entry + " in its environment");
    }
    Map<Long, Integer> depth = new HashMap<>();
    long best = -1;
    for (long pid : carrying) {
      if (isJava(pid) && (best < 0 || depthOf(pid, carrying, depth) < depthOf(best, carrying, depth))) {
        best = pid;
      }
    }
    if (best < 0) {
      throw new NotFoundException(containerId, "processes " + carrying + " carry its id but none is java");
    }
    long start = startTicks(best).orElseThrow(() -> new NotFoundException(containerId, "its JVM just ended"));
    LOG.debug("Container {} is pid {} (of {} carrying its id)", containerId, best, carrying);
    return new ContainerProcess(containerId, best, start);
  }

  /**
   * The JVMs, alive or stopped, of every container of {@code applicationId} on this machine (its
   * AM's included): what a job left running, for the soak benchmark's process count.
   */
  public List<Long> javaProcessesOf(String applicationId) throws IOException {
    String prefix = ENV_KEY + "container_" + applicationId.substring(applicationId.indexOf('_') + 1) + "_";
    List<Long> java = new ArrayList<>();
    try (DirectoryStream<Path> pids = Files.newDirectoryStream(proc, p -> isPid(p.getFileName().toString()))) {
      for (Path dir : pids) {
        long pid = Long.parseLong(dir.getFileName().toString());
        if (isJava(pid) && environmentHasPrefix(dir.resolve("environ"), prefix)
            && stat(pid).map(ContainerProcesses::stateOf).filter(c -> "ZX".indexOf(c) < 0).isPresent()) {
          java.add(pid);
        }
      }
    }
    return java;
  }

  /** SIGKILL: the JVM dies without running any shutdown hook, as on a machine failure. */
  public void kill(ContainerProcess p) throws IOException {
    signal(p, "KILL");
  }

  /** SIGSTOP: the JVM freezes with its sockets open, as in a long GC pause or a hung machine. */
  public void pause(ContainerProcess p) throws IOException {
    signal(p, "STOP");
  }

  /** SIGCONT after {@link #pause}. */
  public void resume(ContainerProcess p) throws IOException {
    signal(p, "CONT");
  }

  /**
   * Whether the very process is still there: a zombie (killed, not yet reaped by its launch
   * shell) counts as dead, a stopped one as alive.
   */
  public boolean isAlive(ContainerProcess p) {
    Optional<String> stat = stat(p.pid());
    return stat.isPresent() && startTicksOf(stat.get()) == p.startTicks()
        && !"ZX".contains(String.valueOf(stateOf(stat.get())));
  }

  private void signal(ContainerProcess p, String signal) throws IOException {
    if (!isAlive(p)) {
      throw new IOException("cannot send SIG" + signal + " to container " + p.containerId() + ": its process "
          + p.pid() + " has ended");
    }
    // kill(1) rather than ProcessHandle.destroyForcibly: Java has no way to send STOP or CONT,
    // and one mechanism for all three keeps them alike.
    Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(p.pid())).redirectErrorStream(true).start();
    try {
      if (!kill.waitFor(10, TimeUnit.SECONDS)) {
        kill.destroyForcibly();
        throw new IOException("kill -s " + signal + " " + p.pid() + " (container " + p.containerId() + ") hung");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while signalling container " + p.containerId(), e);
    }
    String said = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (kill.exitValue() != 0) {
      throw new IOException("kill -s " + signal + " " + p.pid() + " (container " + p.containerId() + ") failed: "
          + said);
    }
    LOG.info("Sent SIG{} to container {} (pid {})", signal, p.containerId(), p.pid());
  }

  private static boolean isPid(String name) {
    return !name.isEmpty() && name.chars().allMatch(Character::isDigit);
  }

  private static boolean environmentHas(Path environ, String entry) {
    return environment(environ).stream().anyMatch(entry::equals);
  }

  private static boolean environmentHasPrefix(Path environ, String prefix) {
    return environment(environ).stream().anyMatch(e -> e.startsWith(prefix));
  }

  /** The entries of /proc/<pid>/environ are NUL-separated; another user's cannot be read. */
  private static List<String> environment(Path environ) {
    try {
      return List.of(new String(Files.readAllBytes(environ), StandardCharsets.UTF_8).split("\0"));
    } catch (IOException | SecurityException e) {
      return List.of(); // ended while scanning, or not ours
    }
  }

  private boolean isJava(long pid) {
    try {
      return Files.readString(proc.resolve(pid + "/comm")).trim().equals("java");
    } catch (IOException e) {
      return false;
    }
  }

  /** Ancestors of {@code pid} that also carry the id: the launch shell has fewer than its JVM. */
  private int depthOf(long pid, List<Long> carrying, Map<Long, Integer> memo) {
    Integer known = memo.get(pid);
    if (known != null) {
      return known;
    }
    int d = 0;
    long parent = stat(pid).map(ContainerProcesses::parentOf).orElse(0L);
    if (carrying.contains(parent) && parent != pid) {
      d = 1 + depthOf(parent, carrying, memo);
    }
    memo.put(pid, d);
    return d;
  }

  private Optional<Long> startTicks(long pid) {
    return stat(pid).map(ContainerProcesses::startTicksOf);
  }

  private Optional<String> stat(long pid) {
    try {
      return Optional.of(Files.readString(proc.resolve(pid + "/stat")));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * /proc/<pid>/stat is "pid (comm) state ppid ...", and comm may hold spaces and parentheses:
   * the fields after it start behind the last ')'. Field 3 is the state, 4 the parent, 22 the
   * start time in clock ticks since boot.
   */
  private static String[] fieldsAfterComm(String stat) {
    return stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
  }

  private static char stateOf(String stat) {
    return fieldsAfterComm(stat)[0].charAt(0);
  }

  private static long parentOf(String stat) {
    return Long.parseLong(fieldsAfterComm(stat)[1]);
  }

  private static long startTicksOf(String stat) {
    return Long.parseLong(fieldsAfterComm(stat)[19]);
  }
}
