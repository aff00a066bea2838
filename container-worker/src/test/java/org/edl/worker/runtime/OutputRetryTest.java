package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.fs.Path;
import org.edl.job.ModelOutput;
import org.junit.jupiter.api.Test;

/** The leader's final write, tried again after I/O failures while it still leads; never when superseded. */
class OutputRetryTest {
  private static final ModelOutput.Written WRITTEN =
      new ModelOutput.Written(new Path("hdfs:///out/model.bin"), new Path("hdfs:///out/metrics.json"));
  private static final List<Duration> PAUSES = List.of(Duration.ofSeconds(5), Duration.ofSeconds(15));

  private final List<Duration> slept = new ArrayList<>();
  private final OutputRetry retry = new OutputRetry(PAUSES, slept::add);
  private final AtomicInteger tries = new AtomicInteger();

  /** Fails with {@code failure} the first {@code failures} times. */
  private OutputRetry.Write failing(int failures, IOException failure) {
    return () -> {
      if (tries.incrementAndGet() <= failures) {
        throw failure;
      }
      return WRITTEN;
    };
  }

  @Test
  void aWriteThatFailsTwiceIsWrittenAtTheThirdTryAfterEachPause() throws Exception {
    assertSame(WRITTEN, retry.write(failing(2, new IOException("Unable to create new block.")), () -> true));
    assertEquals(3, tries.get());
    assertEquals(PAUSES, slept);
  }

  @Test
  void aWriteThatKeepsFailingFailsWithItsLastErrorOnceThePausesAreSpent() {
    IOException e = assertThrows(IOException.class,
        () -> retry.write(failing(9, new IOException("Unable to create new block.")), () -> true));
    assertEquals("Unable to create new block.", e.getMessage());
    assertEquals(3, tries.get());
  }

  @Test
  void aSupersededLeadershipIsNeverTriedAgain() {
    assertThrows(ModelOutput.Superseded.class,
        () -> retry.write(failing(1, new ModelOutput.Superseded("leader epoch 1 is not the newest")), () -> true));
    assertEquals(1, tries.get());
    assertEquals(List.of(), slept);
  }

  @Test
  void aLeaderThatNoLongerLeadsDoesNotTryAgain() {
    assertThrows(IOException.class, () -> retry.write(failing(1, new IOException("gone")), () -> false));
    assertEquals(1, tries.get());
  }
}
