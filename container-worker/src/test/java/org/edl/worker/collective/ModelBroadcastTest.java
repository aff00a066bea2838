package org.edl.worker.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.edl.job.JobSecret;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelBroadcastTest {
  @TempDir
  Path shm;
  @TempDir
  Path elsewhere;

  /**
   * Whichever ends have a directory, and whether or not it is the same one (one host, or two),
   * the newcomer ends up with the sender's position and every parameter, and no segment is left.
   */
  @Test
  void theModelArrivesWholeWhateverTransportTheTwoEndsAgreeOn() throws Exception {
    Path[][] pairs = {{shm, shm}, {shm, null}, {null, shm}, {null, null}, {shm, elsewhere}};
    float[] model = new float[3 * (RingAllReduce.DEFAULT_CHUNK_BYTES / Float.BYTES) + 17];
    for (int i = 0; i < model.length; i++) {
      model[i] = i * 0.5f - 7;
    }
    for (Path[] dirs : pairs) {
      float[] received = new float[model.length];
      ModelBroadcast.Position at = transfer(dirs[0], dirs[1], model, received);
      assertEquals(new ModelBroadcast.Position(12, 3456), at, java.util.Arrays.toString(dirs));
      assertArrayEquals(model, received, java.util.Arrays.toString(dirs));
      assertEquals(List.of(), listed(shm));
      assertEquals(List.of(), listed(elsewhere));
    }
  }

  @Test
  void aNewcomerWhoseModelHasAnotherSizeRefusesItNamingBoth() {
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> transfer(shm, shm, new float[1000], new float[999]));
    assertTrue(e.getCause() instanceof IOException && e.getCause().getMessage().contains("1000")
        && e.getCause().getMessage().contains("999"), String.valueOf(e.getCause()));
  }

  private ModelBroadcast.Position transfer(Path senderDir, Path receiverDir, float[] model, float[] into)
      throws Exception {
    JobSecret secret = JobSecret.generate();
    try (DataPlane sender = DataPlane.start("old", "127.0.0.1", 0, secret, LoopbackMembers.TIMEOUT, null);
         DataPlane newcomer = DataPlane.start("new", "127.0.0.1", 0, secret, LoopbackMembers.TIMEOUT, null)) {
      CompletableFuture<ModelBroadcast.Position> received = CompletableFuture.supplyAsync(() -> {
        try (PeerLink link = newcomer.accept("old", ModelBroadcast.TAG, 2, LoopbackMembers.TIMEOUT)) {
          return new ModelBroadcast(receiverDir).receive(link, into, LoopbackMembers.TIMEOUT);
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      try (PeerLink link = sender.connect("new", "127.0.0.1", newcomer.port(), ModelBroadcast.TAG, 2,
          LoopbackMembers.TIMEOUT)) {
        new ModelBroadcast(senderDir).send(link, new ModelBroadcast.Position(12, 3456), model, LoopbackMembers.TIMEOUT);
      } catch (IOException e) {
        // The newcomer refused: what it says is the failure to report.
        received.exceptionally(t -> null).get(30, TimeUnit.SECONDS);
      }
      try {
        return received.get(30, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        throw new ExecutionException(e.getCause() instanceof java.io.UncheckedIOException u ? u.getCause() : e.getCause());
      }
    }
  }

  private static List<Path> listed(Path dir) throws IOException {
    try (var files = Files.list(dir)) {
      return files.toList();
    }
  }
}
