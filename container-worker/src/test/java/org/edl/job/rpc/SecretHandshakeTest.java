package org.edl.job.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.edl.job.JobSecret;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SecretHandshakeTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private final JobSecret secret = JobSecret.generate();
  private ServerSocket listener;

  @BeforeEach
  void listen() throws IOException {
    listener = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
  }

  @AfterEach
  void close() throws IOException {
    listener.close();
  }

  /** Accepts one connection, runs the server side, then echoes one byte to show the stream is intact. */
  private CompletableFuture<Void> serveOnce(JobSecret serverSecret, Duration timeout) {
    return CompletableFuture.runAsync(() -> {
      try (Socket s = listener.accept()) {
        new SecretHandshake(serverSecret, timeout).asServer(s);
        int b = s.getInputStream().read();
        s.getOutputStream().write(b + 1);
        s.getOutputStream().flush();
      } catch (IOException e) {
        throw new java.util.concurrent.CompletionException(e);
      }
    });
  }

  private Socket dial() throws IOException {
    return new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort());
  }

  @Test
  void sameSecretPassesBothWaysAndLeavesTheStreamForTheCaller() throws Exception {
    CompletableFuture<Void> server = serveOnce(JobSecret.of(secret.bytes()), TIMEOUT);
    try (Socket s = dial()) {
      new SecretHandshake(secret, TIMEOUT).asClient(s);
      s.getOutputStream().write(41);
      assertEquals(42, s.getInputStream().read());
    }
    server.get(10, TimeUnit.SECONDS);
  }

  @Test
  void wrongSecretIsRefusedOnBothSides() throws Exception {
    CompletableFuture<Void> server = serveOnce(JobSecret.generate(), TIMEOUT);
    try (Socket s = dial()) {
      AuthenticationException client =
          assertThrows(AuthenticationException.class, () -> new SecretHandshake(secret, TIMEOUT).asClient(s));
      assertTrue(client.getMessage().contains("refused"), client.getMessage());
    }
    ExecutionException e = assertThrows(ExecutionException.class, () -> server.get(10, TimeUnit.SECONDS));
    AuthenticationException refused = (AuthenticationException) e.getCause();
    assertTrue(refused.getMessage().contains("wrong job secret"), refused.getMessage());
    assertTrue(refused.peer().contains("127.0.0.1"), refused.peer());
  }

  @Test
  void theSecretNeverCrossesTheWire() throws Exception {
    byte[] key = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    CapturingStreams wire = new CapturingStreams();
    CompletableFuture<Void> server = CompletableFuture.runAsync(() -> {
      try (Socket s = listener.accept()) {
        new SecretHandshake(JobSecret.of(key), TIMEOUT)
            .asServer(wire.tap(s.getInputStream()), wire.tap(s.getOutputStream()), "client");
      } catch (IOException ex) {
        throw new java.util.concurrent.CompletionException(ex);
      }
    });
    try (Socket s = dial()) {
      new SecretHandshake(JobSecret.of(key), TIMEOUT).asClient(s);
    }
    server.get(10, TimeUnit.SECONDS);
    String seen = wire.text();
    assertTrue(seen.length() > 100, "captured the exchange");
    assertFalse(seen.contains("0123456789abcdef"), "secret on the wire");
  }

  @Test
  void aSilentPeerTimesOut() throws Exception {
    CompletableFuture<Void> server = serveOnce(secret, Duration.ofMillis(200));
    try (Socket s = dial()) {
      // Connected but never answers the challenge.
      ExecutionException e = assertThrows(ExecutionException.class, () -> server.get(10, TimeUnit.SECONDS));
      assertTrue(e.getCause() instanceof AuthenticationException, String.valueOf(e.getCause()));
      assertTrue(e.getCause().getMessage().contains("timed out"), e.getCause().getMessage());
    }
  }

  @Test
  void aClientRefusesAnEndpointThatIsNotEdl() throws Exception {
    CompletableFuture<Void> notEdl = CompletableFuture.runAsync(() -> {
      try (Socket s = listener.accept()) {
        s.getOutputStream().write("HTTP/1.1 400 Bad Request\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        s.getInputStream().read();
      } catch (IOException ignored) {
        // the client hangs up
      }
    });
    try (Socket s = dial()) {
      AuthenticationException e =
          assertThrows(AuthenticationException.class, () -> new SecretHandshake(secret, TIMEOUT).asClient(s));
      assertTrue(e.getMessage().contains("not an EDL endpoint"), e.getMessage());
    }
    notEdl.get(10, TimeUnit.SECONDS);
  }

  /** Records every byte the server reads and writes. */
  private static final class CapturingStreams {
    private final java.io.ByteArrayOutputStream seen = new java.io.ByteArrayOutputStream();

    synchronized String text() {
      return seen.toString(StandardCharsets.ISO_8859_1);
    }

    InputStream tap(InputStream in) {
      return new java.io.FilterInputStream(in) {
        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          int n = super.read(b, off, len);
          if (n > 0) {
            synchronized (CapturingStreams.this) {
              seen.write(b, off, n);
            }
          }
          return n;
        }
      };
    }

    OutputStream tap(OutputStream out) {
      return new java.io.FilterOutputStream(out) {
        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          synchronized (CapturingStreams.this) {
            seen.write(b, off, len);
          }
          out.write(b, off, len);
        }
      };
    }
  }
}
