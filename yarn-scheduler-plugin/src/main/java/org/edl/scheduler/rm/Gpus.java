package org.edl.scheduler.rm;

import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;

/** The {@code yarn.io/gpu} part of a resource, 0 on a cluster that does not know GPUs. */
final class Gpus {
  private Gpus() {}

  static long of(Resource r) {
    if (r == null) {
      return 0;
    }
    // Looked up on every call: ResourceUtils' types are JVM-wide and can be reset.
    Integer index = ResourceUtils.getResourceTypeIndex().get(ResourceInformation.GPU_URI);
    if (index == null || index >= r.getResources().length) {
      return 0;
    }
    return r.getResources()[index].getValue();
  }
}
