package org.edl.worker.runtime;

import static org.edl.worker.runtime.ElasticScalingTest.assertEveryPositionOnce;
import static org.edl.worker.runtime.ElasticScalingTest.assertIdentical;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.edl.job.JobSpec;
import org.edl.job.BatchRule;
import org.edl.testing.LogLines;
import org.edl.testing.ZooKeeperServer;
import org.edl.thrift.SwitchOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job whose workers sit on two hosts (loopback addresses 127.0.0.1 and 127.0.0.2 stand for
 * them): with the same number on each, its rings go by host, and switches move it into and out of
 * that layout while it trains. Every member ends with the same parameters, every sample position
 * trained once.
 */
class HostRingsTrainingTest {
  private static final int STEPS = 120;
  private static final int BATCH = 24;
  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @TempDir
  Path out;

  @Test
  void twoHostsOfTwoGoByHostThroughAScaleOutToThreeEachAndAScaleInToAnUnevenFlatRing() throws Exception {
    String appId = "application_8_1";
    JobSpec spec = JobSpec.builder().name("hosts").model("softmax")
        .data("synthetic:samples=600,features=12,classes=4,seed=11").format("auto").workers(4).minWorkers(1)
        .maxWorkers(6).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(STEPS).batchSize(BATCH)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.3).hidden(16).seed(3).backend("cpu")
        .output(out.resolve(appId).toUri().toString()).build();
    List<String> rings = new CopyOnWriteArrayList<>();
    try (ElasticJob job = new ElasticJob(ZK.connectString(), appId, spec, Duration.ofMillis(5));
         LogLines used = LogLines.of(ElasticMembership.class, rings, "all-reduces on ring");
         LogLines connected = LogLines.of(TrainingRing.class, rings, "connected ring")) {
      String a = ElasticJob.id(appId, 1);
      String b = ElasticJob.id(appId, 2);
      String c = ElasticJob.id(appId, 3);
      String d = ElasticJob.id(appId, 4);
      String e = ElasticJob.id(appId, 5);
      String f = ElasticJob.id(appId, 6);
      Map<String, String> hosts = Map.of(a, "127.0.0.1", b, "127.0.0.2", c, "127.0.0.1", d, "127.0.0.2",
          e, "127.0.0.1", f, "127.0.0.2");
      job.hostOf = hosts::get;
      job.holdBefore(20);
      for (String w : List.of(a, b, c, d)) {
        job.start(w);
      }
      job.awaitTrained(a, 19);
      List<String> first = rings.stream().filter(l -> l.contains("all-reduces on ring v1 ")).toList();
      assertEquals(4, first.size(), rings.toString());
      assertTrue(first.stream().allMatch(l -> l.endsWith("(shared memory inside each host, shared memory between 2"
          + " hosts)")), "by host (and one /dev/shm for both hosts here): " + first);

      job.start(e);                                  // 2 + 2 -> 3 + 3, by host
      job.start(f);
      job.awaitReady(e);
      job.awaitReady(f);
      job.holdBefore(60);
      job.awaitTrained(f, 59);
      // The leader switches as soon as a newcomer is ready: both in v2, or e in v2 and f in v3.
      List<SwitchRecord> joinedF = job.switches.get(f);
      SwitchRecord grown = joinedF.get(joinedF.size() - 1);
      assertEquals(6, grown.workersAfter(), joinedF.toString());
      List<String> sixes = rings.stream().filter(l -> l.contains("connected ring v" + grown.topologyVersion() + " "))
          .toList();
      assertEquals(6, sixes.size(), rings.toString());
      assertTrue(sixes.stream().allMatch(l -> l.contains("inside each host")), "3 + 3 by host: " + sixes);

      SwitchOrder leave = job.leave(d);              // 3 + 2: uneven, a flat ring
      job.release();

      List<Worker.Outcome> stayed = List.of(job.outcome(a), job.outcome(b), job.outcome(c), job.outcome(e),
          job.outcome(f));
      assertEquals(Worker.Ending.LEFT, job.outcome(d).ending());
      stayed.forEach(o -> assertEquals(STEPS, o.nextStep(), o.workerId()));
      assertEquals(5, job.outcome(a).workers());
      assertIdentical(stayed);
      assertEveryPositionOnce(job, (long) STEPS * BATCH);
      assertEquals(5, job.switchOf(a, leave.getTopologyVersion()).workersAfter());
    }
  }
}
