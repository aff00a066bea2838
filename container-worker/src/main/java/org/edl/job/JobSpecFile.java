package org.edl.job;

import java.util.Locale;
import java.util.Properties;

/**
 * {@code job.properties}: a {@link JobSpec} as the client writes it into the job's staging
 * directory and the AM and every worker read it. Keys are the command line's flags under
 * {@code edl.job.}; a key added later takes its old behaviour when a file written before it lacks
 * it, so a job staged by an older client still runs. An error names the key and the value.
 */
final class JobSpecFile {
  static final String PREFIX = "edl.job.";

  private JobSpecFile() {}

  static Properties toProperties(JobSpec s) {
    Properties p = new Properties();
    p.setProperty(PREFIX + "name", s.name());
    p.setProperty(PREFIX + "model", s.training().model());
    p.setProperty(PREFIX + "data", s.data().source());
    p.setProperty(PREFIX + "format", s.data().format());
    p.setProperty(PREFIX + "data-cache", s.data().cache());
    p.setProperty(PREFIX + "workers", Integer.toString(s.scale().workers()));
    p.setProperty(PREFIX + "min-workers", Integer.toString(s.scale().minWorkers()));
    p.setProperty(PREFIX + "max-workers", Integer.toString(s.scale().maxWorkers()));
    p.setProperty(PREFIX + "gather-ms", Long.toString(s.scale().gatherMs()));
    p.setProperty(PREFIX + "grow", Boolean.toString(s.growth().enabled()));
    p.setProperty(PREFIX + "grow-efficiency", s.growth().efficiencyText());
    p.setProperty(PREFIX + "grow-hold-off-ms", Long.toString(s.growth().holdOffMs()));
    p.setProperty(PREFIX + "grow-mode", s.growth().modeText());
    p.setProperty(PREFIX + "gpus-per-worker", Integer.toString(s.resources().gpusPerWorker()));
    p.setProperty(PREFIX + "worker-memory", Integer.toString(s.resources().memoryMb()));
    p.setProperty(PREFIX + "worker-vcores", Integer.toString(s.resources().vcores()));
    p.setProperty(PREFIX + "steps", Long.toString(s.training().steps()));
    p.setProperty(PREFIX + "batch-size", Integer.toString(s.training().batchSize()));
    p.setProperty(PREFIX + "batch-rule", s.training().batchRule().name().toLowerCase(Locale.ROOT).replace('_', '-'));
    p.setProperty(PREFIX + "learning-rate", Double.toString(s.training().learningRate()));
    p.setProperty(PREFIX + "hidden", Integer.toString(s.training().hidden()));
    p.setProperty(PREFIX + "seed", Long.toString(s.training().seed()));
    p.setProperty(PREFIX + "backend", s.training().backend());
    p.setProperty(PREFIX + "emulated-sync", s.training().profileSync() ? JobSpec.EMULATED_SYNC_PROFILE : JobSpec.EMULATED_SYNC_TRANSFER);
    p.setProperty(PREFIX + "output", s.output());
    p.setProperty(PREFIX + "queue", s.queue());
    p.setProperty(PREFIX + "checkpoint-every-batches", Long.toString(s.checkpoints().everyBatches()));
    p.setProperty(PREFIX + "checkpoint-every-minutes", Integer.toString(s.checkpoints().everyMinutes()));
    p.setProperty(PREFIX + "checkpoints-kept", Integer.toString(s.checkpoints().kept()));
    p.setProperty(PREFIX + "resume-from", s.checkpoints().resumeFrom());
    p.setProperty(PREFIX + "straggler-factor", Double.toString(s.stragglers().factor()));
    p.setProperty(PREFIX + "straggler-batches", Integer.toString(s.stragglers().batches()));
    p.setProperty(PREFIX + "replace-stragglers", Boolean.toString(s.stragglers().replace()));
    p.setProperty(PREFIX + "recovery", s.recovery().mode().flag());
    p.setProperty(PREFIX + "sync-timeout-ms", Long.toString(s.recovery().syncTimeoutMs()));
    p.setProperty(PREFIX + "max-worker-failures", Integer.toString(s.recovery().maxWorkerFailures()));
    s.script().write(p, PREFIX);
    p.setProperty(PREFIX + "timeline", Boolean.toString(s.timeline()));
    p.setProperty(PREFIX + "ring-transport", s.ringTransport());
    return p;
  }

  /** Reads what {@link #toProperties} wrote (keys added later take their defaults when absent). */
  static JobSpec fromProperties(Properties p) {
    // Parsed in the order of the file's keys, so a file with several mistakes names the same first one.
    return JobSpec.builder()
        .name(get(p, "name")).model(get(p, "model")).data(get(p, "data")).format(get(p, "format"))
        .workers(intOf(p, "workers")).minWorkers(intOf(p, "min-workers")).maxWorkers(intOf(p, "max-workers"))
        .gpusPerWorker(intOf(p, "gpus-per-worker")).workerMemoryMb(intOf(p, "worker-memory"))
        .workerVcores(intOf(p, "worker-vcores"))
        .steps(longOf(p, "steps")).batchSize(intOf(p, "batch-size")).batchRule(JobSpec.batchRuleOf(get(p, "batch-rule")))
        .learningRate(doubleOf(p, "learning-rate")).hidden(intOf(p, "hidden")).seed(longOf(p, "seed"))
        .backend(get(p, "backend")).output(p.getProperty(PREFIX + "output", ""))
        // Absent in a job file written before binary copies of the data: every worker parses.
        .dataCache(p.getProperty(PREFIX + "data-cache", ""))
        // Absent in a job file written before the stand-in: the real transfer.
        .profileSync(JobSpec.emulatedSyncOf(p.getProperty(PREFIX + "emulated-sync", JobSpec.EMULATED_SYNC_TRANSFER)))
        .queue(p.getProperty(PREFIX + "queue", ""))
        // Absent in a job file written before periodic checkpoints: the defaults.
        .checkpoints(
            p.containsKey(PREFIX + "checkpoint-every-batches") ? longOf(p, "checkpoint-every-batches")
                : JobSpec.DEFAULT_CHECKPOINT_EVERY_BATCHES,
            p.containsKey(PREFIX + "checkpoint-every-minutes") ? intOf(p, "checkpoint-every-minutes")
                : JobSpec.DEFAULT_CHECKPOINT_EVERY_MINUTES,
            p.containsKey(PREFIX + "checkpoints-kept") ? intOf(p, "checkpoints-kept") : JobSpec.DEFAULT_CHECKPOINTS_KEPT)
        .resumeFrom(p.getProperty(PREFIX + "resume-from", "").trim())
        // Absent in a job file written before the first ring could start at the minimum: wait for all.
        .gatherMs(p.containsKey(PREFIX + "gather-ms") ? longOf(p, "gather-ms") : Scale.WAIT_FOR_ALL)
        // Absent in a job file written before jobs grew by themselves: no growth.
        .growth(new Growth(Boolean.parseBoolean(p.getProperty(PREFIX + "grow", "false").trim()),
            Growth.efficiencyOf(p.getProperty(PREFIX + "grow-efficiency", Double.toString(Growth.DEFAULT_EFFICIENCY))),
            p.containsKey(PREFIX + "grow-hold-off-ms") ? longOf(p, "grow-hold-off-ms") : Growth.DEFAULT_HOLD_OFF_MS,
            Growth.modeOf(p.getProperty(PREFIX + "grow-mode", "edl"))))
        .stragglers(
            p.containsKey(PREFIX + "straggler-factor") ? doubleOf(p, "straggler-factor") : 0,
            p.containsKey(PREFIX + "straggler-batches") ? intOf(p, "straggler-batches") : 0,
            Boolean.parseBoolean(p.getProperty(PREFIX + "replace-stragglers", "false").trim()))
        // Absent in a job file written before failure recovery: the defaults.
        .recovery(new Recovery(
            Recovery.modeOf(p.getProperty(PREFIX + "recovery", Recovery.Mode.CONSISTENT.flag())),
            p.containsKey(PREFIX + "sync-timeout-ms") ? longOf(p, "sync-timeout-ms") : 0,
            p.containsKey(PREFIX + "max-worker-failures") ? intOf(p, "max-worker-failures")
                : Recovery.DEFAULT_MAX_WORKER_FAILURES))
        .script(Script.read(p, PREFIX))
        // Absent in a job file written before timelines were asked for: every worker wrote one.
        .timeline(Boolean.parseBoolean(p.getProperty(PREFIX + "timeline", "true").trim()))
        .ringTransport(p.getProperty(PREFIX + "ring-transport", JobSpec.RING_TRANSPORT_AUTO).trim())
        .build();
  }

  private static String get(Properties p, String key) {
    String v = p.getProperty(PREFIX + key);
    if (v == null) {
      throw new InvalidInputException(PREFIX + key, null, "missing from the job specification");
    }
    return v.trim();
  }

  private static int intOf(Properties p, String key) {
    return parsed(p, key, Integer::parseInt, "not a whole number");
  }

  private static long longOf(Properties p, String key) {
    return parsed(p, key, Long::parseLong, "not a whole number");
  }

  private static double doubleOf(Properties p, String key) {
    return parsed(p, key, Double::parseDouble, "not a number");
  }

  /** The key's value as {@code parse} reads it; a value it refuses is named with {@code what} it is not. */
  private static <T> T parsed(Properties p, String key, java.util.function.Function<String, T> parse, String what) {
    String v = get(p, key);
    try {
      return parse.apply(v);
    } catch (NumberFormatException e) {
      throw new InvalidInputException(PREFIX + key, v, what);
    }
  }
}
