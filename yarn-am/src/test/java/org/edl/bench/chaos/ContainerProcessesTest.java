package org.edl.bench.chaos;

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
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Real processes standing in for a container: a launch shell that starts a JVM, both with a
 * made-up {@code CONTAINER_ID} in their environment, as the NodeManager starts them.
 */
@EnabledOnOs(OS.LINUX)
class ContainerProcessesTest {
  private final List<Process> started = new ArrayList<>();
  private final ContainerProcesses processes = new ContainerProcesses();

  /** The container's JVM: sleeps until killed. */
  public static final class Sleeper {
    public static void main(String[] args) throws InterruptedException {
      Thread.sleep(Duration.ofMinutes(5).toMillis());
    }
  }

  @AfterEach
  void stopAll() {
    started.forEach(p -> p.descendants().forEach(ProcessHandle::destroyForcibly));
    started.forEach(Process::destroyForcibly);
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
    await(() -> state(jvm) != 'T', "the JVM to continue");

    processes.kill(jvm);
    await(() -> !processes.isAlive(jvm), "the JVM to die");
    await(() -> !shell.isAlive(), "the launch shell to end after its JVM");
    assertThrows(java.io.IOException.class, () -> processes.kill(jvm), "a dead process is not signalled");
  }

  @Test
  void aContainerWithoutAJvmIsNamedInTheError() throws Exception {
    String id = fakeId();
    start(id, "sleep", "300");
    await(() -> {
      try {
        processes.find(id);
        return false;
      } catch (ContainerProcesses.NotFoundException e) {
        return e.getMessage().contains("none is java");
      } catch (Exception e) {
        return false;
      }
    }, "the sleep process to be seen and refused");
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

  private static String fakeId() {
    return "container_0_" + UUID.randomUUID().toString().replace("-", "") + "_01_000002";
  }

  private Process start(String containerId, String... command) throws Exception {
    ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    b.environment().put("CONTAINER_ID", containerId);
    Process p = b.start();
    started.add(p);
    return p;
  }

  private static String javaCommand() throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    Path classes = Paths.get(Sleeper.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return "'" + java + "' -Xmx32m -cp '" + classes + "' " + Sleeper.class.getName();
  }

  private ContainerProcesses.ContainerProcess awaitFound(String id) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      try {
        return processes.find(id);
      } catch (ContainerProcesses.NotFoundException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(50);
      }
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

  private static void awaitState(ContainerProcesses.ContainerProcess p, char s) throws InterruptedException {
    await(() -> state(p) == s, "state " + s + " of pid " + p.pid());
  }

  private static void await(BooleanSupplier done, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }
}
