package org.edl.am;

import java.util.Set;

/**
 * What {@link FleetChange#landed} needs of the fleet: the target, the containers it holds, and
 * whether every container it requested has been allocated and has started.
 */
record FleetView(int target, Set<String> live, boolean containersIn) {
  boolean isLive(String containerId) {
    return live.contains(containerId);
  }
}
