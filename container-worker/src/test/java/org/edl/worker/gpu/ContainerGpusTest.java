package org.edl.worker.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.edl.job.InvalidInputException;
import org.edl.job.WorkerEnv;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which GPUs a container uses: exactly YARN's where YARN isolates them (Docker's
 * NVIDIA_VISIBLE_DEVICES, the GPU plugin's device cgroup, or the node's administrator saying so),
 * claimed on the node otherwise, in a directory of the NodeManager's own.
 */
class ContainerGpusTest {
  private static final String CONTAINER = "container_1_0001_01_000002";

  @TempDir
  Path tmp;

  private Map<String, String> env(String nmPort, String suggested) {
    Map<String, String> env = new HashMap<>();
    env.put(WorkerEnv.CONTAINER_ID, CONTAINER);
    env.put(WorkerEnv.NM_HOST, "gpu-host");
    env.put(WorkerEnv.NM_PORT, nmPort);
    env.put(WorkerEnv.GPU_INDICES, suggested);
    env.put(WorkerEnv.NODE_GPUS, "4");
    env.put(WorkerEnv.GPU_CLAIM_DIR, tmp.resolve("claims").toString());
    return env;
  }

  private Path cgroups(String... lines) throws Exception {
    return Files.write(tmp.resolve("cgroup"), List.of(lines));
  }

  @Test
  void dockersVisibleDevicesAreUsedAsTheyAreAndNothingIsClaimed() throws Exception {
    Map<String, String> env = env("8041", "0");
    env.put(ContainerGpus.NVIDIA_VISIBLE_DEVICES, "2,3");
    try (ContainerGpus.Held held = ContainerGpus.acquire(env, 2, cgroups("0::/"), Duration.ZERO)) {
      assertEquals(List.of(2, 3), held.devices().indices());
      assertEquals(List.of(0, 1), held.devices().cudaOrdinals(), "the runtime shows the container only its own");
    }
    assertFalse(Files.exists(tmp.resolve("claims")), "nothing claimed");
  }

  @Test
  void theGpuPluginsDeviceCgroupMeansTheContainersOwnDevices() throws Exception {
    Path cgroups = cgroups("12:memory:/hadoop-yarn/" + CONTAINER, "4:devices:/hadoop-yarn/" + CONTAINER, "1:name=systemd:/");
    try (ContainerGpus.Held held = ContainerGpus.acquire(env("8041", "3"), 1, cgroups, Duration.ZERO)) {
      assertEquals(List.of(0), held.devices().cudaOrdinals());
      assertTrue(held.devices().source().contains("device cgroup /hadoop-yarn/" + CONTAINER), held.devices().source());
    }
    assertFalse(Files.exists(tmp.resolve("claims")), "nothing claimed");
  }

  @Test
  void anAdministratorCanSayYarnIsolatesDevicesOnTheNode() throws Exception {
    Map<String, String> env = env("8041", "1");
    env.put(WorkerEnv.GPU_CLAIM_DIR, "none");
    try (ContainerGpus.Held held = ContainerGpus.acquire(env, 1, cgroups("0::/"), Duration.ZERO)) {
      assertEquals(List.of(0), held.devices().indices());
    }
  }

  /**
   * A devices cgroup that is not the container's (the whole NodeManager in a Docker container of
   * its own) isolates nothing between the node's containers: they claim.
   */
  @Test
  void withoutIsolationTwoContainersClaimDisjointIndicesInTheirNodesDirectory() throws Exception {
    Path cgroups = cgroups("4:devices:/docker/0123abcd", "0::/");
    try (ContainerGpus.Held a = ContainerGpus.acquire(env("8041", "0"), 1, cgroups, Duration.ZERO);
        ContainerGpus.Held b = ContainerGpus.acquire(env("8041", "0"), 1, cgroups, Duration.ZERO)) {
      assertEquals(List.of(0), a.devices().indices());
      assertEquals(List.of(1), b.devices().indices(), "both AMs suggested 0");
      assertEquals(List.of(1), b.devices().cudaOrdinals(), "the container sees every device of the node");
      assertTrue(Files.exists(tmp.resolve("claims").resolve("gpu-host_8041").resolve("gpu-1.lock")));
    }
  }

  /** The embedded cluster's NodeManagers share a host name: each has devices of its own. */
  @Test
  void twoNodeManagersOnOneHostClaimApart() throws Exception {
    Path cgroups = cgroups("0::/");
    try (ContainerGpus.Held a = ContainerGpus.acquire(env("8041", "0"), 1, cgroups, Duration.ZERO);
        ContainerGpus.Held b = ContainerGpus.acquire(env("8042", "0"), 1, cgroups, Duration.ZERO)) {
      assertEquals(List.of(0), a.devices().indices());
      assertEquals(List.of(0), b.devices().indices());
    }
  }

  @Test
  void noGpuAskedForClaimsNothing() throws Exception {
    try (ContainerGpus.Held held = ContainerGpus.acquire(env("8041", ""), 0, cgroups("0::/"), Duration.ZERO)) {
      assertSame(GpuDevices.NONE, held.devices());
    }
    assertFalse(Files.exists(tmp.resolve("claims")));
  }

  @Test
  void aBadSuggestionNamesTheVariable() throws Exception {
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> ContainerGpus.acquire(env("8041", "0,x"), 1, cgroups("0::/"), Duration.ZERO));
    assertTrue(e.getMessage().contains(WorkerEnv.GPU_INDICES) && e.getMessage().contains("0,x"), e.getMessage());
  }
}
