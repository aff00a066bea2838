package org.edl.cluster.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The nemesis's cuts on a real host network: a cut direction drops packets silently while the
 * other flows, healing restores it, and an isolated host reaches neither the other hosts nor the
 * machine while those still reach each other.
 */
class LinkCutsTest {
  /** Nothing listens there: a reachable host answers a connect with a reset at once. */
  private static final int CLOSED_PORT = 9;

  @BeforeAll
  static void needsRootAndIproute2() {
    var why = HostNetwork.unavailable();
    assumeTrue(why.isEmpty(), () -> "skipped: " + why.orElse(""));
  }

  @Test
  void aCutDirectionDropsSilentlyWhileTheOtherFlowsAndHealingRestoresIt() throws Exception {
    try (HostNetwork network = HostNetwork.create(2, 1.0)) {
      SimulatedHost h1 = network.hosts().get(0);
      SimulatedHost h2 = network.hosts().get(1);
      LinkCuts cuts = new LinkCuts(network, Clock.systemUTC());
      Listener at1 = Listener.start(h1, 7002);
      Listener at2 = Listener.start(h2, 7001);
      try {
        send(h1, h2, 7001, "before");
        assertEquals("before", at2.next(5));
        cuts.cut(h1, h2);
        assertEquals(java.util.Set.of("h1>h2"), cuts.cuts());
        send(h1, h2, 7001, "during"); // sent without an error: the sender cannot tell
        assertNull(at2.next(2), "nothing from h1 reaches h2 while cut");
        send(h2, h1, 7002, "back");
        assertEquals("back", at1.next(5), "the other direction still flows");
        cuts.heal(h1, h2);
        send(h1, h2, 7001, "after");
        assertEquals("after", at2.next(5));
      } finally {
        at1.close();
        at2.close();
      }
      List<LinkCuts.Action> history = cuts.history();
      assertEquals(List.of("cut h1 -> h2", "healed h1 -> h2"), history.stream().map(LinkCuts.Action::what).toList());
      assertFalse(history.get(1).at().isBefore(history.get(0).at()));
      assertTrue(cuts.cuts().isEmpty());
    }
  }

  @Test
  void anIsolatedHostReachesNobodyWhileTheOthersStillReachEachOther() throws Exception {
    try (HostNetwork network = HostNetwork.create(3, 1.0)) {
      SimulatedHost h1 = network.hosts().get(0);
      SimulatedHost h2 = network.hosts().get(1);
      SimulatedHost h3 = network.hosts().get(2);
      LinkCuts cuts = new LinkCuts(network, Clock.systemUTC());
      assertTrue(reaches(h2, h1) && machineReaches(h1), "all reachable before");

      cuts.isolate(h1);
      assertFalse(reaches(h2, h1), "h2 -> h1");
      assertFalse(reaches(h1, h3), "h1 -> h3");
      assertFalse(machineReaches(h1), "machine -> h1");
      assertTrue(reaches(h2, h3), "h2 -> h3 is not cut");
      assertTrue(machineReaches(h2), "machine -> h2 is not cut");

      cuts.healAll();
      assertTrue(cuts.cuts().isEmpty());
      assertTrue(reaches(h2, h1) && reaches(h1, h3) && machineReaches(h1), "healed");
    }
  }

  /** A connect from {@code from} to a closed port of {@code to}: refused (reached) or no answer in 2 s. */
  private static boolean reaches(SimulatedHost from, SimulatedHost to) throws Exception {
    Process p = new ProcessBuilder(from.command(List.of("timeout", "2", "bash", "-c",
        "echo > /dev/tcp/" + to.address() + "/" + CLOSED_PORT))).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(10, TimeUnit.SECONDS));
    if (p.exitValue() == 124) {
      return false;
    }
    assertTrue(out.contains("Connection refused"), "exit " + p.exitValue() + ": " + out);
    return true;
  }

  private static boolean machineReaches(SimulatedHost to) throws Exception {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(to.address(), CLOSED_PORT), 2000);
      throw new AssertionError("something listens on " + to.address() + ":" + CLOSED_PORT);
    } catch (ConnectException refused) {
      return true;
    } catch (SocketTimeoutException cut) {
      return false;
    }
  }

  private static void send(SimulatedHost from, SimulatedHost to, int port, String line) throws Exception {
    Commands.run(from.command(List.of("bash", "-c", "echo " + line + " > /dev/udp/" + to.address() + "/" + port)));
  }

  /** A {@link DatagramTally} in a host, its lines read as they come. */
  private record Listener(Process process, BlockingQueue<String> lines) implements AutoCloseable {
    static Listener start(SimulatedHost host, int port) throws Exception {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      String classes = Path.of(DatagramTally.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .toString();
      Process p = new ProcessBuilder(new ArrayList<>(host.command(List.of(java, "-cp", classes,
          DatagramTally.class.getName(), host.address(), Integer.toString(port))))).redirectErrorStream(true).start();
      BlockingQueue<String> lines = new LinkedBlockingQueue<>();
      BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      Thread reader = new Thread(() -> {
        try {
          for (String l = out.readLine(); l != null; l = out.readLine()) {
            lines.add(l);
          }
        } catch (java.io.IOException ended) {
          // the process was closed
        }
      }, "tally-" + host.name());
      reader.setDaemon(true);
      reader.start();
      Listener listener = new Listener(p, lines);
      assertEquals("listening", listener.next(30), "the listener in " + host.name() + " started");
      return listener;
    }

    /** The next line within {@code seconds}; null: none came. */
    String next(int seconds) throws InterruptedException {
      return lines.poll(seconds, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
      process.destroyForcibly();
    }
  }
}
