package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.edl.job.JobSpec;
import org.edl.job.Recovery;
import org.edl.job.Script;
import org.edl.testing.ZooKeeperServer;
import org.edl.job.BatchRule;
import org.edl.worker.script.ScriptModel;

/**
 * Script jobs for a test: the job (up to 3 workers, {@link ScriptJobTest#STEPS} steps of 24, a
 * checkpoint every 6), each worker's script in a directory of its own under {@code out} started
 * from its own torch seed, and what the scripts wrote.
 */
final class ScriptJobs {
  private static final AtomicInteger APPS = new AtomicInteger();
  private final ZooKeeperServer zk;
  private final Path out;
  final Map<String, ScriptModel> scripts = new ConcurrentHashMap<>();

  ScriptJobs(ZooKeeperServer zk, Path out) {
    this.zk = zk;
    this.out = out;
  }

  ElasticJob job(int workers) {
    return job(workers, Recovery.Mode.CONSISTENT);
  }

  ElasticJob job(int workers, Recovery.Mode recovery) {
    return job(workers, recovery, org.edl.job.Stragglers.OFF);
  }

  ElasticJob job(int workers, Recovery.Mode recovery, org.edl.job.Stragglers stragglers) {
    String appId = "application_9_" + APPS.incrementAndGet();
    JobSpec spec = JobSpec.builder().stragglers(stragglers.factor(), stragglers.batches(), stragglers.replace())
        .name("script").script(new Script("train.py", List.of(), ScriptJobTest.PYTHON))
        .workers(workers).minWorkers(1).maxWorkers(3).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1)
        .steps(ScriptJobTest.STEPS).batchSize(24).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).seed(3)
        .backend("cpu").output(out.resolve(appId).toUri().toString()).checkpoints(6, 0, 3)
        .recovery(new Recovery(recovery, 5_000, 3)).build();
    return new ElasticJob(zk.connectString(), appId, spec, Duration.ofMillis(5));
  }

  /** {@link ScriptJobTest#SCRIPT} for {@code workerId}, from torch seed {@code seed}. */
  ExecutionContext.Factory script(String workerId, int seed) {
    return script(workerId, seed, ScriptJobTest.SCRIPT);
  }

  ExecutionContext.Factory script(String workerId, int seed, String text) {
    return script(out, scripts, workerId, text, List.of(Integer.toString(seed)));
  }

  /** {@code text} as the script of {@code workerId}, in {@code out/workerId}, with {@code args}. */
  static ExecutionContext.Factory script(Path out, Map<String, ScriptModel> scripts, String workerId, String text,
      List<String> args) {
    return config -> {
      Path dir = Files.createDirectories(out.resolve(workerId));
      Files.writeString(dir.resolve("train.py"), text);
      ScriptModel m = ScriptModel.start(ScriptJobTest.PYTHON, dir.resolve("train.py"), args, dir,
          config.secret(), config.workerId(), config.spec().training(), "gloo", java.util.Map.of());
      scripts.put(workerId, m);
      return new ExecutionContext(m.dataset(), m);
    };
  }

  /** As a container killed with -9 ends: its script and its worker, all at once. */
  void kill(ElasticJob job, String workerId) {
    ProcessHandle.of(scripts.get(workerId).pid()).ifPresent(ProcessHandle::destroyForcibly);
    job.crash(workerId);
  }

  /** The parameters one worker alone ends with. */
  double[] alone() throws Exception {
    String alone;
    try (ElasticJob job = job(1)) {
      alone = ElasticJob.id(job.appId, 1);
      job.start(alone, script(alone, 1));
      assertEquals(Worker.Ending.FINISHED, job.outcome(alone).ending());
    }
    return params(alone); // written once its worker closed it
  }

  static void assertClose(double[] expected, double[] got, String who) {
    assertEquals(expected.length, got.length, who);
    for (int i = 0; i < got.length; i++) {
      assertEquals(expected[i], got[i], 1e-5, who + ": parameter " + i);
    }
  }

  double[] params(String workerId) throws Exception {
    return read(workerId, "params.txt");
  }

  double[] read(String workerId, String file) throws Exception {
    String[] text = Files.readString(out.resolve(workerId).resolve(file)).trim().split(" ");
    double[] v = new double[text.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = Double.parseDouble(text[i]);
    }
    return v;
  }

  /** Three workers trained up to step 14 and a checkpoint exists; one is killed, the others finish. */
  List<String> killOneOfThree(ElasticJob job, String text) throws Exception {
    return loseOneOfThree(job, text, ids -> ids.get(2), victim -> kill(job, victim));
  }

  /** As {@link #killOneOfThree}, the member {@code pick} names lost as {@code lose} does it. */
  List<String> loseOneOfThree(ElasticJob job, String text,
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
}
