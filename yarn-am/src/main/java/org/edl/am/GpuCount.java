package org.edl.am;

import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;

/** The {@code yarn.io/gpu} count of a YARN resource. */
public final class GpuCount {
  private GpuCount() {}

  /** None where the resource is null or the GPU type is unknown to this JVM or the cluster. */
  public static long of(Resource capability) {
    try {
      return capability == null ? 0 : capability.getResourceValue(ResourceInformation.GPU_URI);
    } catch (RuntimeException unknownType) {
      return 0;
    }
  }
}
