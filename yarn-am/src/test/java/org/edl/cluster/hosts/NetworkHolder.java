package org.edl.cluster.hosts;

import java.util.List;

/**
 * A run that makes a host network of two hosts, starts {@code sleep} in the first, prints
 * "ready NAMESPACE SLEEPER_PID" and waits to be killed (or for its parent to go): what {@code bin/edl cluster --hosts}
 * leaves when it is ended with {@code kill -9}.
 */
public final class NetworkHolder {
  private NetworkHolder() {}

  public static void main(String[] args) throws Exception {
    HostNetwork network = HostNetwork.create(2, 1.0);
    SimulatedHost host = network.hosts().get(0);
    Process sleeper = new ProcessBuilder(host.command(List.of("sleep", "600"))).start();
    System.out.println("ready " + host.namespace() + " " + sleeper.pid());
    System.out.flush();
    // Until it is killed, or its parent goes and its standard input closes.
    while (System.in.read() >= 0) {
      // input means nothing
    }
  }
}
