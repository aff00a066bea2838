package org.edl.am;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.hadoop.yarn.api.ApplicationConstants.Environment;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.edl.job.WorkerEnv;

/**
 * Launch contexts of the job's workers: the same local resources (job.properties, jars), the
 * same command and tokens for all; {@link WorkerEnv#GPU_INDICES} and the launch's own
 * environment (a relaunch's checkpoint) differ per container.
 */
public final class WorkerLaunchContexts implements YarnContainerDriver.LaunchContextFactory {
  private final Map<String, LocalResource> resources;
  private final Map<String, String> env;
  private final ByteBuffer tokens;
  private final List<String> command;

  /**
   * @param tokens the AM's credentials without the AMRM token, serialised; they carry the job
   *               secret and any HDFS delegation tokens
   * @param jobEnv  settings the submitter gave the AM for every worker (the ZooKeeper session
   *               timeout)
   * @param jvmOptions options of every worker's JVM besides the heap and {@code --add-opens}
   */
  public WorkerLaunchContexts(Map<String, LocalResource> resources, String classpath,
      String appId, String zkConnect, String amAddress, ByteBuffer tokens, int workerMemoryMb,
      Map<String, String> jobEnv, List<String> jvmOptions) {
    this.resources = Map.copyOf(resources);
    Map<String, String> e = new HashMap<>(jobEnv);
    e.put(Environment.CLASSPATH.name(), classpath);
    e.put(WorkerEnv.APP_ID, appId);
    e.put(WorkerEnv.ZK_CONNECT, zkConnect);
    e.put(WorkerEnv.AM_ADDRESS, amAddress);
    e.put(WorkerEnv.CONTAINER_MEMORY_MB, String.valueOf(workerMemoryMb));
    this.env = Map.copyOf(e);
    this.tokens = tokens.asReadOnlyBuffer();
    this.command = JavaCommand.of(WorkerEnv.MAIN_CLASS, workerMemoryMb, jvmOptions);
  }

  @Override
  public ContainerLaunchContext create(WorkerContainer container, WorkerLaunch launch) {
    Map<String, String> containerEnv = new HashMap<>(env);
    containerEnv.put(WorkerEnv.GPU_INDICES,
        launch.gpuIndices().stream().map(String::valueOf).collect(Collectors.joining(",")));
    containerEnv.putAll(launch.env());
    return ContainerLaunchContext.newInstance(new HashMap<>(resources), containerEnv, command,
        null, tokens.duplicate(), null);
  }

  public List<String> command() {
    return command;
  }
}
