package org.edl.cluster;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How to stop each service an embedded cluster started so far, the last started first: a start
 * that fails half way, a close and a Ctrl-C all stop exactly what runs. Guarded by the cluster's
 * lifecycle lock.
 */
final class ServiceStops {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedCluster.class);

  @FunctionalInterface
  interface StopAction {
    void run() throws Exception;
  }

  /** One started service's way to stop, named for the log. */
  record Stop(String name, StopAction action) {}

  private final Deque<Stop> stops = new ArrayDeque<>();

  Stop add(String name, StopAction action) {
    Stop s = new Stop(name, action);
    stops.push(s);
    return s;
  }

  /** A service whose start failed and that was stopped on the spot. */
  void forget(Stop s) {
    stops.remove(s);
  }

  /** Stops every service, the last started first; one that fails to stop does not keep the others running. */
  void stopAll() {
    while (!stops.isEmpty()) {
      Stop s = stops.pop();
      try {
        s.action().run();
        LOG.info("{} stopped", s.name());
      } catch (Exception e) {
        LOG.warn("{} did not stop cleanly: {}", s.name(), e.toString(), e);
      }
    }
  }
}
