package org.edl.cluster.hosts;

import java.util.ArrayList;
import java.util.List;

/**
 * One host of the multi-host cluster: a Linux network namespace with its own address on the
 * cluster's bridge. Its address is also its name (nothing resolves a made-up host name in every
 * namespace and in the client's), so every daemon binds and advertises the address itself.
 */
public record SimulatedHost(String name, String namespace, String address) {
  /**
   * {@code command} run inside this host's network namespace with a {@code /dev/shm} of its own,
   * as another machine has: a NodeManager's containers then share memory with each other but not
   * with another host's, whose segments they cannot open. ({@code ip netns exec} gives each
   * command a mount namespace whose mounts do not reach the machine's.)
   */
  public List<String> commandWithOwnSharedMemory(List<String> command) {
    List<String> in = new ArrayList<>(List.of("ip", "netns", "exec", namespace, "sh", "-c",
        "mount -t tmpfs -o mode=1777 edl-shm /dev/shm && exec \"$@\"", "sh"));
    in.addAll(command);
    return in;
  }

  /**
   * {@code command} run beside process {@code pid} of this host, one started with {@link
   * #commandWithOwnSharedMemory}: in its network namespace and with its {@code /dev/shm}, as a
   * second container of one NodeManager shares memory with the first.
   */
  public List<String> commandBeside(long pid, List<String> command) {
    List<String> in = new ArrayList<>(List.of("nsenter", "--target", Long.toString(pid), "--mount", "--net", "--"));
    in.addAll(command);
    return in;
  }

  /** {@code command} run inside this host's network namespace. */
  public List<String> command(List<String> command) {
    List<String> in = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
    in.addAll(command);
    return in;
  }
}
