package org.edl.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.BindException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.webapp.WebAppException;
import org.apache.hadoop.yarn.webapp.util.WebAppUtils;
import org.junit.jupiter.api.Test;

class ResourceManagerPortsTest {
  @Test
  void theWebPortIsTheChosenOneAndTheRpcPortsStayEphemeral() {
    Configuration conf = new YarnConfiguration();
    ResourceManagerPorts.webAt(conf, "node-1", 41234);
    assertTrue(conf.getBoolean(YarnConfiguration.YARN_MINICLUSTER_FIXED_PORTS, false),
        "without fixed ports MiniYARNCluster would set the web port back to 0");
    assertEquals("node-1:41234", WebAppUtils.getRMWebAppURLWithoutScheme(conf));
    for (String key : new String[] {YarnConfiguration.RM_ADDRESS, YarnConfiguration.RM_ADMIN_ADDRESS,
        YarnConfiguration.RM_SCHEDULER_ADDRESS, YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS}) {
      assertEquals("node-1:0", conf.get(key), key);
    }
  }

  /** How a taken web port reaches the RM's failure: Jetty's BindException inside WebApps' exception. */
  @Test
  void aBindExceptionAnywhereInTheCauseIsAPortTaken() {
    assertTrue(ResourceManagerPorts.portTaken(
        new WebAppException("Error starting http server", new BindException("Port in use: node-1:41234"))));
    assertFalse(ResourceManagerPorts.portTaken(new IllegalStateException("no scheduler", new IOException("disk"))));
    assertFalse(ResourceManagerPorts.portTaken(null));
  }
}
