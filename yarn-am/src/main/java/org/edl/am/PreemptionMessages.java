package org.edl.am;

import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.PreemptionContainer;
import org.apache.hadoop.yarn.api.records.PreemptionContract;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;
import org.apache.hadoop.yarn.api.records.PreemptionResourceRequest;

/** YARN's preemption message read as the fleet's {@link PreemptionRequest}. */
final class PreemptionMessages {
  private PreemptionMessages() {}

  /**
   * The message's two contracts in the fleet's terms. A resource ask counts its containers and
   * their GPUs; a capability without the GPU type counts no GPUs.
   */
  static PreemptionRequest requestOf(PreemptionMessage message) {
    Set<String> named = new HashSet<>();
    if (message.getStrictContract() != null && message.getStrictContract().getContainers() != null) {
      for (PreemptionContainer c : message.getStrictContract().getContainers()) {
        named.add(c.getId().toString());
      }
    }
    int containers = 0;
    long gpus = 0;
    PreemptionContract contract = message.getContract();
    if (contract != null && contract.getResourceRequest() != null) {
      for (PreemptionResourceRequest r : contract.getResourceRequest()) {
        int n = Math.max(0, r.getResourceRequest().getNumContainers());
        containers += n;
        gpus += n * GpuCount.of(r.getResourceRequest().getCapability());
      }
    }
    return new PreemptionRequest(named, containers, gpus);
  }
}
