package org.edl.worker.collective;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Agrees, over a new ring's two links, which directions carry their frames through shared memory.
 * Every member offers its right neighbour a segment it created, reads its left neighbour's offer,
 * answers it, then reads the answer to its own; the writes come before any read, so all members
 * can do this at once. A peer on another host cannot open the file (or finds another with a
 * different nonce) and answers no: that direction stays on TCP. Each direction is decided alone.
 */
final class SharedMemoryOffer {
  private static final Logger LOG = LoggerFactory.getLogger(SharedMemoryOffer.class);
  static final int SLOTS = 4;
  private static final int FIXED_BYTES = Integer.BYTES * 2 + SharedMemorySegment.NONCE_BYTES + Short.BYTES;
  private static final int MAX_PATH_BYTES = 4096;
  private static final Pattern SEGMENT_NAME = Pattern.compile("edl-ring-[0-9a-f]{32}\\.shm");

  /** The segments agreed on; null where that direction uses TCP. */
  record Agreed(SharedMemorySegment out, SharedMemorySegment in) {}

  private SharedMemoryOffer() {}

  /**
   * @param dir the shared-memory directory of this host, or null where this member uses TCP only
   *            (it then neither offers nor accepts)
   */
  static Agreed negotiate(Path dir, PeerLink left, PeerLink right, int slotBytes, Deadline deadline)
      throws IOException {
    SharedMemorySegment offered = offer(dir, right, slotBytes, deadline);
    SharedMemorySegment in = null;
    try {
      in = answer(dir, left, deadline);
      return new Agreed(settle(offered, right, deadline), in);
    } catch (IOException | RuntimeException e) {
      if (offered != null) {
        offered.close();
      }
      if (in != null) {
        in.close();
      }
      throw e;
    }
  }

  /**
   * The sending end's first half: creates a segment where {@code dir} allows and tells the peer
   * (an offer of nothing where it does not); {@link #settle} reads the answer.
   */
  static SharedMemorySegment offer(Path dir, PeerLink link, int slotBytes, Deadline deadline) throws IOException {
    SharedMemorySegment offered = dir == null ? null : tryCreate(dir, slotBytes);
    try {
      link.write(encode(offered), deadline);
      return offered;
    } catch (IOException | RuntimeException e) {
      if (offered != null) {
        offered.close();
      }
      throw e;
    }
  }

  /** The sending end's second half: the segment to send through, or null for TCP (the offer then closed). */
  static SharedMemorySegment settle(SharedMemorySegment offered, PeerLink link, Deadline deadline) throws IOException {
    ByteBuffer reply = ByteBuffer.allocate(1);
    link.read(reply, deadline);
    boolean accepted = reply.get(0) == 1;
    if (offered == null) {
      return null;
    }
    if (accepted) {
      offered.unlink(); // both ends hold it mapped: nothing to clean up after a crash
      return offered;
    }
    offered.close();
    return null;
  }

  private static SharedMemorySegment tryCreate(Path dir, int slotBytes) {
    try {
      return SharedMemorySegment.create(dir, SLOTS, slotBytes);
    } catch (IOException | RuntimeException e) {
      LOG.info("no shared-memory segment in {} ({}); this link (a ring's, or a model's broadcast) uses TCP", dir, e.toString());
      return null;
    }
  }

  private static ByteBuffer encode(SharedMemorySegment offered) {
    byte[] path = offered == null ? new byte[0] : offered.path().toString().getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(FIXED_BYTES + path.length);
    b.putInt(offered == null ? 0 : offered.slotCount());
    b.putInt(offered == null ? 0 : offered.slotBytes());
    b.put(offered == null ? new byte[SharedMemorySegment.NONCE_BYTES] : offered.nonce());
    b.putShort((short) path.length).put(path).flip();
    return b;
  }

  /** The receiving end: reads the peer's offer, maps its segment where this host can, and says which. */
  static SharedMemorySegment answer(Path dir, PeerLink left, Deadline deadline) throws IOException {
    ByteBuffer fixed = ByteBuffer.allocate(FIXED_BYTES);
    left.read(fixed, deadline);
    int slots = fixed.getInt(0);
    int slotBytes = fixed.getInt(Integer.BYTES);
    byte[] nonce = new byte[SharedMemorySegment.NONCE_BYTES];
    fixed.get(Integer.BYTES * 2, nonce);
    int pathBytes = fixed.getShort(FIXED_BYTES - Short.BYTES) & 0xffff;
    if (pathBytes > MAX_PATH_BYTES) {
      throw new IOException(left.peerId() + " offered a shared-memory path of " + pathBytes + " bytes");
    }
    ByteBuffer path = ByteBuffer.allocate(pathBytes);
    left.read(path, deadline);
    SharedMemorySegment in = slots == 0 ? null
        : tryOpen(dir, left.peerId(), new String(path.array(), StandardCharsets.UTF_8), nonce, slots, slotBytes);
    try {
      left.write(ByteBuffer.wrap(new byte[] {(byte) (in == null ? 0 : 1)}), deadline);
      return in;
    } catch (IOException | RuntimeException e) {
      if (in != null) {
        in.close();
      }
      throw e;
    }
  }

  /**
   * Opens only a segment's file name in this member's own directory: the path comes from a peer,
   * and an authenticated peer is still no reason to open any other file with this worker's rights.
   */
  private static SharedMemorySegment tryOpen(Path dir, String peer, String offered, byte[] nonce, int slots,
      int slotBytes) {
    if (dir == null) {
      return null;
    }
    Path p = Path.of(offered).normalize();
    if (p.getFileName() == null || !SEGMENT_NAME.matcher(p.getFileName().toString()).matches()
        || !dir.toAbsolutePath().normalize().equals(p.getParent())) {
      LOG.info("{} offered shared memory at {}, outside {}; the ring link from it uses TCP", peer, offered, dir);
      return null;
    }
    try {
      return SharedMemorySegment.open(p, nonce, slots, slotBytes);
    } catch (IOException | RuntimeException e) {
      // The usual case for a peer on another host: its file is not here.
      LOG.debug("shared memory offered by {} not usable here ({}); the ring link from it uses TCP", peer, e.toString());
      return null;
    }
  }
}
