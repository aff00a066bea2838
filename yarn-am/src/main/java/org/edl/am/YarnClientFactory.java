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
        NMClientAsync client = NMClientAsync.createNMClientAsync(handler);
        // Stopping the client must not stop the containers it started: the ResourceManager ends
        // a finished application's containers itself, and a container on a lost node would hold
        // the AM's exit for the node managers' connect timeout (minutes) while its stop is retried.
        client.getClient().cleanupRunningContainersOnStop(false);
        return client;
      }

      @Override
      public YarnClient clusterClient() {
        return YarnClient.createYarnClient();
      }
    };
  }
}
