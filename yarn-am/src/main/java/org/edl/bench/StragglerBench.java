package org.edl.bench;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.apache.hadoop.conf.Configuration;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.job.BatchRule;
import org.edl.thrift.SwitchOrder;
import org.edl.worker.data.BatchSlicer;
import org.edl.worker.data.DatasetLoader;
import org.edl.worker.emulated.EmulatedModel;
import org.edl.worker.emulated.EmulatedModels;
import org.edl.worker.runtime.ExecutionContext;
import org.edl.worker.runtime.SwitchRecord;
import org.edl.worker.runtime.Worker;
import org.edl.worker.runtime.WorkerConfig;
import org.edl.worker.runtime.WorkerListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code edl bench faults} (straggler part): an emulated job of {@code workers} workers, as threads
 * of this JVM over a real ZooKeeper and real TCP, in which one worker's GPU runs at {@code speed}
 * of the profiled speed from step {@code slowFrom} on. The leader's own straggler detection names
 * it and removes it by graceful scale-in; this class only slows the worker down and records when
 * each step ended, when the leader's order reached the straggler, and the switch.
 *
 * <p>Threads rather than YARN containers: sixteen worker JVMs do not fit on the machines this is
 * run on, and the detection and removal are the leader's code either way. Every worker
 * all-reduces gradients of the emulated model's real size over loopback TCP.
 */
public final class StragglerBench {
  private static final Logger LOG = LoggerFactory.getLogger(StragglerBench.class);
  private static final Duration WAIT = Duration.ofMinutes(10);
  private static final int GPUS_PER_NODE = 4;

  /** What to run; see {@link org.edl.devtools.BenchCommand.Faults} for the flags. */
  public record Options(int workers, String model, int perWorkerBatch, double speed, int warmupBatches,
      int normalBatches, int afterBatches, double factor, int window, Path profilesDir) {

    /** Steps enough for every phase: detection within the window plus a few for the switch. */
    long steps() {
      return warmupBatches + normalBatches + window + 4L + afterBatches;
    }

    long slowFrom() {
      return warmupBatches + normalBatches;
    }
  }

  /**
   * What was measured. Throughputs are the median per-step samples per second of each phase (a step
   * lasts from the end of the step before to its own end, as the slowest member finished them).
   *
   * @param namedAtStep  the step whose report made the leader name the straggler
   * @param removedAtStep the step at which the straggler left (the switch)
   * @param detectSeconds from the start of the first slow batch until the straggler got the order
   * @param removeSeconds from the order until the survivors trained on the new ring (the switch's
   *                     stop included)
   */
  public record Result(int workers, String model, double speed, int window, double normal,
      double straggling, double afterRemoval, long slowFrom, long namedAtStep, long removedAtStep,
      double detectSeconds, double removeSeconds, double switchStopSeconds, List<double[]> stepSeries) {}

  private final Options options;
  private final PrintWriter out;

  public StragglerBench(Options options, PrintWriter out) {
    this.options = options;
    this.out = out;
  }

  public Result run() throws Exception {
    if (!Files.isDirectory(options.profilesDir())) {
      throw new org.edl.job.InvalidInputException("profiles", options.profilesDir().toString(),
          "no such directory; point --profiles at the checkout's container-worker/src/main/resources/org/edl/worker/emulated/profiles");
    }
    Path output = Files.createTempDirectory("edl-bench-stragglers");
    String appId = "application_" + System.currentTimeMillis() + "_0001";
    int samples = Math.max(65_536, 2 * options.workers() * options.perWorkerBatch());
    JobSpec spec = JobSpec.builder().name("bench-stragglers").model(options.model())
        .data("synthetic:samples=" + samples + ",features=2,classes=2,seed=1").format("auto")
        .workers(options.workers()).minWorkers(1).maxWorkers(options.workers()).gpusPerWorker(1)
        .workerMemoryMb(1024).workerVcores(1).steps(options.steps()).batchSize(options.perWorkerBatch())
        .batchRule(BatchRule.FIXED_PER_WORKER).learningRate(0.1).hidden(1).seed(1).backend("emulated")
        .output(output.toUri().toString()).checkpoints(0, 0, 1)
        .stragglers(options.factor(), options.window(), false).build();
    Recorder recorder = new Recorder(options.slowFrom());
    JobSecret secret = JobSecret.generate();
    ExecutorService threads = Executors.newCachedThreadPool();
    say("Emulated " + options.model() + ": " + options.workers() + " workers x batch "
        + options.perWorkerBatch() + ", one at " + Math.round(options.speed() * 100) + "% speed from step "
        + options.slowFrom() + ", " + options.steps() + " steps");
    try (TestingServer zk = new TestingServer()) {
      List<String> ids = new ArrayList<>();
      Map<String, Future<Worker.Outcome>> outcomes = new ConcurrentHashMap<>();
      List<Worker> workers = new ArrayList<>();
      for (int i = 1; i <= options.workers(); i++) {
        ids.add(String.format("container_%s_%02d", appId, i + 1));
      }
      String slow = ids.get(ids.size() / 2);
      recorder.slow = slow;
      for (int i = 0; i < ids.size(); i++) {
        String id = ids.get(i);
        // Four workers per loopback address: the placement the profiles were measured on (4-GPU nodes).
        String host = "127.0.0." + (1 + i / GPUS_PER_NODE);
        WorkerConfig config = WorkerConfig.of(appId, id, host, zk.getConnectString(), null, spec,
            secret, new Configuration()).withProfilesDir(options.profilesDir()).withStartupTimeout(WAIT);
        ExecutionContext.Factory context = c -> new ExecutionContext(
            DatasetLoader.load(c.spec().data().source(), c.spec().data().format(), c.hadoopConf()),
            EmulatedModels.create(c.spec(), c.profilesDir(), sleeperFor(id, recorder)));
        Worker worker = new Worker(config, context, recorder);
        workers.add(worker);
        outcomes.put(id, threads.submit(worker::run));
      }
      for (String id : ids) {
        Worker.Outcome o = outcomes.get(id).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        LOG.info("{} ended {} after step {}", id, o.ending(), o.nextStep() - 1);
      }
      workers.forEach(Worker::close); // before ZooKeeper goes
    } finally {
      threads.shutdownNow();
    }
    return recorder.result(options);
  }

  /** The straggler's GPU runs at {@code speed}: its emulated compute takes 1/speed as long. */
  private EmulatedModel.Sleeper sleeperFor(String id, Recorder recorder) {
    return nanos -> EmulatedModel.Sleeper.PARK.sleepNanos(
        recorder.isSlow(id) ? (long) (nanos / options.speed()) : nanos);
  }

  private void say(String line) {
    out.println(line);
    out.flush();
  }

  /** Hears every worker: step ends, the straggler's order, the survivors' switch. */
  private static final class Recorder implements WorkerListener {
    private final long slowFrom;
    volatile String slow;
    private final Map<String, Long> currentStep = new ConcurrentHashMap<>();
    /** Step -> latest end of that batch over all members (nanos), and the samples trained. */
    private final Map<Long, Long> stepEnd = new ConcurrentHashMap<>();
    private final Map<Long, Integer> stepSamples = new ConcurrentHashMap<>();
    private final Map<Long, Long> stepStart = new ConcurrentHashMap<>();
    private volatile long orderedNanos = -1;
    private volatile long orderedAtStep = -1;
    private volatile long removedAtStep = -1;
    private volatile long switchStopNanos = -1;

    Recorder(long slowFrom) {
      this.slowFrom = slowFrom;
    }

    boolean isSlow(String id) {
      return id.equals(slow) && currentStep.getOrDefault(id, 0L) >= slowFrom;
    }

    @Override
    public void beforeBatch(String workerId, long step) {
      currentStep.put(workerId, step);
      stepStart.merge(step, System.nanoTime(), Math::min);
    }

    @Override
    public void batchTrained(String workerId, long step, BatchSlicer.Range positions, int[] samples) {
      stepEnd.merge(step, System.nanoTime(), Math::max);
      stepSamples.merge(step, samples.length, Integer::sum);
    }

    @Override
    public void switchOrdered(String workerId, long reportedStep, SwitchOrder order) {
      if (workerId.equals(slow) && order.isSetLeavers() && order.getLeavers().contains(workerId)
          && orderedNanos < 0) {
        orderedNanos = System.nanoTime();
        orderedAtStep = reportedStep;
      }
    }

    @Override
    public void switched(String workerId, SwitchRecord r) {
      if (r.role() == SwitchRecord.Role.LEAVER) {
        removedAtStep = r.atStep();
      } else if (r.role() != SwitchRecord.Role.JOINER) {
        switchStopNanos = Math.max(switchStopNanos, r.stoppedNanos());
      }
    }

    Result result(Options o) {
      if (orderedNanos < 0 || removedAtStep < 0) {
        throw new IllegalStateException("the leader did not remove the straggler within " + o.steps()
            + " steps (slow from step " + slowFrom + ", window " + o.window() + ")");
      }
      long last = stepEnd.keySet().stream().mapToLong(Long::longValue).max().orElseThrow();
      double normal = throughput(o.warmupBatches(), slowFrom - 1);
      double straggling = throughput(slowFrom, orderedAtStep);
      double after = throughput(removedAtStep + 2, last);
      double detect = (orderedNanos - stepStart.get(slowFrom)) / 1e9;
      // Removal ends when the survivors finished their first batch on the new ring.
      double remove = (stepEnd.get(removedAtStep + 1) - orderedNanos) / 1e9;
      List<double[]> series = new ArrayList<>();
      long t0 = stepEnd.get(0L);
      for (long s = 1; s <= last; s++) {
        if (stepEnd.containsKey(s) && stepEnd.containsKey(s - 1)) {
          double seconds = (stepEnd.get(s) - stepEnd.get(s - 1)) / 1e9;
          series.add(new double[] {s, (stepEnd.get(s) - t0) / 1e9, stepSamples.get(s) / seconds});
        }
      }
      return new Result(o.workers(), o.model(), o.speed(), o.window(), normal, straggling, after, slowFrom,
          orderedAtStep, removedAtStep, detect, remove, switchStopNanos / 1e9, series);
    }

    /**
     * Median over steps {@code from..to} of each step's samples per second (from the end of the
     * step before to the end of this one): the median, because other work on a shared machine
     * stretches a few steps by far more than the effect being measured.
     */
    private double throughput(long from, long to) {
      List<Double> rates = new ArrayList<>();
      for (long s = from; s <= to; s++) {
        if (stepEnd.containsKey(s - 1) && stepEnd.containsKey(s)) {
          rates.add(stepSamples.getOrDefault(s, 0) / ((stepEnd.get(s) - stepEnd.get(s - 1)) / 1e9));
        }
      }
      if (rates.isEmpty()) {
        throw new IllegalStateException("no whole steps between " + from + " and " + to);
      }
      rates.sort(null);
      int n = rates.size();
      return n % 2 == 1 ? rates.get(n / 2) : (rates.get(n / 2 - 1) + rates.get(n / 2)) / 2;
    }
  }
}
