package org.edl.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Starts the embedded cluster's YARN ({@link MiniYARNCluster}) where several run on one machine. */
final class MiniYarnStart {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedCluster.class);
  /** YARN starts, each on a newly chosen RM web port, before a port taken every time is an error. */
  private static final int WEB_PORT_ATTEMPTS = 3;
  /** GenericTestUtils roots MiniYARNCluster's working directory here (default: target/). */
  private static final String TEST_DATA_DIR = "test.build.data";

  private MiniYarnStart() {}

  /**
   * Starts YARN with the ResourceManager's web port chosen beforehand (see {@link
   * ResourceManagerPorts}). The port is free when chosen but not held until the RM binds it, so
   * another process can take it in between: the RM then fails to start, and YARN starts again on
   * another port.
   */
  static MiniYARNCluster onAFreeWebPort(Path dir, YarnConfiguration conf, int nodes, ServiceStops stops)
      throws IOException {
    for (int attempt = 1; ; attempt++) {
      // A copy each time: the RM writes the ports it bound into its configuration.
      YarnConfiguration attemptConf = new YarnConfiguration(conf);
      int webPort = ResourceManagerPorts.freePort();
      ResourceManagerPorts.webAt(attemptConf, MiniYARNCluster.getHostname(), webPort);
      MiniYARNCluster yarn = newMiniYarnCluster(dir, nodes);
      ServiceStops.Stop stop = stops.add("YARN", yarn::stop);
      try {
        yarn.init(attemptConf);
        yarn.start();
        return yarn;
      } catch (RuntimeException e) {
        // The RM starts in a thread of its own; MiniYARNCluster's exception does not carry its cause.
        ResourceManager rm = yarn.getResourceManager(0);
        if (attempt == WEB_PORT_ATTEMPTS || rm == null || !ResourceManagerPorts.portTaken(rm.getFailureCause())) {
          throw e;
        }
        stops.forget(stop);
        yarn.stop();
        LOG.warn("The ResourceManager's web port {} was taken before the RM bound it; starting YARN again", webPort);
      }
    }
  }

  private static MiniYARNCluster newMiniYarnCluster(Path dir, int nodes) throws IOException {
    Files.createDirectories(dir);
    // MiniYARNCluster reads its working directory from a system property in its constructor
    // only; set it for that call and put it back.
    synchronized (System.class) {
      String previous = System.getProperty(TEST_DATA_DIR);
      System.setProperty(TEST_DATA_DIR, dir.toString());
      try {
        return new MiniYARNCluster("edl", 1, nodes, 1, 1);
      } finally {
        if (previous == null) {
          System.clearProperty(TEST_DATA_DIR);
        } else {
          System.setProperty(TEST_DATA_DIR, previous);
        }
      }
    }
  }
}
