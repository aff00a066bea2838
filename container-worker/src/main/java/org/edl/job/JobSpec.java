package org.edl.job;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import org.edl.thrift.BatchRule;

/**
 * Everything a job is submitted with. The client validates it, writes it as {@code job.properties}
 * into the job's HDFS staging directory, and the AM and every worker read the same file: one
 * source of truth, no flags re-parsed in containers.
 *
 * @param name          YARN application name
 * @param model         built-in model ({@code softmax}, {@code mlp})
 * @param data          {@code synthetic:samples=..,features=..,classes=..,seed=..} or a path
 *                      (HDFS or any Hadoop file system) to a LIBSVM or CSV file
 * @param format        {@code libsvm}, {@code csv}, or {@code auto} (from the file extension)
 * @param workers       workers to start with
 * @param minWorkers    the job never runs with fewer
 * @param maxWorkers    the job never runs with more
 * @param gpusPerWorker {@code yarn.io/gpu} per worker container
 * @param workerMemoryMb memory per worker container
 * @param workerVcores  vcores per worker container
 * @param steps         mini-batches to train
 * @param batchSize     global batch (FIXED_GLOBAL) or per-worker batch (FIXED_PER_WORKER)
 * @param batchRule     how the batch and learning rate follow the worker count
 * @param learningRate  base learning rate (per-worker rule: scaled by the worker count)
 * @param hidden        hidden units of the MLP
 * @param seed          seed for initialisation and sample order
 * @param backend       compute backend: {@code cpu}, or {@code emulated} (a profiled model's step
 *                      time and real parameter count, see {@code org.edl.worker.emulated})
 * @param output        HDFS directory for the model and metrics; empty: the staging directory
 * @param queue         YARN queue; empty: the scheduler's default
 * @param checkpointEveryBatches the leader writes a periodic checkpoint after this many batches
 *                      (or {@code checkpointEveryMinutes}, whichever comes first); 0: never by count
 * @param checkpointEveryMinutes ... or after this many minutes; 0: never by time
 * @param checkpointsKept periodic checkpoints kept (the newest ones); older ones are deleted
 * @param resumeFrom    a checkpoint (or a directory of them) the job's first workers start from;
 *                      empty: from scratch
 * @param stragglerFactor  a worker slower than this x the median batch time is slow; 0: off
 * @param stragglerBatches consecutive slow batches after which the leader removes a worker; 0: off
 * @param replaceStragglers the AM starts a new container for each straggler the leader removed
 * @param recovery      how the job survives a failed worker (mode, sync timeout, failures allowed)
 */
public record JobSpec(
    String name,
    String model,
    String data,
    String format,
    int workers,
    int minWorkers,
    int maxWorkers,
    int gpusPerWorker,
    int workerMemoryMb,
    int workerVcores,
    long steps,
    int batchSize,
    BatchRule batchRule,
    double learningRate,
    int hidden,
    long seed,
    String backend,
    String output,
    String queue,
    long checkpointEveryBatches,
    int checkpointEveryMinutes,
    int checkpointsKept,
    String resumeFrom,
    double stragglerFactor,
    int stragglerBatches,
    boolean replaceStragglers,
    Recovery recovery) {

  /** The paper's example: a checkpoint every 1000 batches or 10 minutes, whichever comes first. */
  public static final long DEFAULT_CHECKPOINT_EVERY_BATCHES = 1000;
  public static final int DEFAULT_CHECKPOINT_EVERY_MINUTES = 10;
  public static final int DEFAULT_CHECKPOINTS_KEPT = 3;
  public static final Set<String> MODELS = Set.of("softmax", "mlp");
  public static final Set<String> FORMATS = Set.of("auto", "libsvm", "csv");
  public static final Set<String> BACKENDS = Set.of("cpu", "emulated");
  /** Models the emulated backend stands in for (their measured profiles and real sizes). */
  public static final Set<String> EMULATED_MODELS = Set.of("imagenet", "cifar10", "yolov3", "bert");
  private static final String PREFIX = "edl.job.";
  /** What {@code edl submit} detects stragglers with unless told otherwise. */
  public static final double DEFAULT_STRAGGLER_FACTOR = 1.2;
  public static final int DEFAULT_STRAGGLER_BATCHES = 10;

  /**
   * A job with the default checkpoint schedule, started from scratch, without straggler
   * detection (specs built in code: tests, benchmarks, the demo, where a paced worker must not be
   * taken for a straggler); {@code edl submit} turns detection on by default.
   */
  public JobSpec(String name, String model, String data, String format, int workers, int minWorkers,
      int maxWorkers, int gpusPerWorker, int workerMemoryMb, int workerVcores, long steps,
      int batchSize, BatchRule batchRule, double learningRate, int hidden, long seed, String backend,
      String output, String queue) {
    this(name, model, data, format, workers, minWorkers, maxWorkers, gpusPerWorker, workerMemoryMb,
        workerVcores, steps, batchSize, batchRule, learningRate, hidden, seed, backend, output, queue,
        DEFAULT_CHECKPOINT_EVERY_BATCHES, DEFAULT_CHECKPOINT_EVERY_MINUTES, DEFAULT_CHECKPOINTS_KEPT, "",
        0, 0, false, Recovery.DEFAULT);
  }

  /** Checks every field on its own; the message names the flag and the value. */
  public JobSpec validate() {
    if ("emulated".equals(backend)) {
      if (!EMULATED_MODELS.contains(model)) {
        throw new InvalidInputException("model", model, "no emulation for this model; with --backend emulated choose one of "
            + sorted(EMULATED_MODELS));
      }
    } else if (!MODELS.contains(model)) {
      throw new InvalidInputException("model", model, "unknown model; choose one of " + sorted(MODELS));
    }
    if (data == null || data.isBlank()) {
      throw new InvalidInputException("data", data, "a data set is required");
    }
    if (!FORMATS.contains(format)) {
      throw new InvalidInputException("format", format, "unknown format; choose one of " + sorted(FORMATS));
    }
    if (!BACKENDS.contains(backend)) {
      throw new InvalidInputException("backend", backend, "unknown backend; choose one of " + sorted(BACKENDS));
    }
    positive("workers", workers);
    positive("min-workers", minWorkers);
    positive("max-workers", maxWorkers);
    if (minWorkers > workers) {
      throw new InvalidInputException("min-workers", minWorkers, "more than --workers=" + workers);
    }
    if (maxWorkers < workers) {
      throw new InvalidInputException("max-workers", maxWorkers, "less than --workers=" + workers);
    }
    if (gpusPerWorker < 0) {
      throw new InvalidInputException("gpus-per-worker", gpusPerWorker, "must be 0 or more");
    }
    positive("worker-memory", workerMemoryMb);
    positive("worker-vcores", workerVcores);
    positive("steps", steps);
    positive("batch-size", batchSize);
    if (batchRule == BatchRule.FIXED_GLOBAL && batchSize < maxWorkers) {
      throw new InvalidInputException("batch-size", batchSize,
          "a fixed global batch must give every worker at least one sample (max-workers=" + maxWorkers + ")");
    }
    if (!(learningRate > 0) || Double.isInfinite(learningRate)) {
      throw new InvalidInputException("learning-rate", learningRate, "must be a positive number");
    }
    positive("hidden", hidden);
    if (checkpointEveryBatches < 0) {
      throw new InvalidInputException("checkpoint-every-batches", checkpointEveryBatches, "must be 0 (never) or more");
    }
    if (checkpointEveryMinutes < 0) {
      throw new InvalidInputException("checkpoint-every-minutes", checkpointEveryMinutes, "must be 0 (never) or more");
    }
    positive("checkpoints-kept", checkpointsKept);
    if (stragglerFactor != 0 && !(stragglerFactor > 1 && stragglerFactor < Double.POSITIVE_INFINITY)) {
      throw new InvalidInputException("straggler-factor", stragglerFactor,
          "must be above 1 (a multiple of the median batch time), or 0 to turn detection off");
    }
    if (recovery == null) {
      throw new InvalidInputException("recovery", null, "missing");
    }
    recovery.validate();
    if (stragglerBatches < 0) {
      throw new InvalidInputException("straggler-batches", stragglerBatches,
          "must be at least 1, or 0 to turn detection off");
    }
    return this;
  }

  /** The per-worker learning rate under this job's batch rule. */
  public double learningRateFor(int workerCount) {
    return batchRule == BatchRule.FIXED_PER_WORKER ? learningRate * workerCount : learningRate;
  }

  /** The global batch at {@code workerCount} workers under this job's batch rule. */
  public int globalBatchFor(int workerCount) {
    return batchRule == BatchRule.FIXED_PER_WORKER ? batchSize * workerCount : batchSize;
  }

  public Properties toProperties() {
    Properties p = new Properties();
    p.setProperty(PREFIX + "name", name);
    p.setProperty(PREFIX + "model", model);
    p.setProperty(PREFIX + "data", data);
    p.setProperty(PREFIX + "format", format);
    p.setProperty(PREFIX + "workers", Integer.toString(workers));
    p.setProperty(PREFIX + "min-workers", Integer.toString(minWorkers));
    p.setProperty(PREFIX + "max-workers", Integer.toString(maxWorkers));
    p.setProperty(PREFIX + "gpus-per-worker", Integer.toString(gpusPerWorker));
    p.setProperty(PREFIX + "worker-memory", Integer.toString(workerMemoryMb));
    p.setProperty(PREFIX + "worker-vcores", Integer.toString(workerVcores));
    p.setProperty(PREFIX + "steps", Long.toString(steps));
    p.setProperty(PREFIX + "batch-size", Integer.toString(batchSize));
    p.setProperty(PREFIX + "batch-rule", batchRule.name().toLowerCase(Locale.ROOT).replace('_', '-'));
    p.setProperty(PREFIX + "learning-rate", Double.toString(learningRate));
    p.setProperty(PREFIX + "hidden", Integer.toString(hidden));
    p.setProperty(PREFIX + "seed", Long.toString(seed));
    p.setProperty(PREFIX + "backend", backend);
    p.setProperty(PREFIX + "output", output);
    p.setProperty(PREFIX + "queue", queue);
    p.setProperty(PREFIX + "checkpoint-every-batches", Long.toString(checkpointEveryBatches));
    p.setProperty(PREFIX + "checkpoint-every-minutes", Integer.toString(checkpointEveryMinutes));
    p.setProperty(PREFIX + "checkpoints-kept", Integer.toString(checkpointsKept));
    p.setProperty(PREFIX + "resume-from", resumeFrom);
    p.setProperty(PREFIX + "straggler-factor", Double.toString(stragglerFactor));
    p.setProperty(PREFIX + "straggler-batches", Integer.toString(stragglerBatches));
    p.setProperty(PREFIX + "replace-stragglers", Boolean.toString(replaceStragglers));
    p.setProperty(PREFIX + "recovery", recovery.mode().flag());
    p.setProperty(PREFIX + "sync-timeout-ms", Long.toString(recovery.syncTimeoutMs()));
    p.setProperty(PREFIX + "max-worker-failures", Integer.toString(recovery.maxWorkerFailures()));
    return p;
  }

  public static JobSpec fromProperties(Properties p) {
    return new JobSpec(
        get(p, "name"), get(p, "model"), get(p, "data"), get(p, "format"),
        intOf(p, "workers"), intOf(p, "min-workers"), intOf(p, "max-workers"),
        intOf(p, "gpus-per-worker"), intOf(p, "worker-memory"), intOf(p, "worker-vcores"),
        longOf(p, "steps"), intOf(p, "batch-size"), batchRuleOf(get(p, "batch-rule")),
        doubleOf(p, "learning-rate"), intOf(p, "hidden"), longOf(p, "seed"),
        get(p, "backend"), p.getProperty(PREFIX + "output", ""), p.getProperty(PREFIX + "queue", ""),
        // Absent in a job file written before periodic checkpoints: the defaults.
        p.containsKey(PREFIX + "checkpoint-every-batches") ? longOf(p, "checkpoint-every-batches")
            : DEFAULT_CHECKPOINT_EVERY_BATCHES,
        p.containsKey(PREFIX + "checkpoint-every-minutes") ? intOf(p, "checkpoint-every-minutes")
            : DEFAULT_CHECKPOINT_EVERY_MINUTES,
        p.containsKey(PREFIX + "checkpoints-kept") ? intOf(p, "checkpoints-kept") : DEFAULT_CHECKPOINTS_KEPT,
        p.getProperty(PREFIX + "resume-from", "").trim(),
        p.containsKey(PREFIX + "straggler-factor") ? doubleOf(p, "straggler-factor") : 0,
        p.containsKey(PREFIX + "straggler-batches") ? intOf(p, "straggler-batches") : 0,
        Boolean.parseBoolean(p.getProperty(PREFIX + "replace-stragglers", "false").trim()),
        // Absent in a job file written before failure recovery: the defaults.
        new Recovery(
            Recovery.modeOf(p.getProperty(PREFIX + "recovery", Recovery.Mode.CONSISTENT.flag())),
            p.containsKey(PREFIX + "sync-timeout-ms") ? longOf(p, "sync-timeout-ms") : 0,
            p.containsKey(PREFIX + "max-worker-failures") ? intOf(p, "max-worker-failures")
                : Recovery.DEFAULT_MAX_WORKER_FAILURES))
        .validate();
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

  public JobSpec withOutput(String newOutput) {
    return new JobSpec(name, model, data, format, workers, minWorkers, maxWorkers, gpusPerWorker,
        workerMemoryMb, workerVcores, steps, batchSize, batchRule, learningRate, hidden, seed,
        backend, newOutput, queue, checkpointEveryBatches, checkpointEveryMinutes, checkpointsKept,
        resumeFrom, stragglerFactor, stragglerBatches, replaceStragglers, recovery);
  }

  /**
   * The same job started with {@code count} workers (a stop-resume relaunch at a new size);
   * validated, so a count outside [min-workers, max-workers] is refused naming it.
   */
  public JobSpec withWorkers(int count) {
    return new JobSpec(name, model, data, format, count, minWorkers, maxWorkers, gpusPerWorker,
        workerMemoryMb, workerVcores, steps, batchSize, batchRule, learningRate, hidden, seed,
        backend, output, queue, checkpointEveryBatches, checkpointEveryMinutes, checkpointsKept,
        resumeFrom, stragglerFactor, stragglerBatches, replaceStragglers, recovery).validate();
  }

  public JobSpec withData(String newData) {
    return new JobSpec(name, model, newData, format, workers, minWorkers, maxWorkers, gpusPerWorker,
        workerMemoryMb, workerVcores, steps, batchSize, batchRule, learningRate, hidden, seed,
        backend, output, queue, checkpointEveryBatches, checkpointEveryMinutes, checkpointsKept, resumeFrom,
        stragglerFactor, stragglerBatches, replaceStragglers, recovery);
  }

  /** The same job with another periodic checkpoint schedule (validated). */
  public JobSpec withCheckpoints(long everyBatches, int everyMinutes, int kept) {
    return new JobSpec(name, model, data, format, workers, minWorkers, maxWorkers, gpusPerWorker,
        workerMemoryMb, workerVcores, steps, batchSize, batchRule, learningRate, hidden, seed,
        backend, output, queue, everyBatches, everyMinutes, kept, resumeFrom, stragglerFactor,
        stragglerBatches, replaceStragglers, recovery).validate();
  }

  /** The same job started from the checkpoint at {@code location} (empty: from scratch). */
  public JobSpec withResumeFrom(String location) {
    return new JobSpec(name, model, data, format, workers, minWorkers, maxWorkers, gpusPerWorker,
        workerMemoryMb, workerVcores, steps, batchSize, batchRule, learningRate, hidden, seed,
        backend, output, queue, checkpointEveryBatches, checkpointEveryMinutes, checkpointsKept,
        location == null ? "" : location.trim(), stragglerFactor, stragglerBatches, replaceStragglers,
        recovery);
  }

  /** The same job with straggler detection as given (0 for either number: off). */
  public JobSpec withStragglers(double factor, int batches, boolean replace) {
    return new JobSpec(name, model, data, format, workers, minWorkers, maxWorkers, gpusPerWorker,
        workerMemoryMb, workerVcores, steps, batchSize, batchRule, learningRate, hidden, seed,
        backend, output, queue, checkpointEveryBatches, checkpointEveryMinutes, checkpointsKept, resumeFrom,
        factor, batches, replace, recovery).validate();
  }

  /** The same job with another way of surviving worker failures (validated). */
  public JobSpec withRecovery(Recovery newRecovery) {
    return new JobSpec(name, model, data, format, workers, minWorkers, maxWorkers, gpusPerWorker,
        workerMemoryMb, workerVcores, steps, batchSize, batchRule, learningRate, hidden, seed,
        backend, output, queue, checkpointEveryBatches, checkpointEveryMinutes, checkpointsKept, resumeFrom,
        stragglerFactor, stragglerBatches, replaceStragglers, newRecovery).validate();
  }

  /** Whether the leader looks for stragglers at all. */
  public boolean detectsStragglers() {
    return stragglerFactor > 0 && stragglerBatches > 0;
  }

  private static void positive(String field, long value) {
    if (value < 1) {
      throw new InvalidInputException(field, value, "must be at least 1");
    }
  }

  private static String sorted(Set<String> names) {
    return String.join(", ", names.stream().sorted().toList());
  }

  private static String get(Properties p, String key) {
    String v = p.getProperty(PREFIX + key);
    if (v == null) {
      throw new InvalidInputException(PREFIX + key, null, "missing from the job specification");
    }
    return v.trim();
  }

  private static int intOf(Properties p, String key) {
    String v = get(p, key);
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new InvalidInputException(PREFIX + key, v, "not a whole number");
    }
  }

  private static long longOf(Properties p, String key) {
    String v = get(p, key);
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new InvalidInputException(PREFIX + key, v, "not a whole number");
    }
  }

  private static double doubleOf(Properties p, String key) {
    String v = get(p, key);
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new InvalidInputException(PREFIX + key, v, "not a number");
    }
  }
}
