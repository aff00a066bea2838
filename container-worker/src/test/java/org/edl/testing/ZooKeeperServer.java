package org.edl.testing;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real ZooKeeper server (Curator's {@link TestingServer}) owned by the test that registers it.
 * As a static field, {@code @RegisterExtension static final ZooKeeperServer ZK = new
 * ZooKeeperServer();}, one server serves the whole class; as an instance field each test gets a
 * fresh one (for tests that stop, restart or expire it).
 */
public final class ZooKeeperServer
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
  private TestingServer server;
  private boolean perTest;
  /** ZooKeeper's cap on a session's timeout (its default is 20 ticks, 60 s); null: the default. */
  private final Integer maxSessionTimeoutMs;

  public ZooKeeperServer() {
    this(null);
  }

  private ZooKeeperServer(Integer maxSessionTimeoutMs) {
    this.maxSessionTimeoutMs = maxSessionTimeoutMs;
  }

  /** A server that grants sessions as long as {@code max}, for tests that must outlast one. */
  public static ZooKeeperServer allowingSessionsUpTo(java.time.Duration max) {
    return new ZooKeeperServer(Math.toIntExact(max.toMillis()));
  }

  private TestingServer start() throws Exception {
    if (maxSessionTimeoutMs == null) {
      return new TestingServer();
    }
    return new TestingServer(new org.apache.curator.test.InstanceSpec(null, -1, -1, -1, true, -1, -1, -1,
        java.util.Map.of("maxSessionTimeout", Integer.toString(maxSessionTimeoutMs))), true);
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    server = start();
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    // JUnit calls beforeAll only for a static registration; an instance one starts per test.
    if (server == null) {
      perTest = true;
      server = start();
    }
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    if (perTest) {
      close();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    close();
  }

  private void close() throws Exception {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  /** The server (to stop, restart or read), while the test or class that owns it runs. */
  public TestingServer server() {
    if (server == null) {
      throw new IllegalStateException("the ZooKeeper server runs only while its test or class does");
    }
    return server;
  }

  public String connectString() {
    return server().getConnectString();
  }

  /** A started Curator client of this server; the caller closes it. */
  public CuratorFramework newClient() {
    CuratorFramework client = CuratorFrameworkFactory.newClient(connectString(), new ExponentialBackoffRetry(100, 5));
    client.start();
    return client;
  }
}
