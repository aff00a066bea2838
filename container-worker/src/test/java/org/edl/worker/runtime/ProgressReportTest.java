package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.edl.job.AmAddressRecord;
import org.edl.job.HostPort;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.job.ModelOutput;
import org.edl.job.rpc.RefusalListener;
import org.edl.job.rpc.RpcServer;
import org.edl.testing.ZooKeeperServer;
import org.edl.job.BatchRule;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobProgress;
import org.edl.thrift.JobStatus;
import org.edl.thrift.ProfileResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader reports progress to the AM's JobControl endpoint (a real, secret-checked Thrift
 * server here standing in for the AM, which lives in another module), ending with a report of
 * the last step that names the model and metrics files.
 */
class ProgressReportTest {
  private static final int STEPS = 20;

  /** A fresh server for each test, as each had its own. */
  @RegisterExtension
  final ZooKeeperServer zk = new ZooKeeperServer();

  @TempDir
  Path out;

  @Test
  void theLeaderReportsProgressAndTheFinalReportNamesTheOutput() throws Exception {
    JobSecret secret = JobSecret.generate();
    BlockingQueue<JobProgress> reports = new LinkedBlockingQueue<>();
    JobControl.Iface am = new RecordingJobControl(reports);
    JobSpec spec = JobSpec.builder().name("test").model("softmax")
        .data("synthetic:samples=300,features=6,classes=3,seed=5").format("auto").workers(2).minWorkers(1)
        .maxWorkers(2).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(STEPS).batchSize(20)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.5).hidden(8).seed(3).backend("cpu")
        .output(out.toUri().toString()).build();
    try (RpcServer amServer = RpcServer.start("job-control", new JobControl.Processor<>(am), "127.0.0.1", 0,
        secret, Duration.ofSeconds(10), RefusalListener.NONE)) {
      ExecutorService threads = Executors.newFixedThreadPool(2);
      List<Worker> workers = new ArrayList<>();
      List<Future<Worker.Outcome>> outcomes = new ArrayList<>();
      try {
        for (int i = 1; i <= 2; i++) {
          Worker w = new Worker(WorkerConfig.of("application_9_0001", "container_9_0001_0" + i, "127.0.0.1",
              zk.connectString(), new HostPort("127.0.0.1", amServer.port()), spec, secret,
              new Configuration()).withProgressInterval(Duration.ofMillis(20)));
          workers.add(w);
          outcomes.add(threads.submit(w::run));
        }
        for (Future<Worker.Outcome> f : outcomes) {
          f.get(120, TimeUnit.SECONDS);
        }
      } finally {
        workers.forEach(Worker::close);
        threads.shutdownNow();
      }
    }
    List<JobProgress> seen = new ArrayList<>();
    reports.drainTo(seen);
    assertTrue(!seen.isEmpty(), "no progress reached the AM");
    JobProgress last = seen.get(seen.size() - 1);
    assertEquals(STEPS, last.getStep());
    assertEquals(STEPS, last.getTotalSteps());
    assertEquals(2, last.getWorkers());
    assertTrue(last.isSetFirstLoss() && last.getLoss() < last.getFirstLoss(), last.toString());
    assertTrue(last.getModelPath().endsWith("/" + ModelOutput.MODEL_FILE), last.getModelPath());
    assertTrue(last.getMetricsPath().endsWith("/" + ModelOutput.METRICS_FILE), last.getMetricsPath());
    for (int i = 1; i < seen.size(); i++) {
      assertTrue(seen.get(i).getStep() >= seen.get(i - 1).getStep(), "progress went backwards: " + seen);
    }
  }

  @Test
  void whenTheLeaderLeavesItsSuccessorReportsToTheAm() throws Exception {
    JobSecret secret = JobSecret.generate();
    BlockingQueue<JobProgress> reports = new LinkedBlockingQueue<>();
    long steps = 1500;
    JobSpec spec = JobSpec.builder().name("test").model("softmax")
        .data("synthetic:samples=300,features=6,classes=3,seed=5").format("auto").workers(2).minWorkers(1)
        .maxWorkers(2).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(steps).batchSize(20)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.5).hidden(8).seed(3).backend("cpu")
        .output(out.toUri().toString()).build();
    try (RpcServer amServer = RpcServer.start("job-control",
        new JobControl.Processor<>(new RecordingJobControl(reports)), "127.0.0.1", 0, secret, Duration.ofSeconds(10),
        RefusalListener.NONE)) {
      ExecutorService threads = Executors.newFixedThreadPool(2);
      List<Worker> workers = new ArrayList<>();
      List<Future<Worker.Outcome>> outcomes = new ArrayList<>();
      try {
        for (int i = 1; i <= 2; i++) {
          // Paced so that the job is still running when its leader is told to leave.
          Worker w = new Worker(WorkerConfig.of("application_9_0002", "container_9_0002_0" + i, "127.0.0.1",
              zk.connectString(), new HostPort("127.0.0.1", amServer.port()), spec, secret,
              new Configuration()).withProgressInterval(Duration.ofMillis(20)), ExecutionContext.FROM_SPEC,
              new WorkerListener() {
                @Override
                public void beforeBatch(String workerId, long step) throws InterruptedException {
                  Thread.sleep(5);
                }
              });
          workers.add(w);
          outcomes.add(threads.submit(w::run));
        }
        JobProgress first = reports.poll(60, TimeUnit.SECONDS);
        assertTrue(first != null && first.getStep() < steps, "a report while training: " + first);
        Worker leader = workers.stream().filter(Worker::isLeading).findFirst().orElseThrow();
        leader.leave();
        for (Future<Worker.Outcome> f : outcomes) {
          f.get(120, TimeUnit.SECONDS);
        }
      } finally {
        workers.forEach(Worker::close);
        threads.shutdownNow();
      }
    }
    List<JobProgress> seen = new ArrayList<>();
    reports.drainTo(seen);
    JobProgress last = seen.get(seen.size() - 1);
    assertEquals(steps, last.getStep(), "the successor reported the end: " + last);
    assertEquals(1, last.getWorkers());
    assertTrue(last.isSetModelPath(), last.toString());
  }

  /**
   * A new AM attempt listens elsewhere and publishes its address in ZooKeeper; the leader, whose
   * launch environment names the dead attempt, finds it there after a failed report, and the
   * final report (naming the model) reaches the new one.
   */
  @Test
  void whenTheAmMovesTheLeaderFindsItInZooKeeper() throws Exception {
    JobSecret secret = JobSecret.generate();
    BlockingQueue<JobProgress> toFirst = new LinkedBlockingQueue<>();
    BlockingQueue<JobProgress> toSecond = new LinkedBlockingQueue<>();
    long steps = 1500;
    String appId = "application_9_0003";
    JobProgress first = null;
    JobSpec spec = JobSpec.builder().name("test").model("softmax")
        .data("synthetic:samples=300,features=6,classes=3,seed=5").format("auto").workers(2).minWorkers(1)
        .maxWorkers(2).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(steps).batchSize(20)
        .batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.5).hidden(8).seed(3).backend("cpu")
        .output(out.toUri().toString()).build();
    try (CuratorFramework am = zk.newClient()) {
      RpcServer firstAm = RpcServer.start("job-control", new JobControl.Processor<>(new RecordingJobControl(toFirst)),
          "127.0.0.1", 0, secret, Duration.ofSeconds(10), RefusalListener.NONE);
      AmAddressRecord.publish(am, appId, new HostPort("127.0.0.1", firstAm.port()));
      ExecutorService threads = Executors.newFixedThreadPool(2);
      List<Worker> workers = new ArrayList<>();
      List<Future<Worker.Outcome>> outcomes = new ArrayList<>();
      try (RpcServer secondAm = RpcServer.start("job-control",
          new JobControl.Processor<>(new RecordingJobControl(toSecond)), "127.0.0.1", 0, secret,
          Duration.ofSeconds(10), RefusalListener.NONE)) {
        for (int i = 1; i <= 2; i++) {
          Worker w = new Worker(WorkerConfig.of(appId, "container_9_0003_0" + i, "127.0.0.1",
              zk.connectString(), new HostPort("127.0.0.1", firstAm.port()), spec, secret,
              new Configuration()).withProgressInterval(Duration.ofMillis(20)), ExecutionContext.FROM_SPEC,
              new WorkerListener() {
                @Override
                public void beforeBatch(String workerId, long step) throws InterruptedException {
                  Thread.sleep(5);
                }
              });
          workers.add(w);
          outcomes.add(threads.submit(w::run));
        }
        first = toFirst.poll(60, TimeUnit.SECONDS);
        assertTrue(first != null && first.getStep() < steps, "a report to the first AM while training: " + first);
        firstAm.close();
        AmAddressRecord.publish(am, appId, new HostPort("127.0.0.1", secondAm.port()));
        for (Future<Worker.Outcome> f : outcomes) {
          f.get(120, TimeUnit.SECONDS);
        }
      } finally {
        workers.forEach(Worker::close);
        threads.shutdownNow();
        firstAm.close();
      }
    }
    List<JobProgress> seen = new ArrayList<>();
    toSecond.drainTo(seen);
    assertTrue(!seen.isEmpty(), "no report reached the new AM");
    JobProgress last = seen.get(seen.size() - 1);
    assertEquals(steps, last.getStep(), "the end went to the new AM: " + last);
    assertTrue(last.isSetModelPath(), last.toString());
    assertTrue(seen.get(0).getStep() >= first.getStep(),
        "the new AM heard the training go on, not start over: " + seen.get(0));
  }

  /** The AM's side of reportProgress: records what arrives. */
  private record RecordingJobControl(BlockingQueue<JobProgress> reports) implements JobControl.Iface {
    @Override
    public void reportProgress(JobProgress progress) {
      reports.add(progress);
    }

    @Override
    public JobStatus status() {
      throw new UnsupportedOperationException("not used by workers");
    }

    @Override
    public JobStatus scaleOut(int count, org.edl.thrift.ScaleMode mode) {
      throw new UnsupportedOperationException("not used by workers");
    }

    @Override
    public JobStatus scaleIn(int count, List<String> containerIds, org.edl.thrift.ScaleMode mode) {
      throw new UnsupportedOperationException("not used by workers");
    }

    @Override
    public JobStatus migrate(String fromHost, String toHost) {
      throw new UnsupportedOperationException("not used by workers");
    }

    @Override
    public ProfileResult profile(int minWorkers, int maxWorkers, int batches) {
      throw new UnsupportedOperationException("not used by workers");
    }
  }
}
