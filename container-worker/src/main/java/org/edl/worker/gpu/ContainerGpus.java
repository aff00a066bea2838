package org.edl.worker.gpu;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.edl.job.InvalidInputException;
import org.edl.job.WorkerEnv;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which GPUs a worker container trains on. Where YARN isolates devices the container uses exactly
 * what YARN gave it and claims nothing: YARN's Docker runtime (nvidia-docker v2) names them in
 * {@code NVIDIA_VISIBLE_DEVICES}; the GPU plugin under the LinuxContainerExecutor puts the
 * container in a device cgroup of its own (named after the container), which lets it open only
 * its devices; and a node's administrator can say so with {@code EDL_GPU_CLAIM_DIR=none}. Anywhere
 * else YARN only counts GPUs, so the workers on the node claim indices among themselves ({@link
 * GpuClaims}), the AM's suggestion ({@code EDL_GPU_INDICES}) first.
 */
public final class ContainerGpus {
  private static final Logger LOG = LoggerFactory.getLogger(ContainerGpus.class);
  /** Set by YARN's nvidia-docker v2 plugin: the node's indices of the container's devices. */
  public static final String NVIDIA_VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";
  /** Where workers claim indices unless the node's {@code EDL_GPU_CLAIM_DIR} says otherwise. */
  public static final Path DEFAULT_CLAIM_DIR = Path.of("/tmp/edl-gpu-claims");
  /** How long a worker waits for a device a container that YARN has just ended may still hold. */
  public static final Duration CLAIM_WAIT = Duration.ofSeconds(30);
  /** The value of {@link WorkerEnv#GPU_CLAIM_DIR} that says YARN isolates devices on this node. */
  public static final String NO_CLAIMS = "none";
  /** This process's cgroups, one line per hierarchy. */
  public static final Path PROC_CGROUP = Path.of("/proc/self/cgroup");

  private ContainerGpus() {}

  /** The devices a worker uses, and the claim it holds for them until closed or until its process ends. */
  public record Held(GpuDevices devices, Closeable claim) implements Closeable {
    @Override
    public void close() throws IOException {
      claim.close();
    }
  }

  /**
   * @param env     the container's environment
   * @param count   the job's GPUs per worker
   * @param cgroups this process's cgroup file ({@link #PROC_CGROUP})
   * @param wait    how long to wait for too few free indices before failing
   */
  public static Held acquire(Map<String, String> env, int count, Path cgroups, Duration wait)
      throws IOException, InterruptedException {
    if (count <= 0) {
      return new Held(GpuDevices.NONE, () -> {});
    }
    Optional<GpuDevices> isolated = isolatedByYarn(env, count, cgroups);
    if (isolated.isPresent()) {
      LOG.info("GPUs {} (CUDA devices {}): {}; nothing claimed on the node", isolated.get().indices(),
          isolated.get().cudaOrdinals(), isolated.get().source());
      return new Held(isolated.get(), () -> {});
    }
    List<Integer> suggested = indices(WorkerEnv.GPU_INDICES, env.getOrDefault(WorkerEnv.GPU_INDICES, ""));
    GpuClaims claims = new GpuClaims(claimDir(env), holder(env));
    GpuClaim claim = claims.claim(suggested, nodeGpus(env), count, wait);
    GpuDevices devices = new GpuDevices(claim.indices(), claim.indices(), "claimed in " + claims.dir());
    LOG.info("GPUs {}: claimed in {} (the AM suggested {})", devices.indices(), claims.dir(), suggested);
    return new Held(devices, claim);
  }

  /** What YARN assigned, where it isolates the container's devices; empty where it only counts them. */
  static Optional<GpuDevices> isolatedByYarn(Map<String, String> env, int count, Path cgroups) {
    String visible = env.getOrDefault(NVIDIA_VISIBLE_DEVICES, "").trim();
    if (!visible.isEmpty() && !"all".equals(visible)) {
      String how = "assigned by YARN's Docker runtime (" + NVIDIA_VISIBLE_DEVICES + "=" + visible + ")";
      if (!visible.matches("[0-9]+(\\s*,\\s*[0-9]+)*")) {
        // UUIDs (another runtime's form): the devices are the container's, their node indices unknown.
        return Optional.of(new GpuDevices(ordinals(count), ordinals(count), how + ", the container's own numbering"));
      }
      List<Integer> indices = indices(NVIDIA_VISIBLE_DEVICES, visible);
      return Optional.of(new GpuDevices(indices, ordinals(indices.size()), how));
    }
    Optional<String> devicesCgroup = ownDevicesCgroup(env.get(WorkerEnv.CONTAINER_ID), cgroups);
    if (devicesCgroup.isPresent()) {
      // The cgroup says which devices may be opened, not which node indices they are: CUDA
      // numbers the container's own devices from 0.
      return Optional.of(new GpuDevices(ordinals(count), ordinals(count),
          "isolated by YARN's GPU plugin (device cgroup " + devicesCgroup.get() + "; the container's own numbering)"));
    }
    if (NO_CLAIMS.equals(env.getOrDefault(WorkerEnv.GPU_CLAIM_DIR, "").trim())) {
      return Optional.of(new GpuDevices(ordinals(count), ordinals(count),
          "isolated by YARN, as this node's " + WorkerEnv.GPU_CLAIM_DIR + "=none says (the container's own numbering)"));
    }
    return Optional.empty();
  }

  /**
   * The directory of this node's claims: one per NodeManager ({@code <dir>/<host>_<port>}), so that
   * NodeManagers sharing a host (the embedded cluster's) each have their own devices.
   */
  static Path claimDir(Map<String, String> env) {
    String base = env.getOrDefault(WorkerEnv.GPU_CLAIM_DIR, "").trim();
    String node = env.getOrDefault(WorkerEnv.NM_HOST, "").trim() + "_" + env.getOrDefault(WorkerEnv.NM_PORT, "").trim();
    return (base.isEmpty() ? DEFAULT_CLAIM_DIR : Path.of(base)).resolve(node.replaceAll("[^A-Za-z0-9._-]", "_"));
  }

  private static String holder(Map<String, String> env) {
    return env.getOrDefault(WorkerEnv.CONTAINER_ID, "a worker outside YARN") + " (pid " + ProcessHandle.current().pid() + ")";
  }

  private static int nodeGpus(Map<String, String> env) {
    String v = env.getOrDefault(WorkerEnv.NODE_GPUS, "").trim();
    if (v.isEmpty()) {
      return 0;
    }
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new InvalidInputException(WorkerEnv.NODE_GPUS, v, "not a whole number of GPUs");
    }
  }

  /**
   * The devices cgroup (v1) this process is in, where it is named after the container: the one
   * YARN's GPU plugin makes to deny the container every other device.
   */
  static Optional<String> ownDevicesCgroup(String containerId, Path cgroups) {
    if (containerId == null || containerId.isBlank() || !Files.isReadable(cgroups)) {
      return Optional.empty();
    }
    try {
      for (String line : Files.readAllLines(cgroups)) {
        String[] f = line.split(":", 3);
        if (f.length == 3 && Arrays.asList(f[1].split(",")).contains("devices")
            && (f[2].endsWith("/" + containerId.trim()))) {
          return Optional.of(f[2]);
        }
      }
    } catch (IOException e) {
      LOG.warn("Could not read {}: {}", cgroups, e.toString());
    }
    return Optional.empty();
  }

  static List<Integer> indices(String name, String text) {
    List<Integer> out = new ArrayList<>();
    for (String part : text.split(",")) {
      if (part.isBlank()) {
        continue;
      }
      try {
        int i = Integer.parseInt(part.trim());
        if (i < 0) {
          throw new NumberFormatException();
        }
        out.add(i);
      } catch (NumberFormatException e) {
        throw new InvalidInputException(name, text, "not a comma-separated list of GPU indices");
      }
    }
    return out;
  }

  private static List<Integer> ordinals(int n) {
    return IntStream.range(0, n).boxed().toList();
  }
}
