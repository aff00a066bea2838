package org.edl.worker.collective;

/**
 * Which part of the array a ring member sends and receives at each step of a chunked ring
 * all-reduce. A pure function of (length, size, rank, chunks per segment): no I/O, so it can be
 * checked on its own.
 *
 * <p>The array is cut into {@code size} segments and each segment into the same number of chunks.
 * Steps {@code 0 .. size-2} are the reduce-scatter (received chunks are added), steps
 * {@code size-1 .. 2*size-3} the all-gather (received chunks overwrite). At step {@code t} member
 * {@code r} sends segment {@code (r - t) mod size} to its right and receives segment
 * {@code (r - t - 1) mod size} from its left, which is the segment it sends at step {@code t+1}:
 * so chunk {@code k} of step {@code t+1} may leave as soon as chunk {@code k} of step {@code t}
 * has arrived, and sending overlaps receiving and reducing.
 *
 * <p>Frames number the (step, chunk) pairs in the order they travel: {@code step * chunks + chunk}.
 */
public final class RingSchedule {
  /** A contiguous slice of the array, in elements. */
  public record Range(int offset, int length) {}

  private final int length;
  private final int size;
  private final int rank;
  private final int chunks;

  public RingSchedule(int length, int size, int rank, int chunksPerSegment) {
    if (length < 0 || size < 1 || rank < 0 || rank >= size || chunksPerSegment < 1) {
      throw new IllegalArgumentException("length=" + length + " size=" + size + " rank=" + rank
          + " chunksPerSegment=" + chunksPerSegment);
    }
    this.length = length;
    this.size = size;
    this.rank = rank;
    this.chunks = chunksPerSegment;
  }

  /**
   * Chunks per segment so that no chunk holds more than {@code maxChunkElements}, and at least two
   * (2 x size chunks in all), so that there is always a next chunk to move while one is reduced.
   * Depends only on the length and size, so every member computes the same.
   */
  public static int chunksPerSegment(int length, int size, int maxChunkElements) {
    if (maxChunkElements < 1) {
      throw new IllegalArgumentException("maxChunkElements=" + maxChunkElements);
    }
    long largestSegment = ((long) length + size - 1) / size;
    long needed = (largestSegment + maxChunkElements - 1) / maxChunkElements;
    return (int) Math.max(2, needed);
  }

  public int steps() {
    return 2 * (size - 1);
  }

  public int chunksPerSegment() {
    return chunks;
  }

  public int frames() {
    return steps() * chunks;
  }

  /** Frames of the reduce-scatter half; the all-gather's follow them. */
  public int reduceScatterFrames() {
    return (size - 1) * chunks;
  }

  /** The segment this member holds fully reduced once the reduce-scatter half is done. */
  public int reducedSegment() {
    return (rank + 1) % size;
  }

  public static int stepOf(int frame, int chunks) {
    return frame / chunks;
  }

  /** True in the reduce-scatter half: what arrives is added, not copied. */
  public boolean reduces(int frame) {
    return frame / chunks < size - 1;
  }

  /** The frame that must have arrived before {@code frame} may be sent; -1 if none. */
  public int sendWaitsFor(int frame) {
    return frame < chunks ? -1 : frame - chunks;
  }

  public Range send(int frame) {
    return chunk(Math.floorMod(rank - frame / chunks, size), frame % chunks);
  }

  public Range receive(int frame) {
    return chunk(Math.floorMod(rank - frame / chunks - 1, size), frame % chunks);
  }

  /** Segment {@code s} as a whole. */
  public Range segment(int s) {
    long start = (long) s * length / size;
    long end = (long) (s + 1) * length / size;
    return new Range((int) start, (int) (end - start));
  }

  /** Chunk {@code c} of segment {@code s}; segments and chunks differ in length by at most one. */
  public Range chunk(int segment, int c) {
    long segStart = (long) segment * length / size;
    long segLength = (long) (segment + 1) * length / size - segStart;
    long start = segStart + (long) c * segLength / chunks;
    long end = segStart + (long) (c + 1) * segLength / chunks;
    return new Range((int) start, (int) (end - start));
  }
}
