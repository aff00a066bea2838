package org.edl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.edl.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.condition.OS;

/**
 * Real processes standing in for a container: a launch shell that starts a JVM, both with a
 * made-up {@code CONTAINER_ID} in their environment, as the NodeManager starts them.
 */
@EnabledOnOs(OS.LINUX)
class ContainerProcessesTest {
  /** Local processes change state within milliseconds; this only bounds a hung test. */
  private static final Duration SHORT = Duration.ofSeconds(30);
  private final List<Process> started = new ArrayList<>();
  /** What the started processes print, to say why one ended early (seen once on a loaded machine). */
  @TempDir
  Path output;
  private final ContainerProcesses processes = new ContainerProcesses();

  /** The container's JVM: sleeps until killed. */
  public static final class Sleeper {
    public static void main(String[] args) throws InterruptedException {
      Thread.sleep(Duration.ofMinutes(5).toMillis());
    }
  }

  /** A container's JVM that starts a JVM of its own (as a worker writing the class-data archive does), then sleeps. */
  public static final class SleeperWithChild {
    public static void main(String[] args) throws Exception {
      String java = ProcessHandle.current().info().command().orElse("java");
      new ProcessBuilder(java, "-Xmx32m", "-cp", System.getProperty("java.class.path"), Sleeper.class.getName())
          .inheritIO().start();
      Thread.sleep(Duration.ofMinutes(5).toMillis());
    }
  }

  @AfterEach
  void stopAll() throws Exception {
    started.forEach(p -> p.descendants().forEach(ProcessHandle::destroyForcibly));
    started.forEach(Process::destroyForcibly);
    try (var logs = Files.list(output)) {
      for (Path log : logs.toList()) {
        System.err.println(log.getFileName() + ": " + Files.readString(log));
      }
    }
  }

  @Test
  void findsTheJvmUnderTheLaunchShellThenPausesResumesAndKillsIt() throws Exception {
    String id = fakeId();
    // "; true" keeps bash from exec'ing java in its place, so that there are two processes
    // carrying the id, the shell being the JVM's parent, as in a real container.
    Process shell = start(id, "bash", "-c", javaCommand() + "; true");
    ContainerProcesses.ContainerProcess jvm = awaitFound(id);

    assertEquals(id, jvm.containerId());
    assertEquals("java", Files.readString(Path.of("/proc/" + jvm.pid() + "/comm")).trim());
    assertEquals(shell.pid(), ProcessHandle.of(jvm.pid()).orElseThrow().parent().orElseThrow().pid());
    assertTrue(processes.isAlive(jvm));

    processes.pause(jvm);
    awaitState(jvm, 'T');
    assertTrue(processes.isAlive(jvm), "a stopped process is alive");
    processes.resume(jvm);
    Await.until("the JVM to continue", () -> state(jvm), c -> c != 'T', SHORT);

    processes.kill(jvm);
    Await.until("the JVM to die", () -> !processes.isAlive(jvm), SHORT);
    Await.until("the launch shell to end after its JVM", () -> !shell.isAlive(), SHORT);
    assertThrows(java.io.IOException.class, () -> processes.kill(jvm), "a dead process is not signalled");
  }

  @Test
  void theContainersJvmIsFoundRatherThanAJvmItStarted() throws Exception {
    String id = fakeId();
    Process shell = start(id, "bash", "-c", javaCommand(SleeperWithChild.class) + "; true");
    List<ProcessHandle> jvms = Await.until("the container's JVM and the JVM it started", () -> shell.descendants()
        .filter(p -> p.info().command().map(c -> c.endsWith("java")).orElse(false)).toList(), l -> l.size() == 2, SHORT);
    long containerJvm = jvms.stream().filter(p -> p.parent().map(ProcessHandle::pid).orElse(-1L) == shell.pid())
        .findFirst().orElseThrow().pid();

    ContainerProcesses.ContainerProcess found = processes.find(id);

    assertEquals(containerJvm, found.pid(), "the container's JVM (the launch shell's child), not the JVM it started");
  }

  @Test
  void aContainerWithoutAJvmIsNamedInTheError() throws Exception {
    String id = fakeId();
    start(id, "sleep", "300");
    Await.until("the sleep process to be seen and refused", () -> {
      try {
        processes.find(id);
        return false;
      } catch (ContainerProcesses.NotFoundException e) {
        return e.getMessage().contains("none is java");
      } catch (Exception e) {
        return false;
      }
    }, SHORT);
    ContainerProcesses.NotFoundException e =
        assertThrows(ContainerProcesses.NotFoundException.class, () -> processes.find(id));
    assertEquals(id, e.containerId());
    assertTrue(e.getMessage().contains(id), e.getMessage());
  }

  @Test
  void anUnknownContainerIsNamedInTheError() {
    String id = fakeId();
    ContainerProcesses.NotFoundException e =
        assertThrows(ContainerProcesses.NotFoundException.class, () -> processes.find(id));
    assertTrue(e.getMessage().contains(id) && e.getMessage().contains("CONTAINER_ID=" + id), e.getMessage());
  }

  @Test
  void aSimilarIdIsNotTaken() throws Exception {
    String id = fakeId();
    start(id + "1", "sleep", "300");
    assertThrows(ContainerProcesses.NotFoundException.class, () -> processes.find(id));
  }

  @Test
  void listsTheJvmsOfOneApplicationsContainersAndProbesTheirThreadsDescriptorsAndLiveHeap() throws Exception {
    String app = UUID.randomUUID().toString().replace("-", "");
    String am = "container_0_" + app + "_01_000001";
    String worker = "container_0_" + app + "_01_000002";
    String otherApp = fakeId();
    start(am, "bash", "-c", javaCommand() + "; true");
    start(worker, "bash", "-c", javaCommand() + "; true");
    start(otherApp, "bash", "-c", javaCommand() + "; true");
    long amPid = awaitFound(am).pid();
    long workerPid = awaitFound(worker).pid();
    awaitFound(otherApp);

    assertEquals(java.util.Set.of(amPid, workerPid),
        java.util.Set.copyOf(processes.javaProcessesOf("application_0_" + app)),
        "the two JVMs, neither launch shell, not the other application's");

    // Found as soon as it is a java process: its threads and files come a moment later (a
    // clean-clone run read 1 thread and 3 descriptors of a JVM still starting).
    ProcessProbe.Reading r = Await.until("the worker JVM to have started", () -> new ProcessProbe().read(workerPid),
        x -> x.threads() > 1 && x.fds() > 2, SHORT);
    assertTrue(r.liveHeapMb() > 0 && r.liveHeapMb() < 32, r.toString());
    ProcessProbe.Reading self = new ProcessProbe().self();
    assertTrue(self.threads() > 1 && self.fds() > 2 && self.liveHeapMb() > 0, self.toString());
  }

  @Test
  void jstatsUsedColumnsAreFoundByName() throws Exception {
    String jstat = """
         S0C    S1C    S0U    S1U      EC       EU        OC         OU       MC     MU    CCSC   CCSU   YGC     YGCT
          0.0   0.0    0.0   512.0  10240.0   2048.0    20480.0     1024.5  4864.0 4500.1 512.0  400.0      3    0.004
        """;
    assertEquals(512 + 2048 + 1024.5, ProcessProbe.jstatHeapKb(jstat), 1e-9);
    java.io.IOException e = assertThrows(java.io.IOException.class, () -> ProcessProbe.jstatHeapKb("S0C EU\n1 2\n"));
    assertTrue(e.getMessage().contains("S0U"), e.getMessage());
  }

  private static String fakeId() {
    return "container_0_" + UUID.randomUUID().toString().replace("-", "") + "_01_000002";
  }

  private Process start(String containerId, String... command) throws Exception {
    ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(output.resolve(containerId + ".log").toFile());
    b.environment().put("CONTAINER_ID", containerId);
    Process p = b.start();
    started.add(p);
    return p;
  }

  private static String javaCommand() throws Exception {
    return javaCommand(Sleeper.class);
  }

  private static String javaCommand(Class<?> main) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    Path classes = Paths.get(main.getProtectionDomain().getCodeSource().getLocation().toURI());
    // Quoted: unquoted, bash would expand the $Sleeper of the nested class's name to nothing.
    return "'" + java + "' -Xmx32m -cp '" + classes + "' '" + main.getName() + "'";
  }

  private ContainerProcesses.ContainerProcess awaitFound(String id) throws Exception {
    try {
      return Await.until("the process of " + id, () -> {
        try {
          return processes.find(id);
        } catch (ContainerProcesses.NotFoundException e) {
          return null;
        }
      }, p -> true, Duration.ofSeconds(60));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; it printed: " + Files.readString(output.resolve(id + ".log")), e);
    }
  }

  private static char state(ContainerProcesses.ContainerProcess p) {
    try {
      String stat = Files.readString(Path.of("/proc/" + p.pid() + "/stat"));
      return stat.substring(stat.lastIndexOf(')') + 2).charAt(0);
    } catch (java.io.IOException e) {
      return 'X';
    }
  }

  private static void awaitState(ContainerProcesses.ContainerProcess p, char s) {
    Await.until("state " + s + " of pid " + p.pid(), () -> state(p), c -> c == s, SHORT);
  }
}
