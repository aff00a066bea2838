package org.edl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.edl.job.ModelOutput;
import org.edl.testing.YarnCluster;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.checkpoint.CheckpointDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Periodic checkpoints through {@code edl submit} on the embedded cluster (real AM, worker
 * containers, HDFS, ZooKeeper): they appear under the job's output directory and
 * {@code edl checkpoints <appId>} lists them; {@code edl submit --resume-from} starts a new job
 * from one, and a bad or incompatible location is refused at submission.
 */
class CheckpointsEndToEndTest {
  private static final Pattern APP_ID = Pattern.compile("application_\\d+_\\d+");
  private static final String DATA = "synthetic:samples=1024,features=8,classes=3,seed=5";
  @RegisterExtension
  static final YarnCluster CLUSTER = new YarnCluster();

  @Test
  void aJobWritesPeriodicCheckpointsTheyAreListedAndANewJobResumesFromThem() throws Exception {
    Result first = edl(submit("--steps", "60", "--checkpoint-every-batches", "10", "--checkpoints-kept", "2"));
    assertEquals(0, first.code, first.out + first.err);
    String appId = appIdIn(first.out);
    Path output = CLUSTER.home("edl/" + appId);

    // The staging directory is gone once the job ended: the default output directory is found.
    Result listed = edl("checkpoints", "--conf", CLUSTER.cluster().confDir().toString(), appId);
    assertEquals(0, listed.code, listed.out + listed.err);
    List<String> rows = listed.out.lines().filter(l -> l.matches("^\\d+ .*")).toList();
    assertTrue(!rows.isEmpty() && rows.size() <= 2, "at least one, at most the 2 kept: " + listed.out);
    for (String row : rows) {
      assertTrue(row.matches("^\\d+ .* 2 +yes +" + Pattern.quote(output.toString()) + "/checkpoints/periodic/ckpt-\\d{20}$"),
          row);
    }
    Path newest = new Path(rows.get(0).substring(rows.get(0).lastIndexOf(' ') + 1));

    Result resumed = edl(submit("--steps", "80", "--resume-from", output + "/checkpoints/periodic",
        "--checkpoint-every-batches", "0", "--checkpoint-every-minutes", "0"));
    assertEquals(0, resumed.code, resumed.out + resumed.err);
    assertTrue(resumed.out.contains("Resuming from checkpoint " + newest), "pinned to the newest: " + resumed.out);
    // After that line: the checkpoint's path names the first job's application.
    String second = appIdIn(resumed.out.substring(resumed.out.indexOf('\n', resumed.out.indexOf("Resuming"))));
    assertFalse(second.equals(appId), second);
    ApplicationReport report = CLUSTER.yarn().getApplicationReport(org.apache.hadoop.yarn.api.records.ApplicationId
        .fromString(second));
    assertEquals("SUCCEEDED", report.getFinalApplicationStatus().name(), report.getDiagnostics());
    // The same seed from scratch would start with the first job's first loss; from the
    // checkpoint it starts where the first job had trained to.
    double fresh = ModelOutput.readMetrics(CLUSTER.configuration(), output.toString()).firstLoss();
    Path secondOutput = CLUSTER.home("edl/" + second);
    double restored = ModelOutput.readMetrics(CLUSTER.configuration(), secondOutput.toString()).firstLoss();
    assertTrue(restored < fresh, "first loss " + restored + " resumed vs " + fresh + " from scratch");
    assertFalse(CLUSTER.fileSystem().exists(new Path(secondOutput, "checkpoints/periodic")), "0 and 0: no periodic checkpoints");

    int apps = CLUSTER.yarn().getApplications().size();
    Result missing = edl(submit("--steps", "80", "--resume-from", "/no/such/checkpoints"));
    assertUserError(missing, "resume-from=/no/such/checkpoints", "does not exist");
    Result incompatible = edl(submit("--steps", "80", "--seed", "2", "--resume-from", newest.toString()));
    assertUserError(incompatible, "resume-from=" + newest, "seed 1 vs 2");
    Result done = edl(submit("--steps", "5", "--resume-from", newest.toString()));
    assertUserError(done, "resume-from=" + newest, "steps=5");
    assertEquals(apps, CLUSTER.yarn().getApplications().size(), "a refused --resume-from submits nothing");
    assertTrue(CheckpointDirectory.list(CLUSTER.configuration(), output + "/checkpoints/periodic").contains(newest));
  }

  private static void assertUserError(Result r, String... fragments) {
    assertEquals(EdlCli.USAGE, r.code, r.out + r.err);
    String line = r.err.strip();
    assertTrue(line.startsWith("edl: ") && !line.contains("\n"), line);
    for (String f : fragments) {
      assertTrue(line.contains(f), "'" + f + "' in: " + line);
    }
  }

  private static String[] submit(String... extra) {
    List<String> a = new ArrayList<>(List.of("submit", "--conf", CLUSTER.cluster().confDir().toString(),
        "--worker-memory", "512", "--gpus-per-worker", "1", "--model", "softmax", "--workers", "2",
        "--data", DATA, "--batch-size", "64", "--learning-rate", "0.2"));
    a.addAll(List.of(extra));
    return a.toArray(String[]::new);
  }

  private record Result(int code, String out, String err) {}

  private static Result edl(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = EdlCli.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static String appIdIn(String text) {
    Matcher m = APP_ID.matcher(text);
    assertTrue(m.find(), "an application id in: " + text);
    return m.group();
  }

  private static String read(Path p) throws Exception {
    try (InputStream in = CLUSTER.fileSystem().open(p)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

}
