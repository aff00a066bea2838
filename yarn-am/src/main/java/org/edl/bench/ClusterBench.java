package org.edl.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.client.JobControlConnection;
import org.edl.client.JobControlLocator;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.cluster.EmbeddedCluster;
import org.edl.cluster.EmbeddedClusterBuilder;
import org.edl.cluster.FairSchedulerAllocationFile;
import org.edl.job.Growth;
import org.edl.job.JobSpec;
import org.edl.job.BatchRule;
import org.edl.thrift.JobStatus;
import org.edl.job.ScaleMode;

/**
 * {@code edl bench cluster}, the live half (the EDL paper's Figure 11): the jobs of a
 * {@link ClusterPlan} submitted to a fresh embedded cluster (2 nodes x 4 GPUs) whose
 * {@code root.users} is in the Elastic-Tiresias mode, one run per strategy. Static: every job
 * holds exactly its requested GPUs and later jobs wait. Elastic: a job asks for its request, may start
 * on half of it, grows stop-free into idle GPUs up to twice it while its profile says that pays, and
 * gives extras back when the RM's targets say so.
 * Each job's workers and step are read from its AM every second.
 *
 * <p>Every job uses {@code --emulated-sync profile}: two cores cannot all-reduce the real gradients
 * of eight members at the profiles' pace, so each step waits the profile's sync time instead.
 */
public final class ClusterBench {
  private static final Duration POLL = Duration.ofSeconds(1);

  /** The strategies compared, in the order they run. */
  public enum Strategy {
    STATIC("static"), ELASTIC("elastic");

    final String csv;

    Strategy(String csv) {
      this.csv = csv;
    }

    public String csv() {
      return csv;
    }

    public static Strategy of(String text) {
      for (Strategy s : values()) {
        if (s.csv.equals(text)) {
          return s;
        }
      }
      throw new org.edl.job.InvalidInputException("strategy", text, "expected static or elastic");
    }
  }

  /** How a job of the plan went: RM times (wall-clock ms) and when the AM first reported a step. */
  public record JobRun(int index, String model, String appId, long submitMs, long firstStepMs, long finishMs,
      String finalStatus) {
    double jctS() {
      return (finishMs - submitMs) / 1000.0;
    }
  }

  /** One reading of a running job. */
  public record Sample(long timeMs, int index, int workers, long step) {}

  /** One strategy's live run. */
  public record Run(Strategy strategy, long startMs, List<JobRun> jobs, List<Sample> samples) {}

  private final ClusterPlan plan;
  private final long holdOffMs;
  private final Duration timeout;
  private final PrintWriter out;

  public ClusterBench(ClusterPlan plan, long holdOffMs, Duration timeout, PrintWriter out) {
    this.plan = plan;
    this.holdOffMs = holdOffMs;
    this.timeout = timeout;
    this.out = out;
  }

  public Run run(Strategy strategy) throws Exception {
    EmbeddedClusterBuilder cluster = EmbeddedCluster.builder()
        .schedulingMode(FairSchedulerAllocationFile.Mode.ELASTIC_TIRESIAS);
    return BenchJob.onEmbeddedCluster(cluster, "synthetic:samples=64,features=2,classes=2,seed=1", "unused.libsvm",
        out, (conf, yarn, zk, data) -> drive(conf, yarn, strategy));
  }

  private Run drive(Configuration conf, YarnClient yarn, Strategy strategy) throws Exception {
    String tag = "[" + strategy.csv() + "]";
    List<ClusterPlan.PlannedJob> jobs = plan.jobs();
    SubmittedJob[] submitted = new SubmittedJob[jobs.size()];
    long[] firstStep = new long[jobs.size()];
    JobRun[] done = new JobRun[jobs.size()];
    Map<Integer, JobControlConnection> connections = new HashMap<>();
    List<Sample> samples = new ArrayList<>();
    long start = System.currentTimeMillis();
    long deadline = start + timeout.toMillis();
    int next = 0;
    int finished = 0;
    try {
      while (finished < jobs.size()) {
        long now = System.currentTimeMillis();
        if (now > deadline) {
          throw new IllegalStateException(tag + " " + (jobs.size() - finished) + " job(s) still running after "
              + timeout.toMinutes() + " min");
        }
        while (next < jobs.size() && start + jobs.get(next).submitOffsetMs() <= now) {
          ClusterPlan.PlannedJob j = jobs.get(next);
          submitted[next] = new JobSubmitter(conf, yarn).submit(spec(j, strategy));
          say(String.format(Locale.ROOT, "%s t=%4.0f s submitted job %d (%s, %d steps of %d) as %s", tag,
              (now - start) / 1000.0, j.index(), j.model(), j.steps(), j.globalBatch(), submitted[next].appId()));
          next++;
        }
        for (int i = 0; i < next; i++) {
          if (done[i] != null) {
            continue;
          }
          ApplicationReport r = yarn.getApplicationReport(submitted[i].appId());
          YarnApplicationState state = r.getYarnApplicationState();
          if (state == YarnApplicationState.FINISHED || state == YarnApplicationState.FAILED
              || state == YarnApplicationState.KILLED) {
            closeQuietly(connections.remove(i));
            done[i] = new JobRun(i, jobs.get(i).model(), r.getApplicationId().toString(), r.getStartTime(),
                firstStep[i], r.getFinishTime(), r.getFinalApplicationStatus().toString());
            finished++;
            say(String.format(Locale.ROOT, "%s t=%4.0f s job %d %s after %.0f s%s", tag, (now - start) / 1000.0, i,
                done[i].finalStatus(), done[i].jctS(), "SUCCEEDED".equals(done[i].finalStatus()) ? ""
                    : ": " + r.getDiagnostics()));
            continue;
          }
          Sample s = sample(conf, yarn, connections, i, r, now);
          if (s != null) {
            samples.add(s);
            if (firstStep[i] == 0 && s.step() > 0) {
              firstStep[i] = s.timeMs();
            }
          }
        }
        Thread.sleep(Math.max(0, now + POLL.toMillis() - System.currentTimeMillis()));
      }
    } finally {
      connections.values().forEach(ClusterBench::closeQuietly);
      for (int i = 0; i < next; i++) {
        if (done[i] == null) {
          yarn.killApplication(submitted[i].appId());
        }
      }
    }
    return new Run(strategy, start, List.of(done), samples);
  }

  private static Sample sample(Configuration conf, YarnClient yarn, Map<Integer, JobControlConnection> connections,
      int i, ApplicationReport r, long now) {
    if (r.getYarnApplicationState() != YarnApplicationState.RUNNING || r.getRpcPort() <= 0) {
      return new Sample(now, i, 0, 0);
    }
    try {
      JobControlConnection c = connections.get(i);
      if (c == null) {
        c = new JobControlLocator(conf, yarn).connect(r.getApplicationId().toString(), BenchJob.RPC_TIMEOUT);
        connections.put(i, c);
      }
      JobStatus s = c.control().status();
      return s.isSetProgress() ? new Sample(now, i, s.getProgress().getWorkers(), s.getProgress().getStep())
          : new Sample(now, i, 0, 0);
    } catch (Exception e) {
      // The AM is ending or not yet listening; the next round tries again.
      closeQuietly(connections.remove(i));
      return null;
    }
  }

  private JobSpec spec(ClusterPlan.PlannedJob j, Strategy strategy) {
    int gpus = plan.gpus();
    boolean elastic = strategy == Strategy.ELASTIC;
    return JobSpec.builder().name(j.name()).model(j.model())
        .data("synthetic:samples=65536,features=2,classes=2,seed=1").format("auto")
        .workers(gpus).minWorkers(elastic ? (gpus + 1) / 2 : gpus).maxWorkers(elastic ? 2 * gpus : gpus)
        .growth(elastic ? new Growth(true, 0, holdOffMs, ScaleMode.EDL) : Growth.OFF)
        .gpusPerWorker(1).workerMemoryMb(1024).workerVcores(1)
        .steps(j.steps()).batchSize(j.globalBatch()).batchRule(BatchRule.FIXED_GLOBAL)
        .learningRate(0.1).hidden(1).seed(1).backend("emulated").profileSync(true)
        .checkpoints(0, 0, 1).build();
  }

  private static void closeQuietly(JobControlConnection c) {
    if (c != null) {
      try {
        c.close();
      } catch (Exception ignored) {
        // Closing a connection to an AM that has gone.
      }
    }
  }

  private void say(String line) {
    out.println(line);
    out.flush();
  }

  /** One line for the console: how many of the run's jobs succeeded. */
  public static String summary(Run run) {
    long ok = run.jobs().stream().filter(j -> "SUCCEEDED".equals(j.finalStatus())).count();
    return String.format(Locale.ROOT, "[%s] %d of %d jobs succeeded", run.strategy().csv(), ok, run.jobs().size());
  }

  static final String JOBS_HEADER = "strategy,job,model,application,submit_ms,first_step_ms,finish_ms,final_status";
  static final String SAMPLES_HEADER = "strategy,time_ms,job,workers,step";

  /** The live runs' raw readings, so that {@code --replot} can redo the analysis and the simulation. */
  public static void writeRuns(List<Run> runs, java.nio.file.Path jobsCsv, java.nio.file.Path samplesCsv)
      throws IOException {
    List<List<Object>> jobs = new ArrayList<>();
    List<List<Object>> samples = new ArrayList<>();
    for (Run r : runs) {
      for (JobRun j : r.jobs()) {
        jobs.add(List.of(r.strategy().csv(), j.index(), j.model(), j.appId(), j.submitMs(), j.firstStepMs(),
            j.finishMs(), j.finalStatus()));
      }
      for (Sample s : r.samples()) {
        samples.add(List.of(r.strategy().csv(), s.timeMs(), s.index(), s.workers(), s.step()));
      }
    }
    BenchCsv.write(jobsCsv, JOBS_HEADER, jobs);
    BenchCsv.write(samplesCsv, SAMPLES_HEADER, samples);
  }

  /** Reads what {@link #writeRuns} wrote; an error names the file, line, field and value. */
  public static List<Run> readRuns(java.nio.file.Path jobsCsv, java.nio.file.Path samplesCsv) throws IOException {
    Map<Strategy, List<JobRun>> jobs = new java.util.EnumMap<>(Strategy.class);
    Map<Strategy, List<Sample>> samples = new java.util.EnumMap<>(Strategy.class);
    String source = jobsCsv.toString();
    for (BenchCsv.Row row : rows(jobsCsv, JOBS_HEADER)) {
      Strategy s = strategyOf(source, row);
      jobs.computeIfAbsent(s, k -> new ArrayList<>()).add(new JobRun((int) BenchCsv.whole(source, row, 1, "job"),
          row.get(2), row.get(3), BenchCsv.whole(source, row, 4, "submit_ms"),
          BenchCsv.whole(source, row, 5, "first_step_ms"), BenchCsv.whole(source, row, 6, "finish_ms"), row.get(7)));
    }
    source = samplesCsv.toString();
    for (BenchCsv.Row row : rows(samplesCsv, SAMPLES_HEADER)) {
      samples.computeIfAbsent(strategyOf(source, row), k -> new ArrayList<>()).add(new Sample(
          BenchCsv.whole(source, row, 1, "time_ms"), (int) BenchCsv.whole(source, row, 2, "job"),
          (int) BenchCsv.whole(source, row, 3, "workers"), BenchCsv.whole(source, row, 4, "step")));
    }
    List<Run> runs = new ArrayList<>();
    jobs.forEach((s, js) -> runs.add(new Run(s, js.stream().mapToLong(JobRun::submitMs).min().orElse(0), js,
        samples.getOrDefault(s, List.of()))));
    return runs;
  }

  private static List<BenchCsv.Row> rows(java.nio.file.Path csv, String header) throws IOException {
    List<BenchCsv.Row> rows = BenchCsv.read(csv);
    if (rows.isEmpty() || !String.join(",", rows.get(0).fields()).equals(header)) {
      throw BenchCsv.bad(csv.toString(), rows.isEmpty() ? new BenchCsv.Row(1, List.of()) : rows.get(0), "header",
          rows.isEmpty() ? "" : String.join(",", rows.get(0).fields()), "expected " + header);
    }
    return rows.subList(1, rows.size());
  }

  private static Strategy strategyOf(String source, BenchCsv.Row row) throws IOException {
    try {
      return Strategy.of(row.get(0));
    } catch (org.edl.job.InvalidInputException e) {
      throw BenchCsv.bad(source, row, "strategy", row.get(0), "expected static or elastic");
    }
  }
}
