package org.edl.worker.collective;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What an existing worker sends a newcomer at a topology switch, over one data-plane link: the
 * job position the newcomer starts from (next step, global sample position of its batch) and
 * the model parameters. Both ends first agree, as a ring's links do ({@link SharedMemoryOffer}),
 * whether the model goes through a shared-memory segment (the two on one host) or the TCP stream
 * ({@link FloatTransfer}); this is the transfer every member waits for at a scale-out.
 */
public final class ModelBroadcast {
  /** Data-plane tag of broadcast links. */
  public static final String TAG = "model";
  /** A recovery's model exchange (its version may be that of a cancelled switch's broadcast). */
  public static final String RECOVERY_TAG = "model-recovery";
  private static final int SLOT_BYTES = RingAllReduce.DEFAULT_CHUNK_BYTES;
  private static final int SLOT_FLOATS = SLOT_BYTES / Float.BYTES;
  /** Next step, batch start, and (through shared memory) the number of floats that follow. */
  private static final int SHARED_HEADER_BYTES = 3 * Long.BYTES;

  /** Where the receiver resumes: the step it runs next and where that step's batch starts. */
  public record Position(long nextStep, long batchStart) {}

  private final Path sharedMemoryDir;
  private final FloatTransfer transfer = new FloatTransfer();
  private final ByteBuffer header = ByteBuffer.allocate(2 * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);

  /** Over TCP only. */
  public ModelBroadcast() {
    this(null);
  }

  /** @param sharedMemoryDir this host's shared-memory directory ({@link DataPlane#sharedMemoryDir}); null: TCP only */
  public ModelBroadcast(Path sharedMemoryDir) {
    this.sharedMemoryDir = sharedMemoryDir;
  }

  public void send(PeerLink link, Position position, float[] parameters, Duration timeout) throws IOException {
    Deadline deadline = Deadline.after(timeout);
    SharedMemorySegment offered = SharedMemoryOffer.offer(sharedMemoryDir, link, SLOT_BYTES, deadline);
    SharedMemorySegment shared;
    try {
      shared = SharedMemoryOffer.settle(offered, link, deadline);
    } catch (IOException | RuntimeException e) {
      if (offered != null) {
        offered.close();
      }
      throw e;
    }
    if (shared != null) {
      try (shared; FramePump pump = new FramePump(link)) {
        pump.send(new SharedMemoryFrames.Outbound(link, shared), frames(parameters.length), (i, f) -> {
          if (i == 0) {
            f.bytes().putLong(0, position.nextStep()).putLong(Long.BYTES, position.batchStart())
                .putLong(2 * Long.BYTES, parameters.length);
            return SHARED_HEADER_BYTES;
          }
          int off = (i - 1) * SLOT_FLOATS;
          int n = Math.min(SLOT_FLOATS, parameters.length - off);
          f.floats().put(0, parameters, off, n);
          return n * Float.BYTES;
        }, deadline, "sending the model to " + link.peerId());
      }
      return;
    }
    header.clear();
    header.putLong(position.nextStep()).putLong(position.batchStart()).flip();
    link.write(header, deadline);
    transfer.sendLength(link, parameters.length, deadline);
    transfer.sendFloats(link, parameters, deadline);
  }

  /** Receives into {@code parameters}, whose length must match the sender's. */
  public Position receive(PeerLink link, float[] parameters, Duration timeout) throws IOException {
    Deadline deadline = Deadline.after(timeout);
    SharedMemorySegment shared = SharedMemoryOffer.answer(sharedMemoryDir, link, deadline);
    if (shared != null) {
      Position[] at = new Position[1];
      try (shared; FramePump pump = new FramePump(link)) {
        pump.receive(new SharedMemoryFrames.Inbound(link, shared), frames(parameters.length),
            i -> i == 0 ? SHARED_HEADER_BYTES : Math.min(SLOT_FLOATS, parameters.length - (i - 1) * SLOT_FLOATS) * Float.BYTES,
            (i, f) -> {
              if (i == 0) {
                at[0] = position(link, f.bytes().getLong(0), f.bytes().getLong(Long.BYTES));
                long length = f.bytes().getLong(2 * Long.BYTES);
                if (length != parameters.length) {
                  throw new IOException(link.peerId() + " sends " + length + " floats; expected " + parameters.length);
                }
                return;
              }
              int off = (i - 1) * SLOT_FLOATS;
              f.floats().get(0, parameters, off, Math.min(SLOT_FLOATS, parameters.length - off));
            }, deadline, "receiving the model from " + link.peerId());
      }
      return at[0];
    }
    header.clear();
    link.read(header, deadline);
    Position p = position(link, header.getLong(0), header.getLong(Long.BYTES));
    transfer.expectLength(link, parameters.length, deadline);
    transfer.receiveFloats(link, parameters, false, deadline);
    return p;
  }

  private static Position position(PeerLink link, long nextStep, long batchStart) throws IOException {
    Position p = new Position(nextStep, batchStart);
    if (p.nextStep() < 0 || p.batchStart() < 0) {
      throw new IOException(link.peerId() + " sent an impossible position " + p);
    }
    return p;
  }

  /** The header frame, then the parameters in slot-sized frames. */
  private static int frames(int floats) {
    return 1 + (floats + SLOT_FLOATS - 1) / SLOT_FLOATS;
  }
}
