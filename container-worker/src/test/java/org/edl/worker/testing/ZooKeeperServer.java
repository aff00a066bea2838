package org.edl.worker.testing;

import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real ZooKeeper server (Curator's {@link TestingServer}) for one test class:
 * {@code @RegisterExtension static final ZooKeeperServer ZK = new ZooKeeperServer();} starts it
 * before the class's first test and stops it after its last.
 */
public final class ZooKeeperServer implements BeforeAllCallback, AfterAllCallback {
  private TestingServer server;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    server = new TestingServer();
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (server != null) {
      server.close();
    }
  }

  /** The server, while the class's tests run. */
  public TestingServer server() {
    if (server == null) {
      throw new IllegalStateException("the ZooKeeper server runs only while the test class does");
    }
    return server;
  }

  public String connectString() {
    return server().getConnectString();
  }
}
