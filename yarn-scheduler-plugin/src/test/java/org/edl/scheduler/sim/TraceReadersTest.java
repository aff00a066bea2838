package org.edl.scheduler.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceReadersTest {
  @TempDir
  Path dir;

  @Test
  void readsTheCsvSortedBySubmissionWithAnOptionalModelColumn() throws Exception {
    Path f = write("t.csv", "timestamp,duration,num_gpus,gpu_time,cluster,application\n"
        + "2017-10-09 07:01:55,66.0,1,66.0,11cb48,bert\n"
        + "2017-10-09 06:13:03,2951.0,4,11804.0,6214e9,\n\n");
    Trace t = TraceReaders.read(f, false);
    assertEquals(2, t.jobs().size());
    TraceJob first = t.jobs().get(0);
    assertEquals(4, first.gpus());
    assertEquals("6214e9", first.user());
    assertNull(first.model());
    assertEquals(0, first.id());
    assertEquals("bert", t.jobs().get(1).model());
    assertEquals(first.submitEpochS() + 48 * 60 + 52, t.jobs().get(1).submitEpochS());
  }

  @Test
  void aGzippedTraceReadsAsThePlainOneAndTheShippedTraceIsWhole() throws Exception {
    String text = "timestamp,duration,num_gpus,gpu_time,cluster\n"
        + "2017-10-09 07:01:55,66.0,1,66.0,a\n2017-10-09 06:13:03,2951.0,4,11804.0,b\n";
    Path gz = dir.resolve("t.csv.gz");
    try (java.io.OutputStream out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    assertEquals(TraceReaders.read(write("t.csv", text), false).jobs(), TraceReaders.read(gz, false).jobs());
    Path shipped = Path.of(System.getProperty("edl.trace", "../data/traces/philly-jobs.csv.gz"));
    assertEquals(82_247, TraceReaders.read(shipped, false).jobs().size(), "the repository's Philly trace");
  }

  @Test
  void aBadCsvLineNamesFileLineFieldAndValue() throws Exception {
    Path f = write("bad.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n"
        + "2017-10-09 07:01:55,66.0,1,66.0,a\n"
        + "2017-10-09 07:01:55,66.0,two,66.0,a\n");
    TraceFormatException e = assertThrows(TraceFormatException.class, () -> TraceReaders.read(f, false));
    assertTrue(e.getMessage().contains(f + ":3"), e.getMessage());
    assertEquals("num_gpus", e.field());
    assertEquals("two", e.value());
  }

  @Test
  void skipBadGoesOnAndCountsTheSkippedLines() throws Exception {
    Path f = write("bad.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n"
        + "2017-10-09 07:01:55,66.0,1,66.0,a\n"
        + "2017-13-09 07:01:55,66.0,1,66.0,a\n"
        + "2017-10-09 07:01:55,-1,1,66.0,a\n"
        + "2017-10-09 07:01:55,5,0,0,a\n"
        + "2017-10-09 07:01:56,5,2,10,b\n");
    TraceFormatException e = assertThrows(TraceFormatException.class, () -> TraceReaders.read(f, false));
    assertEquals("timestamp", e.field());
    assertEquals("2017-13-09 07:01:55", e.value());
    Trace t = TraceReaders.read(f, true);
    assertEquals(2, t.jobs().size());
    assertEquals(3, t.skipped());
  }

  @Test
  void readsPhillyClusterJobLogJson() throws Exception {
    Path f = write("cluster_job_log", "[\n"
        + " {\"status\": \"Pass\", \"vc\": \"6214e9\", \"jobid\": \"application_1\", \"user\": \"u1\",\n"
        + "  \"submitted_time\": \"2017-10-03 02:45:21\",\n"
        + "  \"attempts\": [\n"
        + "   {\"start_time\": \"2017-10-03 02:45:30\", \"end_time\": \"2017-10-03 02:46:30\",\n"
        + "    \"detail\": [{\"ip\": \"m1\", \"gpus\": [\"gpu0\"]}]},\n"
        + "   {\"start_time\": \"2017-10-03 03:00:00\", \"end_time\": \"2017-10-03 03:10:00\",\n"
        + "    \"detail\": [{\"ip\": \"m1\", \"gpus\": [\"gpu0\", \"gpu1\"]}, {\"ip\": \"m2\", \"gpus\": [\"gpu3\", \"gpu4\"]}]}]},\n"
        + " {\"status\": \"Killed\", \"vc\": \"11cb48\", \"jobid\": \"application_2\", \"user\": \"u2\",\n"
        + "  \"submitted_time\": \"2017-10-03 01:00:00\", \"attempts\": []}\n"
        + "]\n");
    Trace t = TraceReaders.read(f, false);
    assertEquals(1, t.jobs().size());
    assertEquals(1, t.notRun());
    TraceJob j = t.jobs().get(0);
    assertEquals(4, j.gpus());
    assertEquals(660.0, j.durationS());
    assertEquals("6214e9", j.user());
  }

  @Test
  void aBadJobLogRecordNamesItsLine() throws Exception {
    Path f = write("log.json", "[\n"
        + " {\"vc\": \"a\", \"submitted_time\": \"2017-10-03 02:45:21\", \"attempts\": []},\n"
        + " {\"vc\": \"a\", \"submitted_time\": \"yesterday\", \"attempts\": []}\n"
        + "]\n");
    TraceFormatException e = assertThrows(TraceFormatException.class, () -> TraceReaders.read(f, false));
    assertTrue(e.getMessage().startsWith(f + ":3: field 'submitted_time' = 'yesterday'"), e.getMessage());
    assertEquals(1, TraceReaders.read(f, true).skipped());
  }

  @Test
  void malformedJsonNamesTheLineAndTheField() throws Exception {
    Path f = write("broken.json", "[\n"
        + " {\"vc\": \"a\", \"submitted_time\": \"2017-10-03 02:45:21\", \"attempts\": []},\n"
        + " {\"vc\": \"a\",\n"
        + "  \"submitted_time\": 2017-10-03}\n"
        + "]\n");
    TraceFormatException e = assertThrows(TraceFormatException.class, () -> TraceReaders.read(f, true));
    assertTrue(e.getMessage().startsWith(f + ":4: field 'submitted_time'"), e.getMessage());
    assertTrue(e.getMessage().contains("malformed JSON"), e.getMessage());
    Path trailing = write("trailing.json", "[]\n]\n");
    TraceFormatException t = assertThrows(TraceFormatException.class, () -> TraceReaders.read(trailing, false));
    assertTrue(t.getMessage().startsWith(trailing + ":2: "), t.getMessage());
  }

  @Test
  void throughputModelFollowsTheProfilesAndInterpolates() throws Exception {
    Path profiles = SimTestData.profiles();
    var models = ThroughputModel.readAll(profiles, 256);
    assertEquals(6, models.size());
    ThroughputModel imagenet = models.get("imagenet");
    // README of the data: at batch 200, 1 GPU 216.6, 4: 796.0, 16: 3058.5 samples/s.
    assertEquals(796.0 / 216.6, imagenet.speedup(4), 0.05);
    assertEquals(3058.5 / 216.6, imagenet.speedup(16), 0.2);
    double s16 = imagenet.speedup(16);
    double s20 = imagenet.speedup(20);
    double s18 = imagenet.speedup(18);
    assertEquals((s16 + s20) / 2, s18, 1e-9);
    assertEquals(imagenet.speedup(64) * 2, imagenet.speedup(128), 1e-9);
    assertEquals("144", ThroughputModel.consolidated(9));
  }

  private Path write(String name, String text) throws Exception {
    Path f = dir.resolve(name);
    Files.writeString(f, text);
    return f;
  }
}
