package org.edl.cluster.hosts;

import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * How each NodeManager of the multi-host cluster comes to advertise its {@code yarn.io/gpu}: here
 * a fixed count (the shipped yarn-site.xml's alternative for a node without the GPU plugin), since
 * these hosts have no GPUs for the plugin's nvidia-smi to find.
 */
record GpuSupply(int perHost) {
  static final String PLUGINS_KEY = "yarn.nodemanager.resource-plugins";

  void configure(Configuration yarnSite, Path hostDir) {
    yarnSite.unset(PLUGINS_KEY);
    yarnSite.setInt(YarnConfiguration.NM_RESOURCES_PREFIX + ResourceInformation.GPU_URI, perHost);
  }
}
