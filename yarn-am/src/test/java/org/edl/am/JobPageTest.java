package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.edl.thrift.JobProgress;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.edl.thrift.WorkerPlacement;
import org.edl.worker.checkpoint.CheckpointCatalog;
import org.junit.jupiter.api.Test;

/** What the job page renders from a status (the HTTP side is checked end to end through the RM's proxy). */
class JobPageTest {
  private static JobStatus status() {
    JobProgress p = new JobProgress(1200, 5000, 0.5, 2310.0, 2);
    p.setMembers(List.of("c2", "c3"));
    p.setEvents(List.of("removed straggler <c4>"));
    JobStatus s = new JobStatus("application_1_0001", JobState.RUNNING, 3, List.of("c2", "c3", "c5"));
    s.setProgress(p);
    s.setMinWorkers(2);
    s.setMaxWorkers(4);
    s.setDiagnostics("grew into an idle GPU: c5 on <h1> joins as worker 3");
    s.setPlacements(List.of(new WorkerPlacement("c2", "node1", List.of(0)), new WorkerPlacement("c3", "node1", List.of(1)),
        new WorkerPlacement("c5", "node2", List.of(0, 1))));
    return s;
  }

  private static final List<CheckpointCatalog.Entry> CHECKPOINTS = List.of(new CheckpointCatalog.Entry(
      new org.apache.hadoop.fs.Path("hdfs://nn/out/checkpoints/ckpt-00000000000000001000"), java.util.Optional.empty(),
      3 * 1024 * 1024, java.time.Instant.parse("2026-12-04T10:00:00Z"), java.util.Optional.of("no <marker>")));

  @Test
  void thePageShowsTheStatusAndEscapesWhatItQuotes() {
    String html = JobPage.html(status(), List.of(new JobPage.Sample(0, 2, 3)), CHECKPOINTS, "");
    assertTrue(html.contains("<h1>EDL job application_1_0001</h1>"), html);
    assertTrue(html.contains("target 3 (min 2, max 4), 3 containers"), html);
    assertTrue(html.contains("step 1200/5000"), html);
    assertTrue(html.contains("<tr><td>c5</td><td>node2</td><td>0, 1</td><td>no</td></tr>"),
        "c5 has not joined the ring yet: " + html);
    assertTrue(html.contains("<tr><td>c2</td><td>node1</td><td>0</td><td>yes</td></tr>"), html);
    assertTrue(html.contains("<td>hdfs://nn/out/checkpoints/ckpt-00000000000000001000 (no &lt;marker&gt;)</td>")
        && html.contains("<td>3.0 MiB</td>"), html);
    assertTrue(html.contains("removed straggler &lt;c4&gt;") && html.contains("on &lt;h1&gt;"), html);
    assertFalse(html.contains("<c4>") || html.contains("<h1>h1"), html);
    assertTrue(html.contains("src=\"size.png\""), html);
    String empty = JobPage.html(status(), List.of(), List.of(), "could not list the checkpoints: gone");
    assertFalse(empty.contains("size.png"), "no chart before the first sample");
    assertTrue(empty.contains("<p id=\"checkpoints\">None yet.</p>") && empty.contains("could not list the checkpoints: gone"),
        empty);
  }

  @Test
  void jsonAndChartAreTheirOwnFormats() throws Exception {
    String json = new String(JobPage.json(status()), StandardCharsets.UTF_8);
    assertTrue(json.startsWith("{") && json.contains("\"appId\":\"application_1_0001\"") && json.contains("\"step\":1200"),
        json);
    byte[] png = JobPage.chart(List.of(new JobPage.Sample(0, 2, 2), new JobPage.Sample(2000, 2, 3),
        new JobPage.Sample(4000, 3, 3)));
    assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G'}, Arrays.copyOf(png, 4));
    assertEquals(JobPage.SAMPLE_MS * JobPage.SAMPLES, 2 * 3600 * 1000, "two hours of samples");
  }
}
