package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
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
 * Two processes of the script per worker ({@code --procs-per-worker 2}): two workers form one group
 * of four, a third worker joins with its two (six), and every process ends with the parameters one
 * process alone ends with on the same global batches; torchrun's variables say who is who.
 */
class ScriptProcessesJobTest {
  /** {@link ScriptJobTest#SCRIPT}, each process writing its parameters and its variables under its local rank. */
  private static final String SCRIPT = ScriptJobTest.SCRIPT.replace("import sys, torch, edl", "import os, sys, torch, edl")
      .replace("    step.done(loss.item())", """
              step.done(loss.item())
              if step.number == 0:
                  with open("first-env-%s.txt" % os.environ["LOCAL_RANK"], "w") as f:
                      f.write(" ".join(os.environ[k] for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK")))
          with open("env-%s.txt" % os.environ["LOCAL_RANK"], "w") as f:
              f.write(" ".join(os.environ[k] for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK")))""")
      .replace("open(\"params.txt\", \"w\")", "open(\"params-%s.txt\" % os.environ[\"LOCAL_RANK\"], \"w\")");
  private static final int PROCS = 2;
  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @TempDir
  Path out;

  @BeforeAll
  static void torch() throws Exception {
    PythonTorch.assumeInstalled();
  }

  private ElasticJob job(String appId, int workers) {
    JobSpec spec = JobSpec.builder().name("procs").script(new Script("train.py", List.of(), ScriptJobTest.PYTHON, PROCS))
        .workers(workers).minWorkers(1).maxWorkers(3).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1)
        .steps(ScriptJobTest.STEPS).batchSize(24).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).seed(3)
        .backend("cpu").output(out.resolve(appId).toUri().toString()).build();
    return new ElasticJob(ZK.connectString(), appId, spec, Duration.ofMillis(5));
  }

  /** {@code n} processes of {@link #SCRIPT} for {@code workerId}, in its directory, from torch seed {@code seed}. */
  private ExecutionContext.Factory processes(String workerId, int seed, int n) {
    return config -> {
      Path dir = Files.createDirectories(out.resolve(workerId));
      Files.writeString(dir.resolve("train.py"), SCRIPT);
      return ExecutionContext.scripts(n, i -> ScriptModel.start(ScriptJobTest.PYTHON, dir.resolve("train.py"),
          List.of(Integer.toString(seed)), dir, config.secret(), config.workerId(), config.spec().training(), "gloo",
          Map.of(), new ScriptModel.Local(i, n, -1)));
    };
  }

  @Test
  void twoProcessesPerWorkerFormOneGroupOfFourThenSixAndEndWhereOneProcessAloneEnds() throws Exception {
    String alone = ElasticJob.id("application_12_1", 1);
    try (ElasticJob job = job("application_12_1", 1)) {
      job.start(alone, processes(alone, 1, 1));
      assertEquals(Worker.Ending.FINISHED, job.outcome(alone).ending());
    }
    double[] expected = read(out.resolve(alone).resolve("params-0.txt"));

    List<String> ids;
    try (ElasticJob job = job("application_12_2", 2)) {
      ids = List.of(ElasticJob.id(job.appId, 1), ElasticJob.id(job.appId, 2), ElasticJob.id(job.appId, 3));
      job.holdBefore(10);
      job.start(ids.get(0), processes(ids.get(0), 1, PROCS));
      job.start(ids.get(1), processes(ids.get(1), 2, PROCS));
      job.awaitTrained(ids.get(0), 9);
      job.start(ids.get(2), processes(ids.get(2), 3, PROCS));
      job.awaitReady(ids.get(2));
      job.release();
      for (String id : ids) {
        Worker.Outcome o = job.outcome(id);
        assertEquals(Worker.Ending.FINISHED, o.ending(), id);
        assertEquals(3, o.workers(), id);
      }
      ElasticScalingTest.assertEveryPositionOnce(job, ScriptJobTest.STEPS * 24L);
    }

    Set<String> first = new TreeSet<>();
    Set<String> last = new TreeSet<>();
    for (String id : ids) {
      for (int local = 0; local < PROCS; local++) {
        Path dir = out.resolve(id);
        if (!id.equals(ids.get(2))) {
          first.add(Files.readString(dir.resolve("first-env-" + local + ".txt")));
        }
        last.add(Files.readString(dir.resolve("env-" + local + ".txt")));
        double[] got = read(dir.resolve("params-" + local + ".txt"));
        assertEquals(expected.length, got.length);
        for (int i = 0; i < got.length; i++) {
          assertEquals(expected[i], got[i], 1e-5, id + " process " + local + ": parameter " + i);
        }
      }
    }
    // RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE GROUP_RANK: workers in ring order, processes within.
    assertEquals(Set.of("0 4 0 2 0", "1 4 1 2 0", "2 4 0 2 1", "3 4 1 2 1"), first, "the first group of four");
    assertEquals(6, last.size(), "six processes in the last group: " + last);
    assertEquals(Set.of("6"), last.stream().map(s -> s.split(" ")[1]).collect(java.util.stream.Collectors.toSet()));
  }

  private static double[] read(Path file) throws Exception {
    String[] text = Files.readString(file).trim().split(" ");
    double[] v = new double[text.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = Double.parseDouble(text[i]);
    }
    return v;
  }
}
