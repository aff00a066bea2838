package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.edl.job.JobSpec;
import org.edl.job.Recovery;
import org.edl.job.Script;
import org.edl.testing.PythonTorch;
import org.edl.testing.ZooKeeperServer;
import org.edl.job.BatchRule;
import org.edl.thrift.SwitchOrder;
import org.edl.worker.script.ScriptModel;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A PyTorch script job with the real protocol (workers as threads over a real ZooKeeper and TCP,
 * each with its script as a real child process, gloo): two workers start, a third joins stop-free
 * in the middle and one leaves later; the members that finish end with the parameters a one-worker
 * run of the same global batch ends with, and every sample position was trained once. A member
 * killed mid-job is recovered from in both modes.
 */
class ScriptJobTest {
  static final String PYTHON = PythonTorch.PYTHON;
  static final int STEPS = 30;
  static final String SCRIPT = """
      import sys, torch, edl
      g = torch.Generator().manual_seed(7)
      x = torch.randn(96, 6, generator=g)
      y = (x.sum(dim=1) > 0).long()
      job = edl.init(dataset_size=len(x))
      torch.manual_seed(int(sys.argv[1]))
      model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
      opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
      job.attach(model, opt)
      for step in job.steps():
          opt.zero_grad()
          loss = torch.nn.functional.cross_entropy(job.model(x[step.samples]), y[step.samples], reduction="sum")
          step.backward(loss)
          opt.step()
          step.done(loss.item())
      with open("params.txt", "w") as f:
          f.write(" ".join(repr(v) for v in torch.cat([p.detach().flatten() for p in model.parameters()]).tolist()))
      """;
  /**
   * With BatchNorm, whose running statistics DDP broadcasts from rank 0 in every forward pass: a
   * member lost between two steps fails the others' next forward there, in the script's code.
   */
  static final String BATCH_NORM_SCRIPT = SCRIPT.replace("torch.nn.Linear(6, 8), torch.nn.ReLU()",
      "torch.nn.Linear(6, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU()").replace(
      "with open(\"params.txt\", \"w\") as f:",
      "with open(\"buffers.txt\", \"w\") as f:\n"
          + "    f.write(\" \".join(repr(v) for v in torch.cat([b.double().flatten() for b in model.buffers()]).tolist()))\n"
          + "with open(\"params.txt\", \"w\") as f:");
  /**
   * {@link #SCRIPT}'s training from a {@code Dataset} through a {@code DataLoader} with two worker
   * processes: the dataset hands back each sample's index and the process that loaded it, and every
   * step's batch must hold exactly the step's samples, loaded ahead in a worker process.
   */
  static final String LOADER_SCRIPT = SCRIPT.replace("import sys, torch, edl",
      "import sys, torch, edl\nfrom torch.utils.data import DataLoader, Dataset, get_worker_info").replace(
      "job = edl.init(dataset_size=len(x))", """
      class Indexed(Dataset):
          def __len__(self):
              return len(x)
          def __getitem__(self, i):
              info = get_worker_info()
              return x[i], y[i], i, -1 if info is None else info.id
      job = edl.init(dataset_size=len(x))""").replace("for step in job.steps():", """
      loader = DataLoader(Indexed(), batch_sampler=job.batch_sampler(), num_workers=2)
      for step in job.steps(loader):
          xb, yb, index, loaded_by = step.batch
          assert index.tolist() == step.samples, (step.number, index.tolist(), step.samples)
          assert bool((loaded_by >= 0).all()), "loaded in the main process"
          x[step.samples], y[step.samples] = xb, yb""");
  /** The member started with seed 3 takes 0.2 s longer over each step, before its forward pass. */
  static final String SLOW_THIRD_SCRIPT = SCRIPT.replace("import sys, torch, edl", "import sys, time, torch, edl")
      .replace("    opt.zero_grad()", "    if sys.argv[1] == \"3\":\n        time.sleep(0.2)\n    opt.zero_grad()");
  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @TempDir
  Path out;

  @BeforeAll
  static void torch() throws Exception {
    PythonTorch.assumeInstalled();
  }

  private ScriptJobs jobs;

  @BeforeEach
  void fixture() {
    jobs = new ScriptJobs(ZK, out);
  }



  /**
   * A script member that computes slower than the others is removed as a straggler: each script
   * reports its own computing (up to its last gradient bucket handed to the all-reduce), where the
   * step's whole time is the same on every member, all waiting for the slowest.
   */
  @Test
  void aScriptMemberThatComputesSlowerIsRemovedAsAStraggler() throws Exception {
    List<String> ids;
    try (ElasticJob job = jobs.job(3, Recovery.Mode.CONSISTENT, new org.edl.job.Stragglers(1.5, 3, false))) {
      ids = List.of(ElasticJob.id(job.appId, 1), ElasticJob.id(job.appId, 2), ElasticJob.id(job.appId, 3));
      for (int i = 0; i < ids.size(); i++) {
        job.start(ids.get(i), jobs.script(ids.get(i), i + 1, SLOW_THIRD_SCRIPT));
      }
      assertEquals(Worker.Ending.LEFT, job.outcome(ids.get(2)).ending(), "the slow member was removed");
      for (String id : ids.subList(0, 2)) {
        Worker.Outcome o = job.outcome(id);
        assertEquals(Worker.Ending.FINISHED, o.ending(), id);
        assertEquals(2, o.workers(), id);
      }
      ElasticScalingTest.assertEveryPositionOnce(job, STEPS * 24L);
    }
  }




  /**
   * A DataLoader job through three switches (2 -> 3 -> 2 -> 3): batches prefetched for a ring that
   * changed are dropped, each step trains its own samples once (the script checks every batch), and
   * the members end where one worker alone ends, trained from an in-memory array.
   */
  @Test
  void aDataLoaderJobTrainsEverySampleOnceThroughThreeSwitches() throws Exception {
    double[] expected = jobs.alone();
    List<String> finished;
    try (ElasticJob job = jobs.job(2)) {
      List<String> ids = java.util.stream.IntStream.rangeClosed(1, 4).mapToObj(i -> ElasticJob.id(job.appId, i)).toList();
      job.holdBefore(8);
      job.start(ids.get(0), jobs.script(ids.get(0), 1, LOADER_SCRIPT));
      job.start(ids.get(1), jobs.script(ids.get(1), 2, LOADER_SCRIPT));
      job.awaitTrained(ids.get(0), 7);
      job.start(ids.get(2), jobs.script(ids.get(2), 3, LOADER_SCRIPT));         // 2 -> 3
      job.awaitReady(ids.get(2));
      job.holdBefore(16);
      job.awaitSwitch(ids.get(2), 2);
      job.awaitTrained(ids.get(2), 15);
      SwitchOrder leave = job.leave(ids.get(1));                           // 3 -> 2
      job.holdBefore(24);
      job.awaitSwitch(ids.get(0), leave.getTopologyVersion());
      job.awaitTrained(ids.get(0), 23);
      job.start(ids.get(3), jobs.script(ids.get(3), 4, LOADER_SCRIPT));         // 2 -> 3
      job.awaitReady(ids.get(3));
      job.release();
      job.awaitSwitch(ids.get(3), leave.getTopologyVersion() + 1);
      assertEquals(Worker.Ending.LEFT, job.outcome(ids.get(1)).ending());
      finished = List.of(ids.get(0), ids.get(2), ids.get(3));
      for (String id : finished) {
        assertEquals(Worker.Ending.FINISHED, job.outcome(id).ending(), id);
        assertEquals(3, job.outcome(id).workers(), id);
      }
      ElasticScalingTest.assertEveryPositionOnce(job, STEPS * 24L);
    }
    for (String id : finished) {
      ScriptJobs.assertClose(expected, jobs.params(id), id);
    }
  }

  @Test
  void aNewcomerJoinsAndAMemberLeavesAScriptJobStopFreeEverySampleOnceAndTheyEndWhereOneWorkerAloneEnds() throws Exception {
    double[] expected = jobs.alone();

    String a;
    String b;
    String c;
    try (ElasticJob job = jobs.job(2)) {
      a = ElasticJob.id(job.appId, 1);
      b = ElasticJob.id(job.appId, 2);
      c = ElasticJob.id(job.appId, 3);
      job.holdBefore(10);
      job.start(a, jobs.script(a, 1));
      job.start(b, jobs.script(b, 2));
      job.awaitTrained(a, 9);
      job.start(c, jobs.script(c, 3));
      job.awaitReady(c);
      long ready = job.readyNanos.get(c);
      job.holdBefore(20);
      SwitchRecord joined = job.awaitSwitch(c, 2);
      for (String old : List.of(a, b)) {
        SwitchRecord r = job.awaitSwitch(old, 2);
        assertTrue(r.startNanos() > ready, old + " stopped before the newcomer was ready: its start-up is not part of the stop");
      }
      job.awaitTrained(c, 19);
      // And a scale-in: the newest member leaves at a scheduled step, the others form a smaller group.
      SwitchOrder leave = job.leave(b);
      job.release();
      assertEquals(Worker.Ending.LEFT, job.outcome(b).ending());
      for (String id : List.of(a, c)) {
        Worker.Outcome o = job.outcome(id);
        assertEquals(Worker.Ending.FINISHED, o.ending(), id);
        assertEquals(2, o.workers(), id);
        assertEquals(SwitchRecord.Role.SURVIVOR, job.switchOf(id, leave.getTopologyVersion()).role(), id);
      }
      assertEquals(joined.atStep() + 1, job.outcome(c).firstStep(), "the newcomer trains from the step after the switch");
      ElasticScalingTest.assertEveryPositionOnce(job, STEPS * 24L);
      b = null; // it left: its script's parameters are those of the step it left at
    }
    for (String id : List.of(a, c)) {
      ScriptJobs.assertClose(expected, jobs.params(id), id);
    }
  }
}
