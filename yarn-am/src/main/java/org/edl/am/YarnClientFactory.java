package org.edl.am;

import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.async.AMRMClientAsync;
import org.apache.hadoop.yarn.client.api.async.NMClientAsync;

/** Where {@link YarnContainerDriver} gets its YARN clients; tests pass their own. */
public interface YarnClientFactory {
  AMRMClientAsync<ContainerRequest> resourceManagerClient(int heartbeatMs,
      AMRMClientAsync.AbstractCallbackHandler handler);

  NMClientAsync nodeManagerClient(NMClientAsync.AbstractCallbackHandler handler);

  /** The client for questions about the cluster itself (which nodes run). */
  YarnClient clusterClient();

  /** The real clients. */
  static YarnClientFactory real() {
    return new YarnClientFactory() {
      @Override
      public AMRMClientAsync<ContainerRequest> resourceManagerClient(int heartbeatMs,
          AMRMClientAsync.AbstractCallbackHandler handler) {
        return AMRMClientAsync.createAMRMClientAsync(heartbeatMs, handler);
      }

      @Override
      public NMClientAsync nodeManagerClient(NMClientAsync.AbstractCallbackHandler handler) {
        return NMClientAsync.createNMClientAsync(handler);
      }

      @Override
      public YarnClient clusterClient() {
        return YarnClient.createYarnClient();
      }
    };
  }
}
