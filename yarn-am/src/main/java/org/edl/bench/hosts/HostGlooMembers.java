package org.edl.bench.hosts;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;
import org.edl.cluster.hosts.SimulatedHost;

/**
 * PyTorch's gloo on the same hosts: {@code gloo_allreduce.py --rank r}, one process per member,
 * {@code perHost} on every host in host order (ranks host-major, so gloo's ring crosses between
 * hosts where ours does), meeting at rank 0's TCP store on the first host's address and sending
 * over each host's {@code eth0}. Gloo has no shared-memory transport: two members of one host talk
 * TCP over the host's loopback.
 */
final class HostGlooMembers {
  /** torch.distributed's usual rendezvous port; the hosts' namespaces have nothing else on it. */
  private static final int STORE_PORT = 29500;
  private static final long TIMEOUT_MINUTES = 30;

  private HostGlooMembers() {}

  /**
   * Runs every size and hands each {@code (bytes, median seconds)} to {@code point} as rank 0
   * prints it.
   */
  static void run(List<SimulatedHost> hosts, int perHost, List<Long> sizes, int iterations, int warmup,
      String python, Path script, Path logDir, BiConsumer<Long, Double> point) throws IOException {
    int members = hosts.size() * perHost;
    List<MemberProcess> started = new ArrayList<>();
    try {
      for (int rank = 0; rank < members; rank++) {
        SimulatedHost host = hosts.get(rank / perHost);
        List<String> command = List.of(python, script.toString(), "--members", Integer.toString(members),
            "--sizes", sizes.stream().map(String::valueOf).collect(Collectors.joining(",")),
            "--iterations", Integer.toString(iterations), "--warmup", Integer.toString(warmup),
            "--rank", Integer.toString(rank), "--master-addr", hosts.get(0).address(),
            "--master-port", Integer.toString(STORE_PORT));
        started.add(MemberProcess.start("gloo-" + host.name() + "-" + rank % perHost, host.command(command), logDir,
            Map.of("GLOO_SOCKET_IFNAME", "eth0", "OMP_NUM_THREADS", "1")));
      }
      MemberProcess first = started.get(0);
      for (int i = 0; i < sizes.size(); i++) {
        String line = first.readLine();
        if (line == null) {
          throw first.failure("ended after " + i + " of " + sizes.size() + " sizes");
        }
        String[] f = line.split(",");
        try {
          point.accept(Long.parseLong(f[0].strip()), Double.parseDouble(f[1].strip()));
        } catch (RuntimeException e) {
          throw first.failure("printed an unreadable line '" + line + "'");
        }
      }
      for (MemberProcess m : started) {
        m.awaitExit(TIMEOUT_MINUTES);
      }
    } finally {
      started.forEach(MemberProcess::close);
    }
  }
}
