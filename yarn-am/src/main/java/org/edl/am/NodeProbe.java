package org.edl.am;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Whether a node manager still answers: a TCP connection to its address, made off the AM's main
 * thread (a host that is gone can take seconds to say so). A node manager that accepts the
 * connection is there, however busy; one that refuses it, or whose host does not answer within
 * the timeout, is not. Also the clock for what the driver undoes later (a host avoided for a while).
 */
final class NodeProbe implements AutoCloseable {
  private final Duration timeout;
  private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "node-probe");
    t.setDaemon(true);
    return t;
  });

  NodeProbe(Duration timeout) {
    this.timeout = timeout;
  }

  /** Connects to {@code host:port}; {@code unreachable} gets why, on the probe's thread, when it fails. */
  void probe(String host, int port, Consumer<String> unreachable) {
    thread.execute(() -> {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
      } catch (IOException e) {
        unreachable.accept(e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
      }
    });
  }

  /** Runs {@code task} on the probe's thread after {@code delay}. */
  void after(Duration delay, Runnable task) {
    thread.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
