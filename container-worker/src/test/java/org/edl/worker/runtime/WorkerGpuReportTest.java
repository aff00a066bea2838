package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.hadoop.conf.Configuration;
import org.edl.job.GpuIndexRecord;
import org.edl.job.JobPaths;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.job.JobZooKeeperAcl;
import org.edl.testing.ZooKeeperServer;
import org.edl.job.BatchRule;
import org.edl.worker.coord.Member;
import org.edl.worker.coord.rpc.Wire;
import org.edl.worker.gpu.GpuDevices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker reports the GPUs its container holds, not the AM's suggestion: the first as its ring
 * member's {@code gpuIndex} (in the leader's record), all of them in the job's GPU record, which
 * the AM wrote with its suggestion and {@code edl status} reads.
 */
class WorkerGpuReportTest {
  private static final String APP = "application_1_0039";

  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @TempDir
  Path out;

  @Test
  void theRingAndTheGpuRecordCarryTheDevicesEachWorkerHolds() throws Exception {
    JobSecret secret = JobSecret.generate();
    JobSpec spec = JobSpec.builder().name("test").model("softmax").data("synthetic:samples=200,features=6,classes=3,seed=5")
        .format("auto").workers(2).minWorkers(1).maxWorkers(2).gpusPerWorker(1).workerMemoryMb(512).workerVcores(1)
        .steps(5).batchSize(20).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.5).hidden(8).seed(3)
        .backend("cpu").output(out.toUri().toString()).build();
    Map<String, Integer> held = Map.of(APP.replace("application", "container") + "_01_000002", 2,
        APP.replace("application", "container") + "_01_000003", 5);
    try (CuratorFramework zk = JobZooKeeperAcl.of(APP, secret).applyTo(CuratorFrameworkFactory.builder())
        .connectString(ZK.connectString()).retryPolicy(new ExponentialBackoffRetry(100, 5)).build()) {
      zk.start();
      GpuIndexRecord record = new GpuIndexRecord(zk, APP);
      for (String id : held.keySet()) {
        record.write(id, List.of(0)); // what each job's AM suggests, knowing nothing of the other
      }
      ExecutorService threads = Executors.newFixedThreadPool(2);
      try {
        List<Future<Worker.Outcome>> runs = new ArrayList<>();
        for (Map.Entry<String, Integer> w : held.entrySet()) {
          WorkerConfig config = WorkerConfig.of(APP, w.getKey(), "127.0.0.1", ZK.connectString(), null, spec, secret,
              new Configuration()).withStartupTimeout(Duration.ofSeconds(60))
              .withGpus(new GpuDevices(List.of(w.getValue()), List.of(w.getValue()), "claimed in a test"));
          runs.add(threads.submit(new Worker(config)::run));
        }
        for (Future<Worker.Outcome> r : runs) {
          r.get(120, TimeUnit.SECONDS);
        }
      } finally {
        threads.shutdownNow();
      }

      Map<String, Integer> inRing = new TreeMap<>();
      for (Member m : Wire.jobRecord(zk.getData().forPath(JobPaths.job(APP))).ring().members()) {
        inRing.put(m.id(), m.gpuIndex());
      }
      assertEquals(new TreeMap<>(held), inRing);
      for (Map.Entry<String, Integer> w : held.entrySet()) {
        assertEquals(Optional.of(List.of(w.getValue())), record.read(w.getKey()), w.getKey());
      }
    }
  }
}
