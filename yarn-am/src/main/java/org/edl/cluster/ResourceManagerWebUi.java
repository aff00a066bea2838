package org.edl.cluster;

import com.google.inject.servlet.GuiceFilter;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.webapp.WebApp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives the ResourceManager's web UI back its pages when NodeManagers share its JVM.
 *
 * <p>Hadoop's web apps install Guice's {@code GuiceFilter} by class name, and such a filter serves
 * whichever Guice pipeline was created last in the JVM: with a MiniYARNCluster that is the last
 * NodeManager's, so the ResourceManager's port answers every page and REST call with the
 * NodeManager's "404". Pointing the shared pipeline at the ResourceManager's own makes its UI
 * and REST API work; the NodeManagers' web pages are
 * given up (their container logs are in HDFS once an application ends, see {@code yarn logs}).
 *
 * <p>Private members are reached by reflection, so a Hadoop or Guice upgrade can break this; it
 * then logs a warning and the cluster runs on without a working web UI.
 */
final class ResourceManagerWebUi {
  private static final Logger LOG = LoggerFactory.getLogger(ResourceManagerWebUi.class);

  private ResourceManagerWebUi() {}

  /** @return whether the ResourceManager's pipeline now serves its port */
  static boolean reclaim(ResourceManager rm) {
    try {
      Method getWebapp = ResourceManager.class.getDeclaredMethod("getWebapp");
      getWebapp.setAccessible(true);
      WebApp webApp = (WebApp) getWebapp.invoke(rm);
      Field filterField = WebApp.class.getDeclaredField("guiceFilter");
      filterField.setAccessible(true);
      GuiceFilter rmFilter = (GuiceFilter) filterField.get(webApp);
      Field pipelineField = GuiceFilter.class.getDeclaredField("injectedPipeline");
      pipelineField.setAccessible(true);
      Object rmPipeline = pipelineField.get(rmFilter);
      Method setPipeline = GuiceFilter.class.getDeclaredMethod("setPipeline", pipelineField.getType());
      setPipeline.setAccessible(true);
      setPipeline.invoke(null, rmPipeline);
      return true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn("The ResourceManager web UI will answer with the NodeManagers' pages (could not reclaim it: {})",
          e.toString());
      return false;
    }
  }
}
