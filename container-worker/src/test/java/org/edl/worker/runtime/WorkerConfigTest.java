package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.edl.job.BatchRule;
import org.edl.job.HostPort;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.worker.gpu.GpuDevices;
import org.junit.jupiter.api.Test;

/** A configuration's builder carries every part over; each {@code with...} changes only its own. */
class WorkerConfigTest {
  private static WorkerConfig everyPartSet() {
    JobSpec spec = JobSpec.builder().name("config").model("softmax")
        .data("synthetic:samples=64,features=4,classes=3,seed=1").format("auto").workers(2).minWorkers(1)
        .maxWorkers(2).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(10).batchSize(12)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).hidden(8).seed(7).backend("cpu")
        .output("file:///tmp/x").build();
    return WorkerConfig.of("application_1_0001", "container_1_0001_01_000002", "10.0.0.2", "zk:2181",
            HostPort.parse("10.0.0.1:9000"), spec, JobSecret.generate(), new Configuration(false))
        .toBuilder().node("10.0.0.2:45454").startupTimeout(Duration.ofSeconds(7)).rpcTimeout(Duration.ofSeconds(8))
        .progressInterval(Duration.ofMillis(9)).ticker(() -> 42).switchAllowance(Duration.ofMillis(10))
        .profilesDir(Path.of("/profiles")).restoreFrom("hdfs:///ckpt").zkSessionTimeout(Duration.ofSeconds(11))
        .sharedMemoryDir(Path.of("/shm")).gpus(new GpuDevices(List.of(3), List.of(0), "test")).build();
  }

  @Test
  void theBuilderOfAConfigurationBuildsTheSameConfiguration() {
    WorkerConfig config = everyPartSet();
    assertEquals(config, config.toBuilder().build());
  }

  @Test
  void eachWithChangesItsOwnPartAndNoOther() {
    WorkerConfig config = everyPartSet();
    WorkerConfig changed = config.withRpcTimeout(Duration.ofSeconds(99));
    assertNotEquals(config, changed);
    assertEquals(config, changed.withRpcTimeout(config.rpcTimeout()));
    assertEquals(config, config.withNode("elsewhere:1").withNode(config.node()));
    assertEquals(Path.of("/shm"), config.withGpus(GpuDevices.NONE).sharedMemoryDir());
  }
}
