package org.edl.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * What a finished job left in its output directory: the sizes of {@code model.bin} and
 * {@code metrics.json} and the metrics themselves. The file names are the job's documented
 * contract with its users, named here rather than taken from the worker's code, which is being
 * reworked.
 *
 * @param modelBytes   size of model.bin; -1 if it is not there
 * @param metricsBytes size of metrics.json; -1 if it is not there
 * @param metrics      metrics.json parsed; null if it is not there or not JSON
 * @param problem      why something could not be read, or the model does not verify against the
 *                     length and checksum metrics.json names; empty if all is well
 */
public record JobOutput(long modelBytes, long metricsBytes, JsonNode metrics, String problem) {
  static final String MODEL_FILE = "model.bin";
  static final String METRICS_FILE = "metrics.json";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** As {@link #read(Configuration, String)}, and checks the model against metrics.json for {@code steps}. */
  public static JobOutput read(Configuration conf, String outputDir, long steps) {
    JobOutput o = read(conf, outputDir);
    if (!o.problem().isEmpty() || o.modelBytes() < 0 || o.metricsBytes() < 0) {
      return o;
    }
    return org.edl.job.ModelOutput.verify(conf, outputDir, steps)
        .map(p -> new JobOutput(o.modelBytes(), o.metricsBytes(), o.metrics(), p)).orElse(o);
  }

  /** Reads the output directory; never throws for what is missing, only says so in {@link #problem}. */
  public static JobOutput read(Configuration conf, String outputDir) {
    StringBuilder problem = new StringBuilder();
    long model = -1;
    long metricsLength = -1;
    JsonNode metrics = null;
    try {
      Path dir = new Path(outputDir);
      FileSystem fs = dir.getFileSystem(conf);
      model = length(fs, new Path(dir, MODEL_FILE));
      Path metricsPath = new Path(dir, METRICS_FILE);
      metricsLength = length(fs, metricsPath);
      if (metricsLength > 0) {
        try (InputStream in = fs.open(metricsPath)) {
          metrics = JSON.readTree(in);
        } catch (IOException e) {
          problem.append(METRICS_FILE).append(" is not JSON: ").append(e.getMessage());
        }
      }
    } catch (IOException e) {
      problem.append("cannot read ").append(outputDir).append(": ").append(e.getMessage());
    }
    return new JobOutput(model, metricsLength, metrics, problem.toString());
  }

  /** A whole-number field of metrics.json, such as {@code steps} or {@code samples_seen}. */
  public OptionalLong metric(String field) {
    if (metrics == null || !metrics.hasNonNull(field) || !metrics.get(field).canConvertToLong()) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(metrics.get(field).asLong());
  }

  private static long length(FileSystem fs, Path p) throws IOException {
    try {
      return fs.getFileStatus(p).getLen();
    } catch (FileNotFoundException e) {
      return -1;
    }
  }
}
