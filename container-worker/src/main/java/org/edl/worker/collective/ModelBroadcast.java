package org.edl.worker.collective;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;

/**
 * What an existing worker sends a newcomer at a topology switch, over one data-plane link: the
 * job position the newcomer starts from (next step, global sample position of its batch) and
 * the model parameters, chunked through {@link FloatTransfer}.
 */
public final class ModelBroadcast {
  /** Data-plane tag of broadcast links. */
  public static final String TAG = "model";

  /** Where the receiver resumes: the step it runs next and where that step's batch starts. */
  public record Position(long nextStep, long batchStart) {}

  private final FloatTransfer transfer = new FloatTransfer();
  private final ByteBuffer header = ByteBuffer.allocate(2 * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);

  public void send(PeerLink link, Position position, float[] parameters, Duration timeout) throws IOException {
    header.clear();
    header.putLong(position.nextStep()).putLong(position.batchStart()).flip();
    link.write(header, timeout);
    transfer.send(link, parameters, timeout);
  }

  /** Receives into {@code parameters}, whose length must match the sender's. */
  public Position receive(PeerLink link, float[] parameters, Duration timeout) throws IOException {
    header.clear();
    link.read(header, timeout);
    Position p = new Position(header.getLong(0), header.getLong(Long.BYTES));
    if (p.nextStep() < 0 || p.batchStart() < 0) {
      throw new IOException(link.peerId() + " sent an impossible position " + p);
    }
    transfer.receiveInto(link, parameters, timeout);
    return p;
  }
}
