package org.edl.am;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.edl.job.HostPort;
import org.edl.job.Script;
import org.edl.job.WorkerEnv;

/**
 * Launch contexts of a {@code --torchrun} job's workers: each container runs one node of the job,
 * torch's elastic agent through {@link StagingLayout#TORCHRUN_LAUNCHER}, with the script's
 * processes on the container's GPUs ({@code CUDA_VISIBLE_DEVICES}, so that {@code LOCAL_RANK} i is
 * the container's i-th device) and the rendezvous the AM hosts.
 */
final class TorchrunLaunchContexts implements YarnContainerDriver.LaunchContextFactory {
  private final Map<String, LocalResource> resources;
  private final ByteBuffer tokens;
  private final List<String> command;

  /**
   * @param tokens the AM's credentials without the AMRM token, serialised (HDFS delegation tokens
   *               for a script that reads HDFS)
   */
  public TorchrunLaunchContexts(Map<String, LocalResource> resources, ByteBuffer tokens, String appId, Script script,
      int processes, int minWorkers, int maxWorkers, HostPort rendezvous) {
    this.resources = Map.copyOf(resources);
    this.tokens = tokens.asReadOnlyBuffer();
    this.command = List.of(commandLine(appId, script, processes, minWorkers, maxWorkers, rendezvous));
  }

  /** The agent's shell command line (YARN runs it through bash): every argument quoted. */
  static String commandLine(String appId, Script script, int processes, int minWorkers, int maxWorkers,
      HostPort rendezvous) {
    List<String> args = new ArrayList<>(List.of(script.python(), "-u", StagingLayout.TORCHRUN_LAUNCHER, "agent",
        "--min-nodes", Integer.toString(minWorkers), "--max-nodes", Integer.toString(maxWorkers),
        "--nproc-per-node", Integer.toString(processes), "--rdzv-endpoint", rendezvous.host() + ":" + rendezvous.port(),
        "--run-id", appId, "--", script.file()));
    args.addAll(script.args());
    return args.stream().map(TorchrunLaunchContexts::quoted).collect(Collectors.joining(" "))
        + " 1>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/stdout"
        + " 2>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/stderr";
  }

  /** {@code arg} as one bash word. */
  static String quoted(String arg) {
    return "'" + arg.replace("'", "'\\''") + "'";
  }

  @Override
  public ContainerLaunchContext create(WorkerContainer container, WorkerLaunch launch) {
    Map<String, String> env = new HashMap<>(launch.env());
    String gpus = launch.gpuIndices().stream().map(String::valueOf).collect(Collectors.joining(","));
    env.put(WorkerEnv.GPU_INDICES, gpus);
    if (!gpus.isEmpty()) {
      env.put("CUDA_VISIBLE_DEVICES", gpus);
    }
    env.put("PYTHONUNBUFFERED", "1");
    return ContainerLaunchContext.newInstance(new HashMap<>(resources), env, command, null, tokens.duplicate(), null);
  }
}
