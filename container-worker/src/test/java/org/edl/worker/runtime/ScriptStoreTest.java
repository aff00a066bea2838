package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.edl.job.JobSpec;
import org.edl.job.Script;
import org.edl.testing.PythonTorch;
import org.edl.testing.ZooKeeperServer;
import org.edl.job.BatchRule;
import org.edl.worker.script.ScriptModel;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rendezvous store of a script job's group, seen by a stranger: a process on the network that
 * reaches a member's store while its group trains connects (torch's TCPStore takes anyone), but
 * finds nothing it can use: the group's keys are under a name derived from the job's secret.
 */
class ScriptStoreTest {
  /** A TCPStore client: the store's number of keys, and whether the barrier's count under torch's usual name reads. */
  private static final String STRANGER = """
      import datetime, sys
      import torch.distributed as dist
      store = dist.TCPStore("127.0.0.1", int(sys.argv[1]), None, False, datetime.timedelta(seconds=10))
      store.set_timeout(datetime.timedelta(seconds=1))
      try:
          store.get("v1/store_based_barrier_key:1")
          found = "readable"
      except Exception:
          found = "absent"
      print(store.num_keys(), found)
      """;
  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @TempDir
  Path out;

  @BeforeAll
  static void torch() throws Exception {
    PythonTorch.assumeInstalled();
  }

  @Test
  void aStrangerReachingTheStoreFindsNoKeyOfTheGroup() throws Exception {
    String appId = "application_11_1";
    JobSpec spec = JobSpec.builder().name("store").script(new Script("train.py", List.of(), ScriptJobTest.PYTHON))
        .workers(2).minWorkers(1).maxWorkers(2).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1)
        .steps(ScriptJobTest.STEPS).batchSize(24).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).seed(3)
        .backend("cpu").output(out.resolve(appId).toUri().toString()).build();
    Map<String, ScriptModel> scripts = new ConcurrentHashMap<>();
    List<String> seen = new ArrayList<>();
    try (ElasticJob job = new ElasticJob(ZK.connectString(), appId, spec, Duration.ofMillis(5))) {
      List<String> ids = List.of(ElasticJob.id(appId, 1), ElasticJob.id(appId, 2));
      job.holdBefore(10);
      for (int i = 0; i < ids.size(); i++) {
        job.start(ids.get(i), ScriptJobs.script(out, scripts, ids.get(i), ScriptJobTest.SCRIPT,
            List.of(Integer.toString(i + 1))));
      }
      for (String id : ids) {
        job.awaitTrained(id, 9);
      }
      for (String id : ids) {
        seen.add(stranger(scripts.get(id).storePort()));
      }
      job.release();
      for (String id : ids) {
        assertEquals(Worker.Ending.FINISHED, job.outcome(id).ending(), id);
      }
    }
    assertTrue(seen.stream().anyMatch(s -> !s.startsWith("0 ")), "the group gathered at one of the stores: " + seen);
    assertTrue(seen.stream().allMatch(s -> s.endsWith(" absent")), "no key under torch's usual names: " + seen);
  }

  private static String stranger(int port) throws Exception {
    Process p = new ProcessBuilder(ScriptJobTest.PYTHON, "-c", STRANGER, Integer.toString(port))
        .redirectErrorStream(true).start();
    String printed = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the stranger ended");
    assertEquals(0, p.exitValue(), printed);
    String[] lines = printed.split("\n");
    return lines[lines.length - 1];
  }
}
