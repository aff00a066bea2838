package org.edl.worker.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RingScheduleTest {
  private static final int[] LENGTHS = {0, 1, 4, 7, 100, 1000, 10007};

  @Test
  void simulatedRingOfTheScheduleSumsEveryElement() {
    for (int size = 1; size <= 8; size++) {
      for (int length : LENGTHS) {
        for (int chunks = 1; chunks <= 3; chunks++) {
          simulate(size, length, chunks);
        }
      }
    }
  }

  /** Plays the schedule step by step on plain arrays: what r sends, r+1 receives. */
  private static void simulate(int size, int length, int chunks) {
    long[][] data = new long[size][length];
    long[] expected = new long[length];
    for (int r = 0; r < size; r++) {
      for (int i = 0; i < length; i++) {
        data[r][i] = (r + 1) * 1000L + i;
        expected[i] += data[r][i];
      }
    }
    RingSchedule[] s = new RingSchedule[size];
    for (int r = 0; r < size; r++) {
      s[r] = new RingSchedule(length, size, r, chunks);
    }
    for (int frame = 0; frame < s[0].frames(); frame++) {
      long[][] inFlight = new long[size][];
      for (int r = 0; r < size; r++) {
        RingSchedule.Range out = s[r].send(frame);
        inFlight[r] = java.util.Arrays.copyOfRange(data[r], out.offset(), out.offset() + out.length());
      }
      for (int r = 0; r < size; r++) {
        int left = (r - 1 + size) % size;
        RingSchedule.Range in = s[r].receive(frame);
        assertEquals(s[left].send(frame), in, "what the left sends is what arrives");
        for (int i = 0; i < in.length(); i++) {
          data[r][in.offset() + i] = s[r].reduces(frame)
              ? data[r][in.offset() + i] + inFlight[left][i]
              : inFlight[left][i];
        }
      }
    }
    for (int r = 0; r < size; r++) {
      assertArrayEquals(expected, data[r], "size " + size + " length " + length + " rank " + r);
    }
  }

  @Test
  void eachFrameForwardsTheChunkThatArrivedOneStepEarlier() {
    RingSchedule s = new RingSchedule(10007, 5, 3, 4);
    assertEquals(2 * 4 * 4, s.frames());
    for (int f = 0; f < s.frames(); f++) {
      int waits = s.sendWaitsFor(f);
      if (f < s.chunksPerSegment()) {
        assertEquals(-1, waits);
      } else {
        assertEquals(s.receive(waits), s.send(f));
      }
    }
  }

  @Test
  void chunksOfEverySegmentTileTheArrayExactly() {
    int length = 10007;
    int size = 6;
    RingSchedule s = new RingSchedule(length, size, 0, 5);
    int next = 0;
    for (int seg = 0; seg < size; seg++) {
      for (int c = 0; c < 5; c++) {
        RingSchedule.Range r = s.chunk(seg, c);
        assertEquals(next, r.offset());
        next += r.length();
      }
    }
    assertEquals(length, next);
  }

  @Test
  void atLeastTwoChunksPerSegmentAndNoneLargerThanAsked() {
    assertEquals(2, RingSchedule.chunksPerSegment(0, 4, 1000));
    assertEquals(2, RingSchedule.chunksPerSegment(100, 4, 1000));
    int chunks = RingSchedule.chunksPerSegment(64 << 20, 4, 1 << 18);
    assertEquals(64, chunks);
    RingSchedule s = new RingSchedule(10007, 3, 1, RingSchedule.chunksPerSegment(10007, 3, 100));
    for (int f = 0; f < s.frames(); f++) {
      assertTrue(s.send(f).length() <= 100 && s.receive(f).length() <= 100);
    }
  }
}
