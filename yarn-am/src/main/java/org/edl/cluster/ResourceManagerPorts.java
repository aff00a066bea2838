package org.edl.cluster;

import java.io.IOException;
import java.net.BindException;
import java.net.ServerSocket;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.webapp.util.WebAppUtils;

/**
 * The embedded ResourceManager's addresses, set before MiniYARNCluster starts it.
 *
 * <p>Left to itself MiniYARNCluster gives the RM's web UI port 0, and the RM builds two things from
 * that address before its web server has bound a real port: the proxy address in every tracking
 * URL ({@code RMContextImpl}) and the RM application page the web proxy redirects an ended
 * application to ({@code DefaultAppReportFetcher}). Both would then say port 0. So the web port
 * is chosen here, free, ahead of the start; the RPC ports can stay ephemeral, because the RM
 * writes their bound ports back into its configuration before anything reads them.
 */
final class ResourceManagerPorts {
  /** The RPC addresses MiniYARNCluster would otherwise set to port 0 itself. */
  private static final List<String> RPC_ADDRESSES = List.of(
      YarnConfiguration.RM_ADDRESS,
      YarnConfiguration.RM_ADMIN_ADDRESS,
      YarnConfiguration.RM_SCHEDULER_ADDRESS,
      YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS);

  private ResourceManagerPorts() {}

  /**
   * Makes MiniYARNCluster keep {@code conf}'s RM addresses. Its "fixed ports" mode does that and
   * otherwise only leaves the timeline server's addresses alone, a server this cluster does not
   * run; the NodeManagers still get ephemeral ports.
   */
  static void webAt(Configuration conf, String host, int webPort) {
    conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_FIXED_PORTS, true);
    for (String key : RPC_ADDRESSES) {
      conf.set(key, host + ":0");
    }
    WebAppUtils.setRMWebAppHostnameAndPort(conf, host, webPort);
  }

  /** A port nothing listens on now; another process may take it before the RM binds it. */
  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** Whether the RM failed to start with {@code cause} because a port it wanted was taken. */
  static boolean portTaken(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof BindException) {
        return true;
      }
    }
    return false;
  }
}
