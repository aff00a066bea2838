package org.edl.worker.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.edl.job.JobSecret;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedMemorySegmentTest {
  @TempDir
  Path dir;

  @Test
  void bothEndsSeeTheSameSlotsAndTheFileIsTheOwnersAloneUntilUnlinked() throws Exception {
    try (SharedMemorySegment created = SharedMemorySegment.create(dir, 3, 256)) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(created.path())));
      try (SharedMemorySegment opened = SharedMemorySegment.open(created.path(), created.nonce(), 3, 256)) {
        created.slot(4).floats().put(0, new float[] {1.5f, -2f});
        float[] seen = new float[2];
        opened.slot(1).floats().get(0, seen);
        assertArrayEquals(new float[] {1.5f, -2f}, seen, "the 5th frame goes to slot 1 of 3 on both ends");
        created.unlink();
        assertFalse(Files.exists(created.path()));
        created.slot(0).bytes().putInt(0, 42);
        assertEquals(42, opened.slot(0).bytes().getInt(0), "the mappings outlive the file");
      }
    }
    assertEquals(List.of(), Files.list(dir).toList());
  }

  @Test
  void aFileWithAnotherNonceOrSizeIsNotTheSegmentAnnounced() throws Exception {
    try (SharedMemorySegment created = SharedMemorySegment.create(dir, 2, 128)) {
      byte[] other = created.nonce();
      other[0] ^= 1;
      IOException e = assertThrows(IOException.class, () -> SharedMemorySegment.open(created.path(), other, 2, 128));
      assertTrue(e.getMessage().contains("nonce"), e.getMessage());
      e = assertThrows(IOException.class, () -> SharedMemorySegment.open(created.path(), created.nonce(), 2, 256));
      assertTrue(e.getMessage().contains("bytes"), e.getMessage());
    }
  }

  /** A directory that is not there (or full) is no reason for a ring not to form: it uses TCP. */
  @Test
  void aRingWhoseDirectoryCannotHoldASegmentFormsOverTcp() throws Exception {
    Path missing = dir.resolve("not-there");
    try (LoopbackMembers members = new LoopbackMembers(3, JobSecret.generate(), 1, rank -> missing)) {
      List<Ring> rings = members.formRings();
      rings.forEach(r -> assertEquals("tcp", r.transport()));
      List<float[]> sums = members.onAll(r -> {
        try (RingAllReduce ring = new RingAllReduce(rings.get(r), LoopbackMembers.TIMEOUT)) {
          float[] a = {r, 1};
          ring.sum(a);
          return a;
        }
      });
      sums.forEach(a -> assertArrayEquals(new float[] {3, 3}, a));
      rings.forEach(Ring::close);
    }
  }
}
