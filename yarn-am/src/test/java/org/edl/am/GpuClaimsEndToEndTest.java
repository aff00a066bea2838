package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.edl.client.JobControlConnection;
import org.edl.client.JobControlLocator;
import org.edl.client.JobSubmitter;
import org.edl.job.JobSpec;
import org.edl.testing.Await;
import org.edl.testing.YarnCluster;
import org.edl.thrift.JobStatus;
import org.edl.thrift.WorkerPlacement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two jobs whose workers share a node never train on one GPU. On a cluster of one NodeManager
 * (4 fake GPUs, which YARN only counts) each job's AM suggests index 0, the lowest its own job
 * holds; the workers claim their indices on the node, so the GPUs they report, as {@code edl
 * status} shows them, are 0 for one and 1 for the other. Before the claims both reported 0.
 */
class GpuClaimsEndToEndTest {
  @RegisterExtension
  static final YarnCluster CLUSTER = new YarnCluster(b -> b.nodes(1));

  @Test
  void twoJobsWhoseWorkersShareANodeReportDisjointGpus() throws Exception {
    JobSubmitter submitter = new JobSubmitter(CLUSTER.configuration(), CLUSTER.yarn());
    List<ApplicationId> jobs = new ArrayList<>();
    try {
      jobs.add(submitter.submit(job("edl-gpu-claims-a")).appId());
      jobs.add(submitter.submit(job("edl-gpu-claims-b")).appId());
      WorkerPlacement a = theWorkerOnceTraining(jobs.get(0));
      WorkerPlacement b = theWorkerOnceTraining(jobs.get(1));

      assertEquals(a.getHost(), b.getHost(), "one node");
      assertEquals(1, a.getGpusSize(), a.toString());
      assertEquals(1, b.getGpusSize(), b.toString());
      assertFalse(a.getGpus().equals(b.getGpus()), "both jobs' workers on GPU " + a.getGpus());
      assertEquals(Set.of(0, 1), union(a.getGpus(), b.getGpus()),
          "one worker has the suggested 0, the other the next free index");
    } finally {
      for (ApplicationId app : jobs) {
        CLUSTER.yarn().killApplication(app);
      }
    }
  }

  private static JobSpec job(String name) {
    return JobSpec.builder().name(name).model("mlp")
        .data("synthetic:samples=512,features=8,classes=3,seed=5").format("auto").workers(1)
        .minWorkers(1).maxWorkers(1).gpusPerWorker(1).workerMemoryMb(512).workerVcores(1)
        .steps(100_000_000L).batchSize(32).batchRule(JobSpec.batchRuleOf("fixed-global")).learningRate(0.1)
        .hidden(8).seed(1).backend("cpu").build();
  }

  /**
   * The job's one worker as {@code edl status} shows it once the leader has reported a trained
   * step: the worker recorded the GPUs it holds before it registered, so the placement is its own
   * report by then, not the AM's suggestion.
   */
  private static WorkerPlacement theWorkerOnceTraining(ApplicationId app) {
    JobStatus s = Await.until(app + " to train", () -> status(app),
        st -> st != null && st.isSetProgress() && st.getProgress().getStep() > 0, Duration.ofMinutes(4));
    assertEquals(1, s.getPlacementsSize(), s.toString());
    return s.getPlacements().get(0);
  }

  private static JobStatus status(ApplicationId app) throws Exception {
    YarnApplicationState state = CLUSTER.yarn().getApplicationReport(app).getYarnApplicationState();
    assertFalse(state.ordinal() > YarnApplicationState.RUNNING.ordinal(),
        app + " ended: " + CLUSTER.yarn().getApplicationReport(app).getDiagnostics());
    if (state != YarnApplicationState.RUNNING) {
      return null;
    }
    try (JobControlConnection c = new JobControlLocator(CLUSTER.configuration(), CLUSTER.yarn())
        .connect(app.toString(), Duration.ofSeconds(30))) {
      return c.control().status();
    } catch (RuntimeException e) {
      return null; // the endpoint is published a moment after RUNNING
    }
  }

  private static Set<Integer> union(List<Integer> a, List<Integer> b) {
    Set<Integer> all = new HashSet<>(a);
    all.addAll(b);
    return all;
  }
}
