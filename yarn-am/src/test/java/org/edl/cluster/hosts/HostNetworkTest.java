package org.edl.cluster.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The multi-host cluster's network, made with the real {@code ip} and {@code tc}: hosts reach each
 * other and the machine over the bridge and nothing else, their links are capped, and nothing is
 * left after a close or after a run killed without one.
 */
class HostNetworkTest {
  @BeforeAll
  static void needsRootAndIproute2() {
    var why = HostNetwork.unavailable();
    assumeTrue(why.isEmpty(), () -> "skipped: " + why.orElse(""));
  }

  @Test
  void hostsReachEachOtherThroughTheBridgeAndNothingBeyondTheirSubnet() throws Exception {
    try (HostNetwork network = HostNetwork.create(3, 1.0)) {
      List<SimulatedHost> hosts = network.hosts();
      assertEquals(3, hosts.size());
      SimulatedHost server = hosts.get(1);
      SimulatedHost client = hosts.get(0);

      Process echo = start(server.command(List.of(java(), "-cp", testClasses(), LineEcho.class.getName(),
          server.address(), "7777")));
      try (BufferedReader out = new BufferedReader(new InputStreamReader(echo.getInputStream(), StandardCharsets.UTF_8))) {
        assertEquals("listening", out.readLine());
        String answer = Commands.run(client.command(List.of("bash", "-c",
            "exec 3<>/dev/tcp/" + server.address() + "/7777; echo hello >&3; cat <&3")));
        assertEquals("echo: hello from " + client.address(), answer.strip());
      } finally {
        echo.destroyForcibly();
      }

      String routes = Commands.run(client.command(List.of("ip", "-4", "route", "show")));
      assertFalse(routes.contains("default"), "a host reaches nothing but the cluster: " + routes);
      String bucket = Commands.run(client.command(List.of("tc", "qdisc", "show", "dev", "eth0")));
      assertTrue(bucket.contains("tbf") && bucket.contains("rate 1Gbit"), bucket);
    }
  }

  @Test
  void closingRemovesTheProcessesNamespacesBridgeAndOwner() throws Exception {
    HostNetwork network = HostNetwork.create(2, 0.5);
    SimulatedHost host = network.hosts().get(0);
    Process sleeper = start(host.command(List.of("sleep", "600")));

    network.close();

    assertTrue(sleeper.waitFor(30, TimeUnit.SECONDS), "the host's process ends with it");
    assertNothingLeftOf(host);
  }

  @Test
  void aNetworkLeftByARunKilledWithKillNineIsRemovedAtTheNextStart() throws Exception {
    Process run = new ProcessBuilder(java(), "-cp", System.getProperty("java.class.path"),
        NetworkHolder.class.getName()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String[] ready;
    try (var out = new BufferedReader(new InputStreamReader(run.getInputStream(),
        StandardCharsets.UTF_8))) {
      String line = out.readLine();
      assertTrue(line != null && line.startsWith("ready "), "the run did not make its network: " + line);
      ready = line.split(" ");
    }
    run.destroyForcibly(); // kill -9: no shutdown hook, nothing removed
    run.waitFor();
    String namespace = ready[1];
    ProcessHandle sleeper = ProcessHandle.of(Long.parseLong(ready[2])).orElseThrow();
    assertTrue(HostNetwork.namespaces().contains(namespace), "the killed run left its network");
    assertTrue(sleeper.isAlive(), "and the process it started in a host");

    try (HostNetwork next = HostNetwork.create(1, 1.0)) {
      assertNothingLeftOf(new SimulatedHost("h1", namespace, ""));
      assertTrue(sleeper.onExit().get(30, TimeUnit.SECONDS) != null && !sleeper.isAlive(), "the host's process ended");
      assertTrue(HostNetwork.namespaces().contains(next.hosts().get(0).namespace()), "the new run's own host stays");
    }
  }

  private static void assertNothingLeftOf(SimulatedHost host) throws Exception {
    String id = host.namespace().substring(0, host.namespace().indexOf('-'));
    assertTrue(HostNetwork.namespaces().stream().noneMatch(ns -> ns.startsWith(id)), HostNetwork.namespaces().toString());
    String links = Commands.run(List.of("ip", "-o", "link", "show"));
    assertFalse(links.contains(id), links);
    assertFalse(Files.exists(NetworkOwner.DIR.resolve(id)), "owner file left");
  }

  private static Process start(List<String> command) throws Exception {
    return new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true).start();
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static String testClasses() throws Exception {
    return Path.of(LineEcho.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
  }
}
