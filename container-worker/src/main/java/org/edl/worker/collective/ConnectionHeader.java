package org.edl.worker.collective;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * What a data connection announces right after the handshake: who dials, for what, in which
 * topology. The accepting side files the connection under these three, so that a ring link for
 * the next topology or a model broadcast is never taken for the current ring.
 */
public record ConnectionHeader(String senderId, String tag, long topologyVersion) {
  private static final int MAX_TEXT_BYTES = 1024;

  void writeTo(DataOutputStream out) throws IOException {
    writeText(out, senderId);
    writeText(out, tag);
    out.writeLong(topologyVersion);
    out.flush();
  }

  static ConnectionHeader readFrom(DataInputStream in) throws IOException {
    String sender = readText(in);
    String tag = readText(in);
    return new ConnectionHeader(sender, tag, in.readLong());
  }

  private static void writeText(DataOutputStream out, String s) throws IOException {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    if (b.length > MAX_TEXT_BYTES) {
      throw new IllegalArgumentException("header field too long: " + b.length + " bytes");
    }
    out.writeShort(b.length);
    out.write(b);
  }

  private static String readText(DataInputStream in) throws IOException {
    int n = in.readUnsignedShort();
    if (n > MAX_TEXT_BYTES) {
      throw new IOException("header field of " + n + " bytes; limit " + MAX_TEXT_BYTES);
    }
    byte[] b = new byte[n];
    in.readFully(b);
    return new String(b, StandardCharsets.UTF_8);
  }
}
