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

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    server = new TestingServer();
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    // JUnit calls beforeAll only for a static registration; an instance one starts per test.
    if (server == null) {
      perTest = true;
      server = new TestingServer();
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
