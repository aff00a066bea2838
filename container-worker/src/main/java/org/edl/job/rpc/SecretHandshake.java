package org.edl.job.rpc;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.edl.job.JobSecret;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mutual challenge-response over a fresh connection, before any other byte. Both sides prove they
 * hold the job's secret; the secret itself never crosses the wire.
 *
 * <pre>
 *   server -> client : MAGIC, serverNonce
 *   client -> server : clientNonce, HMAC(secret, "edl-client" | serverNonce | clientNonce)
 *   server -> client : HMAC(secret, "edl-server" | clientNonce | serverNonce)
 * </pre>
 *
 * A server that sees a wrong MAC logs the refusal, closes nothing itself (the caller owns the
 * socket) and throws; the client then reads end-of-stream and fails too. Distinct labels stop a
 * peer from reflecting one side's MAC back as the other's.
 */
public final class SecretHandshake {
  private static final Logger LOG = LoggerFactory.getLogger(SecretHandshake.class);
  private static final byte[] MAGIC = "EDL-HS1\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CLIENT_LABEL = "edl-client".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] SERVER_LABEL = "edl-server".getBytes(StandardCharsets.US_ASCII);
  private static final String HMAC = "HmacSHA256";
  static final int NONCE_BYTES = 32;
  static final int MAC_BYTES = 32;

  private final SecretKeySpec key;
  private final int timeoutMillis;
  private final SecureRandom random = new SecureRandom();

  public SecretHandshake(JobSecret secret, Duration timeout) {
    Objects.requireNonNull(secret, "secret");
    this.key = new SecretKeySpec(secret.bytes(), HMAC);
    long ms = timeout.toMillis();
    if (ms < 1 || ms > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("handshake timeout out of range: " + timeout);
    }
    this.timeoutMillis = (int) ms;
  }

  /** The accepting side, on a connected socket; its read timeout is restored afterwards. */
  public void asServer(Socket socket) throws AuthenticationException {
    String peer = String.valueOf(socket.getRemoteSocketAddress());
    withTimeout(socket, peer, () -> asServer(socket.getInputStream(), socket.getOutputStream(), peer));
  }

  /** The connecting side, on a connected socket; its read timeout is restored afterwards. */
  public void asClient(Socket socket) throws AuthenticationException {
    String peer = String.valueOf(socket.getRemoteSocketAddress());
    withTimeout(socket, peer, () -> asClient(socket.getInputStream(), socket.getOutputStream(), peer));
  }

  /**
   * The accepting side over raw streams. Reads exactly the handshake's bytes, so whatever follows
   * on the stream is left for the caller. Timeouts are the stream's own (see {@link #asServer(Socket)}).
   */
  public void asServer(InputStream in, OutputStream out, String peer) throws AuthenticationException {
    try {
      byte[] serverNonce = nonce();
      out.write(concat(MAGIC, serverNonce));
      out.flush();
      DataInputStream din = new DataInputStream(in);
      byte[] clientNonce = new byte[NONCE_BYTES];
      byte[] clientMac = new byte[MAC_BYTES];
      din.readFully(clientNonce);
      din.readFully(clientMac);
      if (!MessageDigest.isEqual(clientMac, mac(CLIENT_LABEL, serverNonce, clientNonce))) {
        LOG.warn("refused {}: wrong job secret", peer);
        throw new AuthenticationException(peer, "wrong job secret");
      }
      out.write(mac(SERVER_LABEL, clientNonce, serverNonce));
      out.flush();
    } catch (AuthenticationException e) {
      throw e;
    } catch (IOException e) {
      LOG.warn("refused {}: handshake failed: {}", peer, describe(e));
      throw new AuthenticationException(peer, "handshake failed: " + describe(e), e);
    }
  }

  /** The connecting side over raw streams; reads exactly the handshake's bytes. */
  public void asClient(InputStream in, OutputStream out, String peer) throws AuthenticationException {
    try {
      DataInputStream din = new DataInputStream(in);
      byte[] magic = new byte[MAGIC.length];
      din.readFully(magic);
      if (!Arrays.equals(magic, MAGIC)) {
        throw new AuthenticationException(peer, "not an EDL endpoint (bad handshake magic)");
      }
      byte[] serverNonce = new byte[NONCE_BYTES];
      din.readFully(serverNonce);
      byte[] clientNonce = nonce();
      out.write(concat(clientNonce, mac(CLIENT_LABEL, serverNonce, clientNonce)));
      out.flush();
      byte[] serverMac = new byte[MAC_BYTES];
      din.readFully(serverMac);
      if (!MessageDigest.isEqual(serverMac, mac(SERVER_LABEL, clientNonce, serverNonce))) {
        throw new AuthenticationException(peer, "server does not know the job secret");
      }
    } catch (AuthenticationException e) {
      throw e;
    } catch (EOFException e) {
      throw new AuthenticationException(peer, "refused by the server (wrong job secret?)", e);
    } catch (IOException e) {
      throw new AuthenticationException(peer, "handshake failed: " + describe(e), e);
    }
  }

  private interface Exchange {
    void run() throws IOException;
  }

  private void withTimeout(Socket socket, String peer, Exchange exchange)
      throws AuthenticationException {
    try {
      int previous = socket.getSoTimeout();
      socket.setSoTimeout(timeoutMillis);
      exchange.run();
      socket.setSoTimeout(previous);
    } catch (AuthenticationException e) {
      throw e;
    } catch (IOException e) {
      throw new AuthenticationException(peer, "handshake failed: " + describe(e), e);
    }
  }

  private static String describe(IOException e) {
    if (e instanceof SocketTimeoutException) {
      return "timed out";
    }
    if (e instanceof EOFException) {
      return "connection closed";
    }
    return e.toString();
  }

  private byte[] nonce() {
    byte[] n = new byte[NONCE_BYTES];
    random.nextBytes(n);
    return n;
  }

  private byte[] mac(byte[] label, byte[] first, byte[] second) {
    try {
      Mac m = Mac.getInstance(HMAC);
      m.init(key);
      m.update(label);
      m.update(first);
      m.update(second);
      return m.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is required of every Java runtime", e);
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] r = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }
}
