package org.edl.worker.collective;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.edl.job.JobSecret;
import org.edl.job.rpc.AuthenticationException;
import org.edl.job.rpc.RefusalListener;
import org.edl.job.rpc.SecretHandshake;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's end of the TCP data plane: one listening socket that peers dial, and outgoing
 * connections to peers. Every connection passes the {@link SecretHandshake} and then announces a
 * {@link ConnectionHeader}; the accepting side hands it to whoever {@link #accept}s that
 * (sender, tag, topology version). Handshakes run on their own threads so one slow peer does not
 * hold up the others.
 */
public final class DataPlane implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DataPlane.class);

  private record Key(String senderId, String tag, long version) {}

  private final String selfId;
  private final ServerSocketChannel server;
  private final SecretHandshake handshake;
  private final Duration handshakeTimeout;
  private final RefusalListener listener;
  private final AtomicLong refused = new AtomicLong();
  private final Map<Key, CompletableFuture<PeerLink>> arrivals = new ConcurrentHashMap<>();
  private final ExecutorService handshakes;
  private final Thread acceptor;
  private volatile boolean closed;
  private volatile Path sharedMemoryDir;

  private DataPlane(String selfId, ServerSocketChannel server, JobSecret secret,
      Duration handshakeTimeout, RefusalListener listener) {
    this.selfId = selfId;
    this.server = server;
    this.handshake = new SecretHandshake(secret, handshakeTimeout);
    this.handshakeTimeout = handshakeTimeout;
    this.listener = listener;
    this.handshakes = Executors.newCachedThreadPool(r -> daemon(r, "data-plane-" + selfId + "-handshake"));
    this.acceptor = daemon(this::acceptLoop, "data-plane-" + selfId + "-accept");
  }

  /**
   * Listens on {@code bindHost:port} (port 0: an ephemeral one, see {@link #port()}).
   *
   * @param selfId this worker's id, announced on every connection it dials
   */
  public static DataPlane start(String selfId, String bindHost, int port, JobSecret secret,
      Duration handshakeTimeout, RefusalListener listener) throws IOException {
    ServerSocketChannel server = ServerSocketChannel.open();
    server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
    server.bind(new InetSocketAddress(bindHost, port), 64);
    DataPlane plane = new DataPlane(Objects.requireNonNull(selfId, "selfId"), server, secret,
        handshakeTimeout, listener == null ? RefusalListener.NONE : listener);
    plane.acceptor.start();
    LOG.info("data plane of {} listening on {}", selfId, server.getLocalAddress());
    return plane;
  }

  public String selfId() {
    return selfId;
  }

  /**
   * Lets rings formed from now on carry frames to and from peers on this host through files in
   * {@code dir} (a tmpfs such as {@code /dev/shm}) instead of TCP; null: TCP only (the default).
   */
  public DataPlane shareMemoryIn(Path dir) {
    this.sharedMemoryDir = dir;
    return this;
  }

  /** Where this worker's rings share memory with peers on its host; null where they do not. */
  public Path sharedMemoryDir() {
    return sharedMemoryDir;
  }

  /** The bound port (the ephemeral one when started with port 0). */
  public int port() {
    return server.socket().getLocalPort();
  }

  /** Inbound connections refused by the handshake since start. */
  public long refusedCount() {
    return refused.get();
  }

  /** Dials a peer's data plane, passes the handshake and announces {@code tag} and version. */
  public PeerLink connect(String peerId, String host, int port, String tag, long topologyVersion,
      Duration timeout) throws IOException {
    SocketChannel ch = SocketChannel.open();
    try {
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      Socket s = ch.socket();
      s.connect(new InetSocketAddress(host, port), (int) Math.max(1, timeout.toMillis()));
      s.setSoTimeout((int) Math.max(1, timeout.toMillis()));
      handshake.asClient(s.getInputStream(), s.getOutputStream(), host + ":" + port);
      new ConnectionHeader(selfId, tag, topologyVersion).writeTo(new DataOutputStream(s.getOutputStream()));
      s.setSoTimeout(0);
      return new PeerLink(ch, new ConnectionHeader(selfId, tag, topologyVersion), peerId);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /**
   * Waits for {@code senderId} to dial in for {@code tag} in {@code topologyVersion}; a connection
   * that arrived earlier is returned at once.
   */
  public PeerLink accept(String senderId, String tag, long topologyVersion, Duration timeout)
      throws IOException {
    Key key = new Key(senderId, tag, topologyVersion);
    CompletableFuture<PeerLink> arrival = arrivals.computeIfAbsent(key, k -> new CompletableFuture<>());
    try {
      return arrival.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      CollectiveTimeoutException late = new CollectiveTimeoutException("no " + tag
          + " connection from " + senderId + " for topology " + topologyVersion + " within " + timeout);
      if (arrival.completeExceptionally(late)) {
        throw late;
      }
      return arrival.join(); // it arrived between the timeout and now
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw new IOException(cause instanceof IOException ? cause.getMessage() : "data plane of " + selfId + " closed", cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted waiting for " + senderId);
    } finally {
      arrivals.remove(key, arrival);
    }
  }

  /**
   * Fails every wait for a connection of topology {@code version} or older, from any thread: the
   * leader declared a member of that ring failed, so a connection it would send may never come.
   */
  public void abandon(long version, String why) {
    arrivals.forEach((key, arrival) -> {
      if (key.version() <= version) {
        arrival.completeExceptionally(new IOException("waiting for " + key.tag() + " from " + key.senderId()
            + " in topology " + key.version() + " abandoned: " + why));
      }
    });
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        SocketChannel ch = server.accept();
        handshakes.execute(() -> admit(ch));
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("data plane of {} stopped accepting", selfId, e);
        }
        return;
      } catch (java.util.concurrent.RejectedExecutionException e) {
        return;
      }
    }
  }

  private void admit(SocketChannel ch) {
    String peer = "unknown peer";
    try {
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      Socket s = ch.socket();
      peer = String.valueOf(s.getRemoteSocketAddress());
      s.setSoTimeout((int) Math.max(1, handshakeTimeout.toMillis()));
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      handshake.asServer(in, out, peer);
      ConnectionHeader header = ConnectionHeader.readFrom(new DataInputStream(in));
      s.setSoTimeout(0);
      PeerLink link = new PeerLink(ch, header, header.senderId());
      CompletableFuture<PeerLink> arrival =
          arrivals.computeIfAbsent(new Key(header.senderId(), header.tag(), header.topologyVersion()),
              k -> new CompletableFuture<>());
      if (!arrival.complete(link)) {
        LOG.warn("data plane of {}: dropped a second {} connection from {} for topology {}",
            selfId, header.tag(), header.senderId(), header.topologyVersion());
        link.close();
      }
    } catch (AuthenticationException e) {
      refused.incrementAndGet();
      listener.refused(e.peer(), e);
      closeQuietly(ch);
    } catch (IOException | RuntimeException e) {
      LOG.warn("data plane of {}: dropped connection from {}: {}", selfId, peer, e.toString());
      closeQuietly(ch);
    }
  }

  /** Stops listening and closes connections nobody has claimed; claimed links belong to their users. */
  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    handshakes.shutdownNow();
    try {
      acceptor.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    IOException gone = new IOException("data plane closed");
    arrivals.forEach((key, arrival) -> {
      if (!arrival.completeExceptionally(gone)) {
        arrival.thenAccept(PeerLink::close);
      }
    });
    arrivals.clear();
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException ignored) {
      // already going away
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
