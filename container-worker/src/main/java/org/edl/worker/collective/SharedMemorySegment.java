package org.edl.worker.collective;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The frame slots of one ring link, in a file of a shared-memory directory (tmpfs) that both ends
 * map, as NCCL's SHM transport does between processes of one host. The sending end creates it,
 * readable by its own user only, and unlinks it as soon as the receiving end has mapped it, so a
 * crash leaves nothing behind. A random nonce at its start proves to the receiver that the file
 * it opened is the one its peer created, and not a file of the same name on another host.
 */
final class SharedMemorySegment implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SharedMemorySegment.class);
  static final int NONCE_BYTES = 16;
  /** The nonce, then padding so that every slot starts on a cache line. */
  private static final int HEADER_BYTES = 64;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Path path;
  private final byte[] nonce;
  private final MappedByteBuffer map;
  private final Frame[] slots;
  private final int slotBytes;
  /**
   * How many callers are using the slots, with the sign bit set once closed: the mapping goes only
   * when it is closed and the last user is done. An all-reduce still running on another thread
   * when its ring is closed (a worker stopped from outside, a test tearing a job down) then fails
   * on its closed socket, as over TCP, instead of touching an unmapped page and killing the JVM.
   */
  private final AtomicInteger users = new AtomicInteger();
  private final AtomicBoolean unmapped = new AtomicBoolean();

  private SharedMemorySegment(Path path, byte[] nonce, MappedByteBuffer map, int slotCount, int slotBytes) {
    this.path = path;
    this.nonce = nonce;
    this.map = map;
    this.slotBytes = slotBytes;
    this.slots = new Frame[slotCount];
    for (int i = 0; i < slotCount; i++) {
      slots[i] = Frame.over(map.slice(HEADER_BYTES + i * slotBytes, slotBytes));
    }
  }

  /**
   * Creates and maps a new segment in {@code dir}. Every page is written before it is mapped: a
   * mapped page a full tmpfs cannot supply kills the JVM with SIGBUS, where a write fails with an
   * ordinary "no space left" the caller can answer by using TCP instead.
   */
  static SharedMemorySegment create(Path dir, int slotCount, int slotBytes) throws IOException {
    long size = sizeOf(slotCount, slotBytes);
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    Path path = dir.toAbsolutePath().normalize().resolve("edl-ring-" + HexFormat.of().formatHex(nonce) + ".shm");
    try (FileChannel ch = FileChannel.open(path, new java.util.HashSet<>(java.util.List.of(
        StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)), ownerOnly())) {
      ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(size, 1 << 20));
      for (long written = 0; written < size; ) {
        zeros.clear().limit((int) Math.min(zeros.capacity(), size - written));
        written += ch.write(zeros, written);
      }
      ch.write(ByteBuffer.wrap(nonce), 0);
      MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
      return new SharedMemorySegment(path, nonce, map, slotCount, slotBytes);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(path);
      throw e;
    }
  }

  /** Maps the segment a peer created, if this host can see it and it is the one announced. */
  static SharedMemorySegment open(Path path, byte[] nonce, int slotCount, int slotBytes) throws IOException {
    long size = sizeOf(slotCount, slotBytes);
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      if (ch.size() != size) {
        throw new IOException(path + " holds " + ch.size() + " bytes, not the " + size + " announced");
      }
      MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
      byte[] found = new byte[NONCE_BYTES];
      map.get(0, found);
      if (!java.util.Arrays.equals(found, nonce)) {
        unmap(map);
        throw new IOException(path + " is not the segment announced (its nonce differs)");
      }
      return new SharedMemorySegment(null, nonce, map, slotCount, slotBytes);
    }
  }

  private static long sizeOf(int slotCount, int slotBytes) {
    if (slotCount < 1 || slotBytes < 1 || (long) slotCount * slotBytes > Integer.MAX_VALUE - HEADER_BYTES) {
      throw new IllegalArgumentException(slotCount + " slots of " + slotBytes + " bytes");
    }
    return HEADER_BYTES + (long) slotCount * slotBytes;
  }

  private static FileAttribute<?>[] ownerOnly() {
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      return new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))};
    }
    return new FileAttribute<?>[0];
  }

  Path path() {
    return path;
  }

  byte[] nonce() {
    return nonce.clone();
  }

  int slotCount() {
    return slots.length;
  }

  int slotBytes() {
    return slotBytes;
  }

  /** The slot of the {@code sequence}-th frame sent over this link. */
  Frame slot(long sequence) {
    return slots[(int) (sequence % slots.length)];
  }

  /** Removes the file; both mappings stay valid. Idempotent; the opening end has nothing to remove. */
  void unlink() {
    if (path != null) {
      try {
        Files.deleteIfExists(path);
      } catch (IOException e) {
        LOG.warn("could not remove the shared-memory segment {}: {}", path, e.toString());
      }
    }
  }

  /** The slots of every segment given (null ones, TCP directions, skipped), held until closed. */
  static final class Lease implements AutoCloseable {
    private final java.util.List<SharedMemorySegment> held = new java.util.ArrayList<>();

    @Override
    public void close() {
      held.forEach(SharedMemorySegment::release);
      held.clear();
    }
  }

  /**
   * Holds {@code segments} for a call; a closed one ends it at once ("{@code what} was closed")
   * before any slot is touched.
   */
  static Lease lease(String what, SharedMemorySegment... segments) throws IOException {
    Lease lease = new Lease();
    for (SharedMemorySegment s : segments) {
      if (s == null) {
        continue;
      }
      if (!s.acquire()) {
        lease.close();
        throw new IOException(what + " was closed; form the ring again");
      }
      lease.held.add(s);
    }
    return lease;
  }

  /** Marks the slots in use until {@link #release}; false once closed (use nothing then). */
  boolean acquire() {
    while (true) {
      int u = users.get();
      if (u < 0) {
        return false;
      }
      if (users.compareAndSet(u, u + 1)) {
        return true;
      }
    }
  }

  /** Ends a use begun by {@link #acquire}; the last one after a close unmaps. */
  void release() {
    if (users.decrementAndGet() == Integer.MIN_VALUE) {
      unmapOnce();
    }
  }

  /** Unlinks, and unmaps now or as soon as the callers using the slots are done. Idempotent. */
  @Override
  public void close() {
    unlink();
    while (true) {
      int u = users.get();
      if (u < 0) {
        return;
      }
      if (users.compareAndSet(u, u | Integer.MIN_VALUE)) {
        if (u == 0) {
          unmapOnce();
        }
        return;
      }
    }
  }

  private void unmapOnce() {
    if (unmapped.compareAndSet(false, true)) {
      unmap(map);
    }
  }

  /**
   * Returns the mapping's memory now rather than when the buffer is collected: a ring is formed at
   * every switch, and tmpfs pages held by buffers waiting for a full GC would add up.
   */
  private static void unmap(MappedByteBuffer buffer) {
    try {
      Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
      Field f = unsafeClass.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      Method invokeCleaner = unsafeClass.getMethod("invokeCleaner", ByteBuffer.class);
      invokeCleaner.invoke(f.get(null), buffer);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.debug("shared-memory segment left for the collector to unmap: {}", e.toString());
    }
  }
}
