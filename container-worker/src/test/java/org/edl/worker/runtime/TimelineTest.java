package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.edl.worker.data.BatchSlicer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimelineTest {
  @Test
  void recordsEachBatchWithItsStartAndEndAndWritesOneCsvPerWorker(@TempDir Path dir) throws Exception {
    AtomicLong now = new AtomicLong(1_000);
    try (Timeline t = new Timeline(now::get, dir.resolve("spill.csv"))) {
      t.registered("w1", true);
      t.beforeBatch("w1", 7);
      now.addAndGet(40);
      t.batchTrained("w1", 7, new BatchSlicer.Range(10, 14), new int[4]);
      t.ended(8, "left", new float[] {1f, -2.5f});

      org.apache.hadoop.fs.Path file = t.write(dir.toUri().toString(), "container_1", new Configuration());
      List<String> lines = Files.readAllLines(Path.of(file.toUri()));
      assertEquals(Timeline.HEADER, lines.get(0));
      assertTrue(lines.get(1).startsWith("process,-1,"), lines.get(1));
      assertEquals("registered,-1,1000,1000,newcomer", lines.get(2));
      assertEquals("batch,7,1000,1040,", lines.get(3));
      assertEquals("end,8,1040,1040,left", lines.get(4));
      assertEquals("trained,8,1040,1040,positions=4 fingerprint="
          + Long.toHexString(Timeline.Coverage.of(10, 14).fingerprint()) + " parameters="
          + Long.toHexString(Timeline.crc32(new float[] {1f, -2.5f})), lines.get(5));
      assertTrue(file.toString().endsWith("timeline/container_1.csv"), file.toString());
      assertEquals(lines, t.rows());
    }
  }

  @Test
  void coverageOfWorkersThatSplitEachBatchEqualsTheWholeRangeAndARepeatShowsEvenWithTheSameCount() {
    Timeline.Coverage a = Timeline.Coverage.of(0, 3).plus(Timeline.Coverage.of(6, 9));
    Timeline.Coverage b = Timeline.Coverage.of(3, 6).plus(Timeline.Coverage.of(9, 12));
    assertEquals(Timeline.Coverage.of(0, 12), a.plus(b));
    // Position 5 trained twice and 11 never: the same count, another fingerprint.
    Timeline.Coverage wrong = a.plus(Timeline.Coverage.of(3, 6)).plus(Timeline.Coverage.of(9, 11))
        .plus(Timeline.Coverage.of(5, 6));
    assertEquals(12, wrong.positions());
    assertNotEquals(Timeline.Coverage.of(0, 12).fingerprint(), wrong.fingerprint());
  }

  @Test
  void parameterChecksumSeesOneFlippedBit() {
    float[] p = new float[5000];
    for (int i = 0; i < p.length; i++) {
      p[i] = i * 0.5f;
    }
    long before = Timeline.crc32(p);
    p[4321] = Float.intBitsToFloat(Float.floatToRawIntBits(p[4321]) ^ 1);
    assertNotEquals(before, Timeline.crc32(p));
  }
}
