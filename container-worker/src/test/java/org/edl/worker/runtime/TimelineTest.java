package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimelineTest {
  @Test
  void recordsEachBatchWithItsStartAndEndAndWritesOneCsvPerWorker(@TempDir Path dir) throws Exception {
    AtomicLong now = new AtomicLong(1_000);
    Timeline t = new Timeline(now::get);
    t.registered("w1", true);
    t.beforeBatch("w1", 7);
    now.addAndGet(40);
    t.batchTrained("w1", 7, null, new int[0]);
    t.ended(8, "left");

    org.apache.hadoop.fs.Path file = t.write(dir.toUri().toString(), "container_1", new Configuration());
    List<String> lines = Files.readAllLines(Path.of(file.toUri()));
    assertEquals(Timeline.HEADER, lines.get(0));
    assertTrue(lines.get(1).startsWith("process,-1,"), lines.get(1));
    assertEquals("registered,-1,1000,1000,newcomer", lines.get(2));
    assertEquals("batch,7,1000,1040,", lines.get(3));
    assertEquals("end,8,1040,1040,left", lines.get(4));
    assertTrue(file.toString().endsWith("timeline/container_1.csv"), file.toString());
  }
}
