package org.edl.cluster.hosts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A ZooKeeper server's {@code zoo.cfg} and {@code myid}, as an admin writes them for an ensemble. */
final class ZooKeeperEnsembleFiles {
  private ZooKeeperEnsembleFiles() {}

  /** Writes server {@code id}'s files under {@code dir}; returns its {@code zoo.cfg}. */
  static Path write(Path dir, int id, SimulatedHost self, List<SimulatedHost> servers, int clientPort) throws IOException {
    Path data = Files.createDirectories(dir.resolve("data"));
    Files.writeString(data.resolve("myid"), id + "\n", StandardCharsets.UTF_8);
    List<String> lines = new ArrayList<>(List.of(
        "tickTime=2000",
        "initLimit=10",
        "syncLimit=5",
        "dataDir=" + data,
        "clientPort=" + clientPort,
        "clientPortAddress=" + self.address(),
        // Its web console would take port 8080 on every host, and nobody here reads it.
        "admin.enableServer=false"));
    if (servers.size() > 1) {
      for (int i = 0; i < servers.size(); i++) {
        lines.add("server." + (i + 1) + "=" + servers.get(i).address() + ":2888:3888");
      }
    }
    Path cfg = dir.resolve("zoo.cfg");
    Files.writeString(cfg, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    return cfg;
  }
}
