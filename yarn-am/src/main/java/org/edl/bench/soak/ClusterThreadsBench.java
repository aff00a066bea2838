package org.edl.bench.soak;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.edl.bench.BenchJob;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSpec;
import org.edl.job.BatchRule;

/**
 * {@code edl bench cluster-threads}: small jobs, one after the other, on the embedded cluster,
 * and after each the cluster JVM's threads counted by pool ({@link ThreadCensus}): which pools
 * grow with the number of finished jobs, where they level off, and whether any of it is EDL's.
 */
public final class ClusterThreadsBench {
  static final String DATA_SPEC = "synthetic:samples=512,features=16,classes=4,seed=5";
  /** Log aggregation and the AM launcher's clean-up run just after a job ends; the census waits for them. */
  private static final Duration SETTLE = Duration.ofSeconds(5);

  /** The census after {@code jobs} finished jobs. */
  public record Point(int jobs, Map<String, Integer> pools) {
    public int total() {
      return pools.values().stream().mapToInt(Integer::intValue).sum();
    }

    public int of(String pool) {
      return pools.getOrDefault(pool, 0);
    }
  }

  private final int jobs;
  private final PrintWriter out;

  public ClusterThreadsBench(int jobs, PrintWriter out) {
    if (jobs < 1) {
      throw new InvalidInputException("--jobs", jobs, "at least 1");
    }
    this.jobs = jobs;
    this.out = out;
  }

  public List<Point> run() throws Exception {
    return BenchJob.onEmbeddedCluster(DATA_SPEC, "threads.libsvm", out, (conf, yarn, zk, data) -> {
      List<Point> points = new ArrayList<>();
      Thread.sleep(SETTLE.toMillis());
      points.add(new Point(0, ThreadCensus.take()));
      say("before any job: " + points.get(0).total() + " threads");
      for (int i = 1; i <= jobs; i++) {
        JobSpec spec = JobSpec.builder().name("edl-bench-threads-" + i).model("softmax").data(data).format("libsvm")
            .workers(1).minWorkers(1).maxWorkers(1).gpusPerWorker(1).workerMemoryMb(512).workerVcores(1).steps(20)
            .batchSize(32).batchRule(BatchRule.FIXED_PER_WORKER).learningRate(0.05).hidden(8).seed(1).backend("cpu")
            .checkpoints(0, 0, 1).build();
        SubmittedJob job = new JobSubmitter(conf, yarn).submit(spec);
        ApplicationReport end = BenchJob.awaitFinished(yarn, job);
        Thread.sleep(SETTLE.toMillis());
        Point p = new Point(i, ThreadCensus.take());
        Point before = points.get(points.size() - 1);
        points.add(p);
        say(String.format("job %d (%s, %s): %d threads (%+d); EDL's %d; changed: %s", i, job.appId(),
            end.getFinalApplicationStatus(), p.total(), p.total() - before.total(), p.of(ThreadCensus.OURS),
            changes(before, p)));
      }
      return points;
    });
  }

  static String changes(Point before, Point after) {
    TreeSet<String> pools = new TreeSet<>(before.pools().keySet());
    pools.addAll(after.pools().keySet());
    List<String> changed = new ArrayList<>();
    for (String pool : pools) {
      int d = after.of(pool) - before.of(pool);
      if (d != 0) {
        changed.add(String.format("%s %+d", pool, d));
      }
    }
    return changed.isEmpty() ? "none" : String.join(", ", changed);
  }

  private void say(String line) {
    out.println(line);
    out.flush();
  }
}
