package org.edl.am;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.async.AMRMClientAsync;

/**
 * The AM's container requests outstanding at the resource manager, by kind: the job's own
 * workers, workers pinned to a host (a migration's), and elastic extras. Each allocation is
 * matched to the request it answers, which is then removed, so the AMRM client does not ask for
 * it again. Main thread only, like the driver that owns it.
 */
final class ContainerRequests {
  private static final Priority WORKER_PRIORITY = Priority.newInstance(1);
  /**
   * Host-pinned requests (relaxLocality=false) get a priority of their own: the AMRM client
   * refuses mixed locality relaxation within one priority.
   */
  private static final Priority PINNED_PRIORITY = Priority.newInstance(2);
  /**
   * Elastic extras: a larger number is a lower priority in YARN, so the job's own workers (and a
   * migration's) are served before any extra it asks for.
   */
  private static final Priority EXTRA_PRIORITY = Priority.newInstance(3);

  private final AMRMClientAsync<ContainerRequest> resourceManager;
  private final ArrayDeque<ContainerRequest> plain = new ArrayDeque<>();
  private final List<ContainerRequest> pinned = new ArrayList<>();
  private final ArrayDeque<ContainerRequest> extras = new ArrayDeque<>();

  ContainerRequests(AMRMClientAsync<ContainerRequest> resourceManager) {
    this.resourceManager = resourceManager;
  }

  void ask(int count, WorkerResource resource) {
    Resource capability = capability(resource);
    for (int i = 0; i < count; i++) {
      add(plain, new ContainerRequest(capability, null, null, WORKER_PRIORITY));
    }
  }

  void askOn(int count, WorkerResource resource, String host) {
    Resource capability = capability(resource);
    for (int i = 0; i < count; i++) {
      add(pinned, new ContainerRequest(capability, new String[] {host}, null, PINNED_PRIORITY, false));
    }
  }

  void askExtra(WorkerResource resource) {
    add(extras, new ContainerRequest(capability(resource), null, null, EXTRA_PRIORITY));
  }

  void withdrawPlain() {
    withdraw(plain);
  }

  void withdrawExtras() {
    withdraw(extras);
  }

  /** Whether {@code c} answers an elastic extra's request (it joins the job differently). */
  static boolean isExtra(Container c) {
    return EXTRA_PRIORITY.equals(c.getPriority());
  }

  /** The request {@code c} answers, removed: a pinned one on its host, an extra, else the oldest plain one. */
  void answered(Container c) {
    ContainerRequest request = matching(c);
    if (request != null) {
      resourceManager.removeContainerRequest(request);
    }
  }

  private ContainerRequest matching(Container c) {
    if (isExtra(c)) {
      return extras.poll();
    }
    if (PINNED_PRIORITY.equals(c.getPriority())) {
      String host = c.getNodeId().getHost();
      for (int i = 0; i < pinned.size(); i++) {
        if (pinned.get(i).getNodes().contains(host)) {
          return pinned.remove(i);
        }
      }
    }
    return plain.poll();
  }

  private void add(java.util.Collection<ContainerRequest> kind, ContainerRequest request) {
    kind.add(request);
    resourceManager.addContainerRequest(request);
  }

  private void withdraw(ArrayDeque<ContainerRequest> requests) {
    while (!requests.isEmpty()) {
      resourceManager.removeContainerRequest(requests.poll());
    }
  }

  private static Resource capability(WorkerResource resource) {
    Resource capability = Resource.newInstance(resource.memoryMb(), resource.vcores());
    if (resource.gpus() > 0) {
      // Known to the client side once registration returned the cluster's resource types.
      capability.setResourceInformation(ResourceInformation.GPU_URI,
          ResourceInformation.newInstance(ResourceInformation.GPU_URI, "", resource.gpus()));
    }
    return capability;
  }
}
