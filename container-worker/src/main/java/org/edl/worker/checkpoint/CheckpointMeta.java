package org.edl.worker.checkpoint;

import java.io.IOException;
import java.io.StringReader;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;
import org.edl.job.JobSpec;
import org.edl.job.rpc.WireEnums;
import org.edl.job.BatchRule;
import org.edl.thrift.JobMeta;
import org.edl.worker.coord.JobPosition;
import org.edl.worker.model.IncompatibleStateException;

/**
 * Where a job stood when a checkpoint was taken, and which job it was: everything besides the
 * parameters that a restarted job needs to go on from the next step without repeating or
 * skipping a sample. Stored as {@value Checkpoint#META_FILE} (a properties file, readable with
 * any editor).
 *
 * <p>The sample order is a pure function of {@code seed} and {@code epochSize}
 * ({@link org.edl.worker.data.EpochOrder}), so the seed and the cursor are the whole random
 * state of the data pipeline; plain SGD keeps no other.
 *
 * @param nextStep         the step the restarted job runs first (steps before it are done)
 * @param epoch            epoch of the sample cursor
 * @param finishedChunks   chunks of {@code batchSize} positions of that epoch already trained
 * @param samplesSeen      the sample cursor: global position where batch {@code nextStep} starts
 * @param batchRule        how the global batch and learning rate follow the worker count
 * @param batchSize        global or per-worker batch, per the rule
 * @param baseLearningRate learning rate before the per-worker rule scales it
 * @param lastLoss         mean loss of the last completed step; NaN when unknown
 * @param workers          ring size when the checkpoint was taken
 * @param model            model name ({@link org.edl.worker.model.TrainableModel#name()})
 * @param parameterCount   length of the flat parameter vector
 * @param epochSize        samples in the data set (one epoch)
 * @param seed             seed of initialisation and sample order
 * @param writtenAt        wall time of the write
 * @param leaderEpoch      the leadership that wrote it (0: unknown, a checkpoint of an older build)
 */
public record CheckpointMeta(long nextStep, int epoch, List<Integer> finishedChunks, long samplesSeen,
    BatchRule batchRule, int batchSize, double baseLearningRate, double lastLoss, int workers,
    String model, int parameterCount, int epochSize, long seed, Instant writtenAt, long leaderEpoch) {

  /** Bumped when a field changes meaning; a reader refuses other versions. */
  public static final int FORMAT = 1;

  public CheckpointMeta {
    Objects.requireNonNull(batchRule, "batchRule");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(writtenAt, "writtenAt");
    finishedChunks = List.copyOf(finishedChunks);
  }

  /** Meta-data of no particular leadership (tests, tools). */
  public CheckpointMeta(long nextStep, int epoch, List<Integer> finishedChunks, long samplesSeen,
      BatchRule batchRule, int batchSize, double baseLearningRate, double lastLoss, int workers,
      String model, int parameterCount, int epochSize, long seed, Instant writtenAt) {
    this(nextStep, epoch, finishedChunks, samplesSeen, batchRule, batchSize, baseLearningRate, lastLoss, workers,
        model, parameterCount, epochSize, seed, writtenAt, 0);
  }

  /** The leader's job position at a completed step, with what identifies the job and its model. */
  public static CheckpointMeta of(JobPosition at, JobSpec spec, int workers, String model, int parameterCount,
      int epochSize, Instant writtenAt, long leaderEpoch) {
    List<Integer> chunks = new ArrayList<>();
    for (int i = 0; i < at.finishedChunks(); i++) {
      chunks.add(i);
    }
    return new CheckpointMeta(at.step(), at.dataEpoch(), chunks, at.samplesSeen(), spec.training().batchRule(),
        spec.training().batchSize(), spec.training().learningRate(), at.lastLoss(), workers, model, parameterCount,
            epochSize, spec.training().seed(),
        writtenAt, leaderEpoch);
  }

  /** The job position the checkpoint holds. */
  public JobPosition toPosition() {
    return new JobPosition(nextStep, epoch, samplesSeen, finishedChunks.size(), lastLoss);
  }

  /** The leader's meta-data at a completed step, with what identifies the job and its model. */
  public static CheckpointMeta of(JobMeta meta, int workers, String model, int parameterCount,
      int epochSize, long seed, Instant writtenAt) {
    return new CheckpointMeta(meta.getStep(), meta.getEpoch(),
        meta.isSetFinishedChunks() ? meta.getFinishedChunks() : List.of(),
        meta.isSetSamplesSeen() ? meta.getSamplesSeen() : 0, WireEnums.batchRule(meta.getBatchRule()),
        meta.getBatchSize(), meta.getBaseLearningRate(), meta.isSetLastLoss() ? meta.getLastLoss() : Double.NaN, workers,
        model, parameterCount, epochSize, seed, writtenAt);
  }

  /** The job meta-data a restored leader starts from. */
  public JobMeta toJobMeta() {
    JobMeta m = new JobMeta(nextStep, epoch, WireEnums.toWire(batchRule), batchSize, baseLearningRate);
    m.setSamplesSeen(samplesSeen);
    m.setFinishedChunks(new ArrayList<>(finishedChunks));
    if (!Double.isNaN(lastLoss)) {
      m.setLastLoss(lastLoss);
    }
    return m;
  }

  /**
   * Refuses to continue {@code spec} from this checkpoint when the two describe different
   * training: another batch rule, batch, learning rate, seed or data set size would change
   * which samples the next steps take or how they are weighted. The worker count may differ.
   */
  public void requireContinuable(JobSpec spec, int dataSamples, String where) throws IncompatibleStateException {
    List<String> diffs = new ArrayList<>();
    if (batchRule != spec.training().batchRule()) {
      diffs.add("batch-rule " + ruleText(batchRule) + " vs " + ruleText(spec.training().batchRule()));
    }
    if (batchSize != spec.training().batchSize()) {
      diffs.add("batch-size " + batchSize + " vs " + spec.training().batchSize());
    }
    if (Double.compare(baseLearningRate, spec.training().learningRate()) != 0) {
      diffs.add("learning-rate " + baseLearningRate + " vs " + spec.training().learningRate());
    }
    if (seed != spec.training().seed()) {
      diffs.add("seed " + seed + " vs " + spec.training().seed());
    }
    if (epochSize != dataSamples) {
      diffs.add("data samples " + epochSize + " vs " + dataSamples);
    }
    if (nextStep > spec.training().steps()) {
      diffs.add("next step " + nextStep + " is past the job's steps=" + spec.training().steps());
    }
    if (!diffs.isEmpty()) {
      throw new IncompatibleStateException("checkpoint " + where
          + " does not continue this job (checkpoint vs job): " + String.join("; ", diffs));
    }
  }

  String toText() {
    StringBuilder b = new StringBuilder("# EDL checkpoint meta-data\n");
    line(b, "format", Integer.toString(FORMAT));
    line(b, "model", model);
    line(b, "parameters", Integer.toString(parameterCount));
    line(b, "next-step", Long.toString(nextStep));
    line(b, "epoch", Integer.toString(epoch));
    line(b, "samples-seen", Long.toString(samplesSeen));
    line(b, "finished-chunks", rangesText(finishedChunks));
    line(b, "epoch-size", Integer.toString(epochSize));
    line(b, "seed", Long.toString(seed));
    line(b, "batch-rule", ruleText(batchRule));
    line(b, "batch-size", Integer.toString(batchSize));
    line(b, "base-learning-rate", Double.toString(baseLearningRate));
    line(b, "last-loss", Double.toString(lastLoss));
    line(b, "workers", Integer.toString(workers));
    line(b, "written-at", writtenAt.toString());
    line(b, "leader-epoch", Long.toString(leaderEpoch));
    return b.toString();
  }

  /** Parses {@link #toText()}; a missing or garbled field is an IOException naming it and {@code where}. */
  static CheckpointMeta parse(String text, String where) throws IOException {
    Properties p = new Properties();
    p.load(new StringReader(text));
    Fields f = new Fields(p, where);
    int format = f.integer("format");
    if (format != FORMAT) {
      throw new IOException(where + ": checkpoint format " + format + " is not supported (this build reads "
          + FORMAT + ")");
    }
    BatchRule rule;
    try {
      rule = JobSpec.batchRuleOf(f.text("batch-rule"));
    } catch (RuntimeException e) {
      throw new IOException(where + ": batch-rule=" + p.getProperty("batch-rule") + " is not a batch rule");
    }
    Instant at;
    try {
      at = Instant.parse(f.text("written-at"));
    } catch (DateTimeParseException e) {
      throw new IOException(where + ": written-at=" + p.getProperty("written-at") + " is not an instant");
    }
    CheckpointMeta m = new CheckpointMeta(f.longValue("next-step"), f.integer("epoch"),
        parseRanges(f.text("finished-chunks"), where), f.longValue("samples-seen"), rule,
        f.integer("batch-size"), f.number("base-learning-rate"), f.number("last-loss"),
        f.integer("workers"), f.text("model"), f.integer("parameters"), f.integer("epoch-size"),
        f.longValue("seed"), at, p.getProperty("leader-epoch") == null ? 0 : f.longValue("leader-epoch"));
    if (m.nextStep < 0 || m.samplesSeen < 0 || m.workers < 1 || m.parameterCount < 0 || m.batchSize < 1) {
      throw new IOException(where + ": impossible values (next-step " + m.nextStep + ", samples-seen "
          + m.samplesSeen + ", workers " + m.workers + ", parameters " + m.parameterCount + ", batch-size "
          + m.batchSize + ")");
    }
    return m;
  }

  private static void line(StringBuilder b, String key, String value) {
    b.append(key).append('=').append(value).append('\n');
  }

  private static String ruleText(BatchRule r) {
    return r.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** {@code 0-124,130}: the chunk list of a long epoch stays one short line. */
  static String rangesText(List<Integer> chunks) {
    List<Integer> sorted = chunks.stream().sorted().distinct().toList();
    StringBuilder b = new StringBuilder();
    int i = 0;
    while (i < sorted.size()) {
      int start = sorted.get(i);
      int end = start;
      while (i + 1 < sorted.size() && sorted.get(i + 1) == end + 1) {
        end = sorted.get(++i);
      }
      b.append(b.length() == 0 ? "" : ",").append(start);
      if (end != start) {
        b.append('-').append(end);
      }
      i++;
    }
    return b.toString();
  }

  static List<Integer> parseRanges(String text, String where) throws IOException {
    List<Integer> chunks = new ArrayList<>();
    if (text.isBlank()) {
      return chunks;
    }
    for (String part : text.split(",")) {
      String[] ends = part.trim().split("-", 2);
      try {
        int from = Integer.parseInt(ends[0].trim());
        int to = ends.length == 1 ? from : Integer.parseInt(ends[1].trim());
        if (from < 0 || to < from) {
          throw new NumberFormatException();
        }
        for (int c = from; c <= to; c++) {
          chunks.add(c);
        }
      } catch (NumberFormatException e) {
        throw new IOException(where + ": finished-chunks has a bad range '" + part + "'");
      }
    }
    return chunks;
  }

  /** Required fields of the properties, each error naming the file and the key. */
  private record Fields(Properties p, String where) {
    String text(String key) throws IOException {
      String v = p.getProperty(key);
      if (v == null) {
        throw new IOException(where + ": " + key + " is missing");
      }
      return v.trim();
    }

    int integer(String key) throws IOException {
      String v = text(key);
      try {
        return Integer.parseInt(v);
      } catch (NumberFormatException e) {
        throw new IOException(where + ": " + key + "=" + v + " is not a whole number");
      }
    }

    long longValue(String key) throws IOException {
      String v = text(key);
      try {
        return Long.parseLong(v);
      } catch (NumberFormatException e) {
        throw new IOException(where + ": " + key + "=" + v + " is not a whole number");
      }
    }

    double number(String key) throws IOException {
      String v = text(key);
      try {
        return Double.parseDouble(v);
      } catch (NumberFormatException e) {
        throw new IOException(where + ": " + key + "=" + v + " is not a number");
      }
    }
  }
}
