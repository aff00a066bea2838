package org.edl.worker.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Claims of GPU indices in one node directory: claimants never share an index, whether they are
 * in one process or two; a claim dies with its process, {@code kill -9} included; a full node
 * fails naming the directory and who holds each index.
 */
class GpuClaimsTest {
  @TempDir
  Path dir;

  @Test
  void twoClaimantsInOneDirectoryGetDisjointIndicesThePreferredFirst() throws Exception {
    try (GpuClaim a = new GpuClaims(dir, "a").claim(List.of(0), 4, 1, Duration.ZERO);
        GpuClaim b = new GpuClaims(dir, "b").claim(List.of(0), 4, 1, Duration.ZERO);
        GpuClaim c = new GpuClaims(dir, "c").claim(List.of(3, 0), 4, 2, Duration.ZERO)) {
      assertEquals(List.of(0), a.indices());
      assertEquals(List.of(1), b.indices(), "0 is a's: the next free one");
      assertEquals(List.of(3, 2), c.indices(), "3 as suggested, then the lowest free");
    }
    try (GpuClaim again = new GpuClaims(dir, "d").claim(List.of(0), 4, 4, Duration.ZERO)) {
      assertEquals(List.of(0, 1, 2, 3), again.indices(), "closed claims are free again");
    }
  }

  @Test
  void anotherProcesssClaimIsRespectedAndFreedByItsKill9() throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    Process holder = new ProcessBuilder(java, "-Xmx64m", "-cp", System.getProperty("java.class.path"),
        GpuClaimHolder.class.getName(), dir.toString(), "0", "1").redirectErrorStream(true).start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("claimed [0]", out.readLine(), "the holder's first line");

      try (GpuClaim mine = new GpuClaims(dir, "me").claim(List.of(0), 2, 1, Duration.ZERO)) {
        assertEquals(List.of(1), mine.indices(), "the other process holds 0");
      }
      GpuClaimException full = assertThrows(GpuClaimException.class,
          () -> new GpuClaims(dir, "me").claim(List.of(0), 1, 1, Duration.ZERO));
      assertTrue(full.getMessage().contains("gpu-0 held by container_holder (pid " + holder.pid() + ")"),
          full.getMessage());

      holder.destroyForcibly(); // SIGKILL: no shutdown hook, no close
      assertTrue(holder.waitFor(30, TimeUnit.SECONDS), "the holder did not die");
      assertEquals(137, holder.exitValue(), "killed by SIGKILL");
      try (GpuClaim mine = new GpuClaims(dir, "me").claim(List.of(0), 1, 1, Duration.ZERO)) {
        assertEquals(List.of(0), mine.indices(), "the kernel released the dead process's lock");
        assertEquals("me", Files.readString(dir.resolve("gpu-0.lock")).strip(), "the new holder is written in");
      }
    } finally {
      holder.destroyForcibly();
    }
  }

  @Test
  void aFullNodeFailsAfterItsWaitNamingTheDirectoryAndTheHolders() throws Exception {
    try (GpuClaim held = new GpuClaims(dir, "container_01_000002 (pid 1)").claim(List.of(), 2, 2, Duration.ZERO)) {
      assertEquals(List.of(0, 1), held.indices());
      GpuClaimException e = assertThrows(GpuClaimException.class,
          () -> new GpuClaims(dir, "late").claim(List.of(0), 2, 1, Duration.ofMillis(600)));
      assertTrue(e.getMessage().startsWith("only 0 of the 1 GPU(s) this worker needs are free in " + dir + " after "),
          e.getMessage());
      assertTrue(e.getMessage().contains("gpu-0 held by this process, gpu-1 held by this process"), e.getMessage());
    }
    try (GpuClaim one = new GpuClaims(dir, "a").claim(List.of(0), 2, 1, Duration.ZERO)) {
      GpuClaimException e = assertThrows(GpuClaimException.class,
          () -> new GpuClaims(dir, "b").claim(List.of(0), 2, 2, Duration.ZERO));
      assertTrue(e.getMessage().contains("only 1 of the 2 GPU(s)"), e.getMessage());
      assertTrue(e.getMessage().contains("gpu-0 held by this process, gpu-1 free"), "a free file's last holder"
          + " is not named: " + e.getMessage());
    }
  }

  @Test
  void withoutTheNodesCountOnlyTheSuggestedIndicesAreTried() throws Exception {
    try (GpuClaim held = new GpuClaims(dir, "a").claim(List.of(2), 0, 1, Duration.ZERO)) {
      assertEquals(List.of(2), held.indices());
      GpuClaimException e = assertThrows(GpuClaimException.class,
          () -> new GpuClaims(dir, "b").claim(List.of(2), 0, 1, Duration.ZERO));
      assertTrue(e.getMessage().contains("gpu-2 held by this process"), e.getMessage());
    }
    GpuClaimException tooMany = assertThrows(GpuClaimException.class,
        () -> new GpuClaims(dir, "c").claim(List.of(0), 0, 2, Duration.ZERO));
    assertTrue(tooMany.getMessage().contains("cannot claim 2 GPU(s) in " + dir
        + ": the node has an unknown number (no EDL_NODE_GPUS), and the AM suggested [0]"), tooMany.getMessage());
  }

  @Test
  void aMissingDirectoryIsCreatedForEveryUserWithTheStickyBit() throws Exception {
    Path nodeDir = dir.resolve("claims").resolve("host_8041");
    try (GpuClaim held = new GpuClaims(nodeDir, "a").claim(List.of(0), 1, 1, Duration.ZERO)) {
      assertEquals(01777, (Integer) Files.getAttribute(nodeDir, "unix:mode") & 07777);
      assertEquals(01777, (Integer) Files.getAttribute(nodeDir.getParent(), "unix:mode") & 07777);
      assertEquals(0666, (Integer) Files.getAttribute(nodeDir.resolve("gpu-0.lock"), "unix:mode") & 0777);
    }
  }
}
