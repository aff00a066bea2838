package org.edl.cluster.hosts;

import java.util.ArrayList;
import java.util.List;

/**
 * One host of the multi-host cluster: a Linux network namespace with its own address on the
 * cluster's bridge. Its address is also its name (nothing resolves a made-up host name in every
 * namespace and in the client's), so every daemon binds and advertises the address itself.
 */
public record SimulatedHost(String name, String namespace, String address) {
  /** {@code command} run inside this host's network namespace. */
  public List<String> command(List<String> command) {
    List<String> in = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
    in.addAll(command);
    return in;
  }
}
