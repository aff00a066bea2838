package org.edl.job;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

/**
 * Everything a job is submitted with. The client validates it, writes it as {@code job.properties}
 * into the job's HDFS staging directory, and the AM and every worker read the same file: one
 * source of truth, no flags re-parsed in containers. Built with {@link #builder()}, whose
 * {@link JobSpecBuilder#build()} validates; the fields are grouped by what they are about.
 *
 * @param name        YARN application name
 * @param queue       YARN queue; empty: the scheduler's default
 * @param training    model, backend, steps, batch, learning rate, seed
 * @param data        the data set and its format
 * @param scale       workers to start with, and the bounds the job stays within
 * @param growth      whether and how the job grows into idle GPUs by itself
 * @param resources   what each worker container asks YARN for
 * @param checkpoints the periodic checkpoint schedule and the checkpoint the job starts from
 * @param stragglers  how slow workers are detected and replaced
 * @param recovery    how the job survives a failed worker (mode, sync timeout, failures allowed)
 * @param output      HDFS directory for the model and metrics; empty: the staging directory
 * @param script      the user's PyTorch script, or {@link Script#NONE} for a built-in model
 * @param timeline    whether every worker copies its timeline to {@code <output>/timeline/} as it
 *                    ends (the benchmarks and the demo read them); off by default, because the copy
 *                    keeps each ending worker's container, and its GPU, about 2 s longer
 * @param ringTransport how ring links to a peer on the same host carry the gradient: {@code auto}
 *                    (through shared memory, where the host's directory allows, else TCP) or
 *                    {@code tcp} (always TCP); links between hosts are TCP either way
 */
public record JobSpec(
    String name,
    String queue,
    Training training,
    Data data,
    Scale scale,
    Growth growth,
    Resources resources,
    Checkpoints checkpoints,
    Stragglers stragglers,
    Recovery recovery,
    String output,
    Script script,
    boolean timeline,
    String ringTransport) {

  /** The paper's example: a checkpoint every 1000 batches or 10 minutes, whichever comes first. */
  public static final long DEFAULT_CHECKPOINT_EVERY_BATCHES = 1000;
  public static final int DEFAULT_CHECKPOINT_EVERY_MINUTES = 10;
  public static final int DEFAULT_CHECKPOINTS_KEPT = 3;
  public static final Set<String> MODELS = Set.of("softmax", "mlp");
  public static final Set<String> FORMATS = Set.of("auto", "libsvm", "csv");
  public static final Set<String> BACKENDS = Set.of("cpu", "cuda", "emulated");
  /** Models the emulated backend stands in for (their measured profiles and real sizes). */
  public static final Set<String> EMULATED_MODELS = Set.of("imagenet", "cifar10", "yolov3", "bert");
  /** {@code --emulated-sync}: the emulated gradient really moves (default) or waits the profile's sync time. */
  public static final String EMULATED_SYNC_TRANSFER = "transfer";
  public static final String EMULATED_SYNC_PROFILE = "profile";
  public static final String RING_TRANSPORT_AUTO = "auto";
  public static final String RING_TRANSPORT_TCP = "tcp";
  public static final Set<String> RING_TRANSPORTS = Set.of(RING_TRANSPORT_AUTO, RING_TRANSPORT_TCP);

  /** {@code transfer} or {@code profile}; anything else is refused naming the flag. */
  public static boolean emulatedSyncOf(String value) {
    String v = value == null ? "" : value.trim();
    if (v.equals(EMULATED_SYNC_PROFILE)) {
      return true;
    }
    if (v.equals(EMULATED_SYNC_TRANSFER)) {
      return false;
    }
    throw new InvalidInputException("emulated-sync", value, "choose " + EMULATED_SYNC_TRANSFER + " or "
        + EMULATED_SYNC_PROFILE);
  }
  /** What {@code edl submit} detects stragglers with unless told otherwise. */
  public static final double DEFAULT_STRAGGLER_FACTOR = 1.2;
  public static final int DEFAULT_STRAGGLER_BATCHES = 10;

  /**
   * A builder with the default checkpoint schedule, started from scratch, without straggler
   * detection (specs built in code: tests, benchmarks, the demo, where a paced worker must not be
   * taken for a straggler), the default recovery, the default queue and output; {@code edl submit}
   * turns detection on by default.
   */
  public static JobSpecBuilder builder() {
    return new JobSpecBuilder();
  }

  /** A builder holding this job's fields, to build a changed copy. */
  public JobSpecBuilder toBuilder() {
    return new JobSpecBuilder()
        .name(name).queue(queue).output(output)
        .model(training.model()).backend(training.backend()).steps(training.steps())
        .batchSize(training.batchSize()).batchRule(training.batchRule())
        .learningRate(training.learningRate()).hidden(training.hidden()).seed(training.seed())
        .profileSync(training.profileSync())
        .data(data.source()).format(data.format()).dataCache(data.cache())
        .workers(scale.workers()).minWorkers(scale.minWorkers()).maxWorkers(scale.maxWorkers())
        .gatherMs(scale.gatherMs())
        .growth(growth)
        .gpusPerWorker(resources.gpusPerWorker()).workerMemoryMb(resources.memoryMb())
        .workerVcores(resources.vcores())
        .checkpoints(checkpoints.everyBatches(), checkpoints.everyMinutes(), checkpoints.kept())
        .resumeFrom(checkpoints.resumeFrom())
        .stragglers(stragglers.factor(), stragglers.batches(), stragglers.replace())
        .recovery(recovery)
        .script(script)
        .timeline(timeline)
        .ringTransport(ringTransport);
  }

  /** Whether {@code value} is one of {@code choices}; a part never set (null) is none of them. */
  private static boolean among(java.util.Set<String> choices, String value) {
    return value != null && choices.contains(value);
  }

  /** Checks every field on its own; the message names the flag and the value. */
  public JobSpec validate() {
    String model = training.model();
    String backend = training.backend();
    if (script.isSet()) {
      script.validate(backend, resources.gpusPerWorker());
      script.validateTorchrun(growth, checkpoints.resumeFrom());
    } else if ("emulated".equals(backend)) {
      if (!among(EMULATED_MODELS, model)) {
        throw new InvalidInputException("model", model, "no emulation for this model; with --backend emulated choose one of "
            + sorted(EMULATED_MODELS));
      }
    } else if (!among(MODELS, model)) {
      throw new InvalidInputException("model", model, "unknown model; choose one of " + sorted(MODELS));
    }
    if (!script.isSet() && (data.source() == null || data.source().isBlank())) {
      throw new InvalidInputException("data", data.source(), "a data set is required");
    }
    if (!among(FORMATS, data.format())) {
      throw new InvalidInputException("format", data.format(), "unknown format; choose one of " + sorted(FORMATS));
    }
    if (!among(RING_TRANSPORTS, ringTransport)) {
      throw new InvalidInputException("ring-transport", ringTransport, "choose one of " + sorted(RING_TRANSPORTS));
    }
    if (!among(BACKENDS, backend)) {
      throw new InvalidInputException("backend", backend, "unknown backend; choose one of " + sorted(BACKENDS));
    }
    if ("cuda".equals(backend) && resources.gpusPerWorker() < 1) {
      throw new InvalidInputException("gpus-per-worker", resources.gpusPerWorker(), "--backend cuda trains on the GPU YARN"
          + " gives each worker: ask for 1 or more");
    }
    if (training.profileSync() && !"emulated".equals(backend)) {
      throw new InvalidInputException("emulated-sync", EMULATED_SYNC_PROFILE, "only the emulated backend can stand in"
          + " for its gradient transfer; this job's backend is " + backend);
    }
    int workers = scale.workers();
    int minWorkers = scale.minWorkers();
    int maxWorkers = scale.maxWorkers();
    positive("workers", workers);
    positive("min-workers", minWorkers);
    positive("max-workers", maxWorkers);
    if (minWorkers > workers) {
      throw new InvalidInputException("min-workers", minWorkers, "more than --workers=" + workers);
    }
    if (maxWorkers < workers) {
      throw new InvalidInputException("max-workers", maxWorkers, "less than --workers=" + workers);
    }
    if (growth.holdOffMs() < 0) {
      throw new InvalidInputException("grow-hold-off-ms", growth.holdOffMs(), "must be 0 or more");
    }
    if (growth.followsCurve() && !(growth.efficiency() >= 0 && growth.efficiency() <= 1)) {
      throw new InvalidInputException("grow-efficiency", growth.efficiency(), "must be between 0 and 1 (or off)");
    }
    if (resources.gpusPerWorker() < 0) {
      throw new InvalidInputException("gpus-per-worker", resources.gpusPerWorker(), "must be 0 or more");
    }
    positive("worker-memory", resources.memoryMb());
    positive("worker-vcores", resources.vcores());
    positive("steps", training.steps());
    int batchSize = training.batchSize();
    positive("batch-size", batchSize);
    if (training.batchRule() == BatchRule.FIXED_GLOBAL && batchSize < maxWorkers) {
      throw new InvalidInputException("batch-size", batchSize,
          "a fixed global batch must give every worker at least one sample (max-workers=" + maxWorkers + ")");
    }
    double learningRate = training.learningRate();
    if (!(learningRate > 0) || Double.isInfinite(learningRate)) {
      throw new InvalidInputException("learning-rate", learningRate, "must be a positive number");
    }
    if (!script.isSet()) {
      positive("hidden", training.hidden());
    }
    if (checkpoints.everyBatches() < 0) {
      throw new InvalidInputException("checkpoint-every-batches", checkpoints.everyBatches(),
          "must be 0 (never) or more");
    }
    if (checkpoints.everyMinutes() < 0) {
      throw new InvalidInputException("checkpoint-every-minutes", checkpoints.everyMinutes(),
          "must be 0 (never) or more");
    }
    positive("checkpoints-kept", checkpoints.kept());
    double stragglerFactor = stragglers.factor();
    if (stragglerFactor != 0 && !(stragglerFactor > 1 && stragglerFactor < Double.POSITIVE_INFINITY)) {
      throw new InvalidInputException("straggler-factor", stragglerFactor,
          "must be above 1 (a multiple of the median batch time), or 0 to turn detection off");
    }
    if (recovery == null) {
      throw new InvalidInputException("recovery", null, "missing");
    }
    recovery.validate();
    if (stragglers.batches() < 0) {
      throw new InvalidInputException("straggler-batches", stragglers.batches(),
          "must be at least 1, or 0 to turn detection off");
    }
    return this;
  }

  /** The per-worker learning rate under this job's batch rule. */
  public double learningRateFor(int workerCount) {
    return training.learningRateFor(workerCount);
  }

  /** The global batch at {@code workerCount} workers under this job's batch rule. */
  public int globalBatchFor(int workerCount) {
    return training.globalBatchFor(workerCount);
  }

  /** The job as {@code job.properties} holds it ({@link JobSpecFile}). */
  public Properties toProperties() {
    return JobSpecFile.toProperties(this);
  }

  /** Reads what {@link #toProperties} wrote (keys added later take their defaults when absent). */
  public static JobSpec fromProperties(Properties p) {
    return JobSpecFile.fromProperties(p);
  }

  public void write(OutputStream out) throws IOException {
    toProperties().store(out, "EDL job specification");
  }

  public static JobSpec read(InputStream in) throws IOException {
    Properties p = new Properties();
    p.load(in);
    return fromProperties(p);
  }

  /** {@code fixed-global} / {@code fixed-per-worker}, as on the command line. */
  public static BatchRule batchRuleOf(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    return switch (t) {
      case "fixed-global", "global" -> BatchRule.FIXED_GLOBAL;
      case "fixed-per-worker", "per-worker" -> BatchRule.FIXED_PER_WORKER;
      default -> throw new InvalidInputException("batch-rule", text,
          "choose fixed-global or fixed-per-worker");
    };
  }

  /**
   * The same job started with {@code count} workers (a stop-resume relaunch at a new size);
   * validated, so a count outside [min-workers, max-workers] is refused naming it.
   */
  public JobSpec withWorkers(int count) {
    return toBuilder().workers(count).build();
  }

  /** Whether the leader looks for stragglers at all. */
  public boolean detectsStragglers() {
    return stragglers.detects();
  }

  private static void positive(String field, long value) {
    if (value < 1) {
      throw new InvalidInputException(field, value, "must be at least 1");
    }
  }

  private static String sorted(Set<String> names) {
    return String.join(", ", names.stream().sorted().toList());
  }
}
