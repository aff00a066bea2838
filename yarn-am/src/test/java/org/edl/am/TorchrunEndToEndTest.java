package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.job.JobSpec;
import org.edl.job.Script;
import org.edl.job.rpc.RpcClient;
import org.edl.job.rpc.RpcConnection;
import org.edl.testing.Await;
import org.edl.testing.PythonTorch;
import org.edl.testing.YarnCluster;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobState;
import org.edl.thrift.ScaleMode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An unchanged torchrun script on YARN ({@code edl submit --torchrun}): torch's elastic agent in
 * every worker container, the rendezvous in the AM's. A scale-out and a scale-in each restart
 * every process of the job in a new rendezvous round with the new number of nodes, and the script
 * resumes from its own checkpoint, as under torchrun; so does a lost node, which is replaced.
 */
class TorchrunEndToEndTest {
  /**
   * Written the way torchrun scripts are: the launcher's environment, DDP over gloo with BatchNorm,
   * a DataLoader with a DistributedSampler, a cosine schedule, rank 0's checkpoint loaded by every
   * process at its start. It trains until its stop file appears (so the test decides when), and
   * records each start.
   */
  static final String SCRIPT = """
      import os, sys, time, torch, torch.distributed as dist
      from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
      out = sys.argv[1]
      checkpoint = os.path.join(out, "checkpoint.pt")
      dist.init_process_group("gloo")
      rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
      assert world == dist.get_world_size() and os.environ["LOCAL_RANK"] == "0"
      torch.manual_seed(0)
      model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.BatchNorm1d(16), torch.nn.ReLU(),
                                  torch.nn.Linear(16, 2))
      opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
      sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, 1000)
      epoch = 0
      if os.path.exists(checkpoint):
          state = torch.load(checkpoint)
          model.load_state_dict(state["model"]); opt.load_state_dict(state["opt"])
          sched.load_state_dict(state["sched"]); epoch = state["epoch"]
      if rank == 0:
          with open(os.path.join(out, "starts.txt"), "a") as f:
              f.write(f"{world} {epoch} {os.environ['TORCHELASTIC_RESTART_COUNT']}\\n")
      ddp = torch.nn.parallel.DistributedDataParallel(model)
      g = torch.Generator().manual_seed(1)
      x = torch.randn(128, 8, generator=g)
      data = TensorDataset(x, (x[:, 0] > 0).long())
      while not os.path.exists(os.path.join(out, "stop")):
          sampler = DistributedSampler(data, seed=0)
          sampler.set_epoch(epoch)
          for xb, yb in DataLoader(data, batch_size=16, sampler=sampler, num_workers=1):
              opt.zero_grad()
              torch.nn.functional.cross_entropy(ddp(xb), yb).backward()
              opt.step()
          sched.step()
          epoch += 1
          if rank == 0:
              torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                          "epoch": epoch}, checkpoint + ".tmp")
              os.replace(checkpoint + ".tmp", checkpoint)
              with open(os.path.join(out, "epoch.tmp"), "w") as f:
                  f.write(str(epoch))
              os.replace(os.path.join(out, "epoch.tmp"), os.path.join(out, "epoch.txt"))
          time.sleep(0.2)
      dist.barrier()
      dist.destroy_process_group()
      """;

  @RegisterExtension
  static final YarnCluster CLUSTER = new YarnCluster();

  @TempDir
  Path dir;

  @BeforeAll
  static void torch() throws Exception {
    PythonTorch.assumeInstalled();
  }

  @Test
  void aTorchrunScriptRestartsInANewRoundAtAScaleOutAndAScaleInAndResumesFromItsCheckpoint() throws Exception {
    Path script = dir.resolve("train.py");
    Files.writeString(script, SCRIPT);
    Path out = Files.createDirectories(dir.resolve("out"));
    JobSpec spec = JobSpec.builder().name("torchrun-e2e")
        .script(new Script(script.toString(), List.of(out.toString()), PythonTorch.PYTHON).asTorchrun())
        .workers(2).minWorkers(1).maxWorkers(3).gpusPerWorker(1).workerMemoryMb(512).workerVcores(1)
        .steps(200).batchSize(64).batchRule(org.edl.job.BatchRule.FIXED_GLOBAL).learningRate(0.1).backend("cpu")
        .build().validate();
    SubmittedJob job = new JobSubmitter(CLUSTER.configuration(), CLUSTER.yarn()).submit(spec);
    ApplicationReport running = Await.until("the AM to register", () -> CLUSTER.yarn().getApplicationReport(job.appId()),
        r -> r.getYarnApplicationState() == YarnApplicationState.RUNNING && r.getRpcPort() > 0
            || r.getYarnApplicationState() == YarnApplicationState.FAILED);
    assertEquals(YarnApplicationState.RUNNING, running.getYarnApplicationState(), running.getDiagnostics());
    try (RpcConnection connection = RpcClient.open(running.getHost(), running.getRpcPort(), job.secret(),
        Duration.ofSeconds(30))) {
      JobControl.Client am = new JobControl.Client(connection.protocol());
      Await.until("a round of two", am::status, s -> s.getState() == JobState.RUNNING && s.isSetProgress()
          && s.getProgress().getWorkers() == 2);
      Await.until("an epoch trained by two", () -> epochOf(out), e -> e >= 2);
      am.scaleOut(1, ScaleMode.EDL);
      Await.until("a round of three, the scale-out landed", am::status,
          s -> s.getState() == JobState.RUNNING && s.getProgress().getWorkers() == 3);
      long atThree = epochOf(out);
      Await.until("an epoch trained by three", () -> epochOf(out), e -> e >= atThree + 2);
      am.scaleIn(1, List.of(), ScaleMode.EDL);
      Await.until("a round of two again, the scale-in landed", am::status,
          s -> s.getState() == JobState.RUNNING && s.getProgress().getWorkers() == 2 && s.getContainersSize() == 2);
      long atTwo = epochOf(out);
      Await.until("an epoch trained by two again", () -> epochOf(out), e -> e >= atTwo + 2);

      // A node lost as torchrun loses one: its agent killed. YARN's container ends with it, the
      // fleet counts a failure and starts a replacement, and a new round of two trains on.
      long roundBefore = am.status().getProgress().getTopologyVersion();
      ProcessHandle agent = ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("")
          .contains("edl_torchrun.py agent") && p.info().commandLine().orElse("").contains(job.appId().toString()))
          .findFirst().orElseThrow(() -> new AssertionError("no agent process of " + job.appId()));
      agent.destroyForcibly();
      Await.until("a round of two with a replacement", am::status, s -> s.getState() == JobState.RUNNING
          && s.getProgress().getTopologyVersion() > roundBefore && s.getProgress().getWorkers() == 2
          && s.getDiagnostics().contains("1 of " + spec.recovery().maxWorkerFailures() + " allowed"));
      long afterLoss = epochOf(out);
      Await.until("an epoch trained after the loss", () -> epochOf(out), e -> e >= afterLoss + 2);
      Files.createFile(out.resolve("stop"));
    } catch (Throwable t) {
      t.addSuppressed(new AssertionError("application diagnostics: " + CLUSTER.awaitEnd(job.appId()).getDiagnostics()));
      throw t;
    }
    ApplicationReport end = CLUSTER.awaitEnd(job.appId());
    assertEquals(FinalApplicationStatus.SUCCEEDED, end.getFinalApplicationStatus(), end.getDiagnostics());
    assertTrue(end.getDiagnostics().contains("rendezvous round"), end.getDiagnostics());
    assertTrue(end.getDiagnostics().contains("worker failures: 1 of " + spec.recovery().maxWorkerFailures()),
        "the killed agent, counted once: "
        + end.getDiagnostics());

    // Rank 0's starts: "world epoch restarts". Two, then three and two again, each resuming.
    List<long[]> starts = Files.readAllLines(out.resolve("starts.txt")).stream()
        .map(l -> java.util.Arrays.stream(l.trim().split(" ")).mapToLong(Long::parseLong).toArray()).toList();
    assertTrue(starts.size() >= 3, "starts: " + describe(starts));
    assertEquals(2, starts.get(0)[0], describe(starts));
    assertEquals(0, starts.get(0)[1], "the first start found no checkpoint: " + describe(starts));
    int atThree = java.util.stream.IntStream.range(0, starts.size()).filter(i -> starts.get(i)[0] == 3).findFirst()
        .orElseThrow(() -> new AssertionError("no start with three: " + describe(starts)));
    long[] three = starts.get(atThree);
    // A node that joins restarts the processes without counting a restart; a lost one counts one.
    assertTrue(three[1] >= 2, "three resumed from the checkpoint: " + describe(starts));
    int lastThree = java.util.stream.IntStream.range(0, starts.size()).filter(i -> starts.get(i)[0] == 3).max()
        .getAsInt();
    List<long[]> afterThree = starts.subList(lastThree + 1, starts.size());
    assertTrue(afterThree.size() >= 2 && afterThree.stream().allMatch(s -> s[0] == 2),
        "rounds of two at the scale-in and after the lost node: " + describe(starts));
    long[] scaledIn = afterThree.get(0);
    assertTrue(scaledIn[1] >= three[1] + 2, "two resumed after three trained: " + describe(starts));
    // Both processes left at the scale-in had lost a node; after the killed agent, rank 0 may be
    // the replacement's process, whose agent has never restarted.
    assertTrue(scaledIn[2] >= 1, "the processes that lost a node restarted: " + describe(starts));
    long[] last = afterThree.get(afterThree.size() - 1);
    assertTrue(last[1] >= scaledIn[1] + 2, "the replacement's round resumed after two trained: " + describe(starts));
  }

  /** The epochs rank 0 has checkpointed, as it says in epoch.txt. */
  private static long epochOf(Path out) throws java.io.IOException {
    Path epoch = out.resolve("epoch.txt");
    return Files.exists(epoch) ? Long.parseLong(Files.readString(epoch).trim()) : 0;
  }

  private static String describe(List<long[]> starts) {
    return starts.stream().map(java.util.Arrays::toString).toList().toString();
  }
}
