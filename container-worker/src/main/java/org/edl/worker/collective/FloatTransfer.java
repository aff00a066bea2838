package org.edl.worker.collective;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.time.Duration;

/**
 * Sends and receives a whole float array over one {@link PeerLink}, in chunks through one direct
 * buffer: a length header (8 bytes), then the floats little-endian. Used to broadcast the model
 * from an existing worker to newcomers, and by {@link GatherBroadcastAllReduce}.
 */
public final class FloatTransfer {
  private static final int CHUNK_FLOATS = (1 << 20) / Float.BYTES;

  private final ByteBuffer bytes =
      ByteBuffer.allocateDirect(CHUNK_FLOATS * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
  private final FloatBuffer floats = bytes.asFloatBuffer();
  private final float[] scratch = new float[CHUNK_FLOATS];

  /** Sends {@code data} (length first), all within {@code timeout}. */
  public void send(PeerLink link, float[] data, Duration timeout) throws IOException {
    Deadline deadline = Deadline.after(timeout);
    sendLength(link, data.length, deadline);
    sendFloats(link, data, deadline);
  }

  /** Receives an array sent by {@link #send}, whatever its length. */
  public float[] receive(PeerLink link, Duration timeout) throws IOException {
    Deadline deadline = Deadline.after(timeout);
    float[] data = new float[receiveLength(link, deadline)];
    receiveFloats(link, data, false, deadline);
    return data;
  }

  /** Receives an array sent by {@link #send} into {@code into}, whose length must match. */
  public void receiveInto(PeerLink link, float[] into, Duration timeout) throws IOException {
    Deadline deadline = Deadline.after(timeout);
    expectLength(link, into.length, deadline);
    receiveFloats(link, into, false, deadline);
  }

  void sendLength(PeerLink link, int length, Deadline deadline) throws IOException {
    bytes.clear();
    bytes.putLong(length).flip();
    link.write(bytes, deadline);
  }

  int receiveLength(PeerLink link, Deadline deadline) throws IOException {
    bytes.clear().limit(Long.BYTES);
    link.read(bytes, deadline);
    long length = bytes.getLong(0);
    if (length < 0 || length > Integer.MAX_VALUE - 8) {
      throw new IOException(link.peerId() + " announced an array of " + length + " floats");
    }
    return (int) length;
  }

  void expectLength(PeerLink link, int expected, Deadline deadline) throws IOException {
    int length = receiveLength(link, deadline);
    if (length != expected) {
      throw new IOException(link.peerId() + " sends " + length + " floats; expected " + expected);
    }
  }

  void sendFloats(PeerLink link, float[] data, Deadline deadline) throws IOException {
    for (int off = 0; off < data.length; off += CHUNK_FLOATS) {
      int n = Math.min(CHUNK_FLOATS, data.length - off);
      floats.put(0, data, off, n);
      bytes.clear().limit(n * Float.BYTES);
      link.write(bytes, deadline);
    }
  }

  /** Receives {@code data.length} floats, adding them to {@code data} or overwriting it. */
  void receiveFloats(PeerLink link, float[] data, boolean add, Deadline deadline) throws IOException {
    for (int off = 0; off < data.length; off += CHUNK_FLOATS) {
      int n = Math.min(CHUNK_FLOATS, data.length - off);
      bytes.clear().limit(n * Float.BYTES);
      link.read(bytes, deadline);
      if (add) {
        GradientLoops.addFrame(floats, scratch, data, off, n);
      } else {
        floats.get(0, data, off, n);
      }
    }
  }
}
