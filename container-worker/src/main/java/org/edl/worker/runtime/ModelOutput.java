package org.edl.worker.runtime;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.edl.worker.model.TrainableModel;

/**
 * Writes the trained model ({@code model.bin}) and a small {@code metrics.json} into the job's
 * output directory through Hadoop's {@link FileSystem}: {@code hdfs://} on a cluster,
 * {@code file://} in tests. Each file is written under a temporary name and renamed, so a
 * reader never sees half a model.
 */
public final class ModelOutput {
  public static final String MODEL_FILE = "model.bin";
  public static final String METRICS_FILE = "metrics.json";

  /** The figures that go into {@code metrics.json}. */
  public record Metrics(String model, int workers, long steps, long samplesSeen, double firstLoss,
      double lastLoss, double samplesPerSecond, double wallSeconds) {

    String toJson() {
      return String.format(Locale.ROOT,
          "{%n  \"model\": \"%s\",%n  \"workers\": %d,%n  \"steps\": %d,%n  \"samples_seen\": %d,%n"
              + "  \"first_loss\": %s,%n"
              + "  \"last_loss\": %s,%n  \"samples_per_second\": %s,%n  \"wall_seconds\": %s%n}%n",
          model, workers, steps, samplesSeen, number(firstLoss), number(lastLoss), number(samplesPerSecond),
          number(wallSeconds));
    }

    private static String number(double v) {
      return Double.isFinite(v) ? String.format(Locale.ROOT, "%.6g", v) : "null";
    }
  }

  /** Where the files went. */
  public record Written(Path model, Path metrics) {}

  private ModelOutput() {}

  public static Written write(String outputDir, TrainableModel model, Metrics metrics,
      Configuration conf) throws IOException {
    Path dir = new Path(outputDir);
    FileSystem fs = dir.getFileSystem(conf);
    fs.mkdirs(dir);
    Path modelPath = new Path(dir, MODEL_FILE);
    Path metricsPath = new Path(dir, METRICS_FILE);
    writeAtomically(fs, modelPath, out -> {
      DataOutputStream data = new DataOutputStream(out);
      model.writeState(data);
      data.flush();
    });
    writeAtomically(fs, metricsPath, out -> out.write(metrics.toJson().getBytes(StandardCharsets.UTF_8)));
    return new Written(fs.makeQualified(modelPath), fs.makeQualified(metricsPath));
  }

  private interface Body {
    void write(OutputStream out) throws IOException;
  }

  private static void writeAtomically(FileSystem fs, Path target, Body body) throws IOException {
    Path tmp = new Path(target.getParent(), "." + target.getName() + ".tmp");
    try (FSDataOutputStream out = fs.create(tmp, true)) {
      body.write(out);
    }
    if (fs.exists(target)) {
      fs.delete(target, false);
    }
    if (!fs.rename(tmp, target)) {
      throw new IOException("could not rename " + tmp + " to " + target);
    }
  }
}
