package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.edl.job.HostPort;
import org.edl.job.Script;
import org.junit.jupiter.api.Test;

/** The agent's command line and environment in a --torchrun job's worker container. */
class TorchrunLaunchContextsTest {
  @Test
  void theAgentRunsTheScriptWithItsArgumentsQuotedForBashOnTheContainersGpus() throws Exception {
    Script script = new Script("train.py", List.of("--name", "it's a run", "$HOME"), "python-env/bin/python", 2)
        .asTorchrun();
    TorchrunLaunchContexts contexts = new TorchrunLaunchContexts(Map.of(), ByteBuffer.allocate(0), "application_1_2",
        script, 2, 1, 4, new HostPort("am-host", 29400));
    ContainerLaunchContext c = contexts.create(new WorkerContainer("c1", "h1"), new WorkerLaunch(List.of(2, 3)));
    String command = c.getCommands().get(0);
    assertEquals("'python-env/bin/python' '-u' 'edl_torchrun.py' 'agent' '--min-nodes' '1' '--max-nodes' '4'"
        + " '--nproc-per-node' '2' '--rdzv-endpoint' 'am-host:29400' '--run-id' 'application_1_2' '--' 'train.py'"
        + " '--name' 'it'\\''s a run' '$HOME' 1><LOG_DIR>/stdout 2><LOG_DIR>/stderr", command);
    Process bash = new ProcessBuilder("bash", "-c", "printf '%s|' " + command.substring(command.indexOf("'--name'"),
        command.indexOf(" 1>"))).start();
    assertEquals("--name|it's a run|$HOME|", new String(bash.getInputStream().readAllBytes()), "one word each, unexpanded");
    assertEquals("2,3", c.getEnvironment().get("CUDA_VISIBLE_DEVICES"), "LOCAL_RANK i is the container's i-th GPU");
  }
}
