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
import org.edl.thrift.BatchRule;
import org.edl.thrift.SwitchOrder;
import org.edl.worker.script.ScriptModel;
import org.junit.jupiter.api.BeforeAll;
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
  private static final AtomicInteger APPS = new AtomicInteger();
  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @TempDir
  Path out;

  @BeforeAll
  static void torch() throws Exception {
    PythonTorch.assumeInstalled();
  }

  private final Map<String, ScriptModel> scripts = new ConcurrentHashMap<>();

  private ElasticJob job(int workers) {
    return job(workers, Recovery.Mode.CONSISTENT);
  }

  private ElasticJob job(int workers, Recovery.Mode recovery) {
    return job(workers, recovery, org.edl.job.Stragglers.OFF);
  }

  private ElasticJob job(int workers, Recovery.Mode recovery, org.edl.job.Stragglers stragglers) {
    String appId = "application_9_" + APPS.incrementAndGet();
    JobSpec spec = JobSpec.builder().stragglers(stragglers.factor(), stragglers.batches(), stragglers.replace()).name("script").script(new Script("train.py", List.of(), PYTHON))
        .workers(workers).minWorkers(1).maxWorkers(3).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1)
        .steps(STEPS).batchSize(24).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).seed(3)
        .backend("cpu").output(out.resolve(appId).toUri().toString()).checkpoints(6, 0, 3)
        .recovery(new Recovery(recovery, 5_000, 3)).build();
    return new ElasticJob(ZK.connectString(), appId, spec, Duration.ofMillis(5));
  }

  /** Each worker's script in a directory of its own, started from its own torch seed. */
  private ExecutionContext.Factory script(String workerId, int seed) {
    return script(workerId, seed, SCRIPT);
  }

  private ExecutionContext.Factory script(String workerId, int seed, String text) {
    return script(out, scripts, workerId, text, List.of(Integer.toString(seed)));
  }

  /** {@code text} as the script of {@code workerId}, in {@code out/workerId}, with {@code args}. */
  static ExecutionContext.Factory script(Path out, Map<String, ScriptModel> scripts, String workerId, String text,
      List<String> args) {
    return config -> {
      Path dir = Files.createDirectories(out.resolve(workerId));
      Files.writeString(dir.resolve("train.py"), text);
      ScriptModel m = ScriptModel.start(PYTHON, dir.resolve("train.py"), args, dir,
          config.secret(), config.workerId(), config.spec().training(), "gloo", java.util.Map.of());
      scripts.put(workerId, m);
      return new ExecutionContext(m.dataset(), m);
    };
  }

  /** As a container killed with -9 ends: its script and its worker, all at once. */
  private void kill(ElasticJob job, String workerId) {
    ProcessHandle.of(scripts.get(workerId).pid()).ifPresent(ProcessHandle::destroyForcibly);
    job.crash(workerId);
  }

  private double[] alone() throws Exception {
    String alone;
    try (ElasticJob job = job(1)) {
      alone = ElasticJob.id(job.appId, 1);
      job.start(alone, script(alone, 1));
      assertEquals(Worker.Ending.FINISHED, job.outcome(alone).ending());
    }
    return params(alone); // written once its worker closed it
  }

  private static void assertClose(double[] expected, double[] got, String who) {
    assertEquals(expected.length, got.length, who);
    for (int i = 0; i < got.length; i++) {
      assertEquals(expected[i], got[i], 1e-5, who + ": parameter " + i);
    }
  }

  /** Three workers trained up to step 14 and a checkpoint exists; one is killed, the others finish. */
  private List<String> killOneOfThree(ElasticJob job) throws Exception {
    return killOneOfThree(job, SCRIPT);
  }

  private List<String> killOneOfThree(ElasticJob job, String text) throws Exception {
    return loseOneOfThree(job, text, ids -> ids.get(2), victim -> kill(job, victim));
  }

  /** As {@link #killOneOfThree}, the member {@code pick} names lost as {@code lose} does it. */
  private List<String> loseOneOfThree(ElasticJob job, String text,
      java.util.function.Function<List<String>, String> pick, java.util.function.Consumer<String> lose)
      throws Exception {
    List<String> ids = List.of(ElasticJob.id(job.appId, 1), ElasticJob.id(job.appId, 2), ElasticJob.id(job.appId, 3));
    job.holdBefore(15);
    for (int i = 0; i < ids.size(); i++) {
      job.start(ids.get(i), script(ids.get(i), i + 1, text));
    }
    job.awaitCheckpoints(1);
    for (String id : ids) {
      job.awaitTrained(id, 14);
    }
    String victim = pick.apply(ids);
    lose.accept(victim);
    job.release();
    List<String> survivors = ids.stream().filter(id -> !id.equals(victim)).toList();
    for (String id : survivors) {
      Worker.Outcome o = job.outcome(id);
      assertEquals(Worker.Ending.FINISHED, o.ending(), id);
      assertEquals(2, o.workers(), id);
      assertEquals(1, job.recoveries.get(id).size(), id + " recovered once");
      assertEquals(List.of(victim), job.recoveries.get(id).get(0).failed(), id + ": one failure, the victim's");
    }
    return survivors;
  }

  /** Consistent recovery loads the checkpoint into the scripts and ends where one worker alone does. */
  @Test
  void aScriptMemberKilledMidJobIsRecoveredConsistentlyFromTheCheckpoint() throws Exception {
    double[] expected = alone();
    List<String> survivors;
    try (ElasticJob job = job(3, Recovery.Mode.CONSISTENT)) {
      survivors = killOneOfThree(job);
      assertEquals("consistent", job.recoveries.get(survivors.get(0)).get(0).mode());
    }
    for (String id : survivors) {
      assertClose(expected, params(id), id);
    }
  }

  /** Approximate recovery: the survivors drop the step in flight, form a new group and go on, identical. */
  @Test
  void aScriptMemberKilledMidJobIsRecoveredApproximatelyByTheSurvivors() throws Exception {
    List<String> survivors;
    try (ElasticJob job = job(3, Recovery.Mode.APPROXIMATE)) {
      survivors = killOneOfThree(job);
      assertEquals("approximate", job.recoveries.get(survivors.get(0)).get(0).mode());
    }
    assertClose(params(survivors.get(0)), params(survivors.get(1)), survivors.get(1));
  }

  /**
   * A script member that computes slower than the others is removed as a straggler: each script
   * reports its own computing (up to its last gradient bucket handed to the all-reduce), where the
   * step's whole time is the same on every member, all waiting for the slowest.
   */
  @Test
  void aScriptMemberThatComputesSlowerIsRemovedAsAStraggler() throws Exception {
    List<String> ids;
    try (ElasticJob job = job(3, Recovery.Mode.CONSISTENT, new org.edl.job.Stragglers(1.5, 3, false))) {
      ids = List.of(ElasticJob.id(job.appId, 1), ElasticJob.id(job.appId, 2), ElasticJob.id(job.appId, 3));
      for (int i = 0; i < ids.size(); i++) {
        job.start(ids.get(i), script(ids.get(i), i + 1, SLOW_THIRD_SCRIPT));
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
   * The leader's script paused (SIGSTOP) between two steps: its worker ends it once it has given no
   * sign of life for 5 s and fails; the others, whose group then breaks, recover without it and
   * count one failure, instead of waiting in their all-reduce for the group's 60 s timeout.
   */
  @Test
  void aLeaderWhoseScriptIsPausedIsEndedByItsWorkerAndTheOthersRecoverWithoutIt() throws Exception {
    try (ElasticJob job = job(3, Recovery.Mode.APPROXIMATE)) {
      AtomicReference<String> paused = new AtomicReference<>();
      loseOneOfThree(job, SCRIPT, ids -> ids.stream().filter(id -> job.worker(id).isLeading()).findFirst()
          .orElseThrow(), victim -> {
        paused.set(victim);
        try {
          assertEquals(0, new ProcessBuilder("kill", "-STOP", Long.toString(scripts.get(victim).pid())).start()
              .waitFor());
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      String victim = paused.get();
      java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
          java.util.concurrent.ExecutionException.class, () -> job.outcome(victim));
      assertTrue(e.getCause().getMessage().contains("the script gave no sign of life for 5 s"), e.getCause().toString());
    }
  }

  /**
   * A BatchNorm model, a member killed between two steps: the survivors' next forward pass has no
   * collective to fail in (the buffers go to every member in step.backward), so they drop the step
   * there and recover once, with one failure, and end with the same parameters and buffers.
   */
  @Test
  void aMemberKilledBeforeTheOthersBatchNormForwardCostsOneFailureAndTheyEndIdentical() throws Exception {
    List<String> survivors;
    try (ElasticJob job = job(3, Recovery.Mode.CONSISTENT)) {
      survivors = killOneOfThree(job, BATCH_NORM_SCRIPT);
    }
    assertClose(params(survivors.get(0)), params(survivors.get(1)), survivors.get(1));
    assertClose(read(survivors.get(0), "buffers.txt"), read(survivors.get(1), "buffers.txt"),
        survivors.get(1) + "'s running statistics");
  }

  private double[] params(String workerId) throws Exception {
    return read(workerId, "params.txt");
  }

  private double[] read(String workerId, String file) throws Exception {
    String[] text = Files.readString(out.resolve(workerId).resolve(file)).trim().split(" ");
    double[] v = new double[text.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = Double.parseDouble(text[i]);
    }
    return v;
  }

  /**
   * A DataLoader job through three switches (2 -> 3 -> 2 -> 3): batches prefetched for a ring that
   * changed are dropped, each step trains its own samples once (the script checks every batch), and
   * the members end where one worker alone ends, trained from an in-memory array.
   */
  @Test
  void aDataLoaderJobTrainsEverySampleOnceThroughThreeSwitches() throws Exception {
    double[] expected = alone();
    List<String> finished;
    try (ElasticJob job = job(2)) {
      List<String> ids = java.util.stream.IntStream.rangeClosed(1, 4).mapToObj(i -> ElasticJob.id(job.appId, i)).toList();
      job.holdBefore(8);
      job.start(ids.get(0), script(ids.get(0), 1, LOADER_SCRIPT));
      job.start(ids.get(1), script(ids.get(1), 2, LOADER_SCRIPT));
      job.awaitTrained(ids.get(0), 7);
      job.start(ids.get(2), script(ids.get(2), 3, LOADER_SCRIPT));         // 2 -> 3
      job.awaitReady(ids.get(2));
      job.holdBefore(16);
      job.awaitSwitch(ids.get(2), 2);
      job.awaitTrained(ids.get(2), 15);
      SwitchOrder leave = job.leave(ids.get(1));                           // 3 -> 2
      job.holdBefore(24);
      job.awaitSwitch(ids.get(0), leave.getTopologyVersion());
      job.awaitTrained(ids.get(0), 23);
      job.start(ids.get(3), script(ids.get(3), 4, LOADER_SCRIPT));         // 2 -> 3
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
      assertClose(expected, params(id), id);
    }
  }

  @Test
  void aNewcomerJoinsAndAMemberLeavesAScriptJobStopFreeEverySampleOnceAndTheyEndWhereOneWorkerAloneEnds() throws Exception {
    double[] expected = alone();

    String a;
    String b;
    String c;
    try (ElasticJob job = job(2)) {
      a = ElasticJob.id(job.appId, 1);
      b = ElasticJob.id(job.appId, 2);
      c = ElasticJob.id(job.appId, 3);
      job.holdBefore(10);
      job.start(a, script(a, 1));
      job.start(b, script(b, 2));
      job.awaitTrained(a, 9);
      job.start(c, script(c, 3));
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
      assertClose(expected, params(id), id);
    }
  }
}
