package org.edl.cluster.hosts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Which process made a host network: a file per network holding the owner's pid, written before
 * anything is made, so that the next start can tell a network a killed run left (its owner gone)
 * from one another run still uses.
 */
record NetworkOwner(String id, long pid, String started) {
  static final Path DIR = Path.of(System.getProperty("edl.hosts.owner-dir", "/run/edl-hosts"));

  static NetworkOwner claim(String id) throws IOException {
    Files.createDirectories(DIR);
    NetworkOwner owner = new NetworkOwner(id, ProcessHandle.current().pid(), startOf(ProcessHandle.current()));
    Files.writeString(DIR.resolve(id), owner.pid + " " + owner.started + "\n", StandardCharsets.UTF_8);
    return owner;
  }

  static Optional<NetworkOwner> of(String id) {
    Path file = DIR.resolve(id);
    try {
      String[] fields = Files.readString(file, StandardCharsets.UTF_8).strip().split(" ", 2);
      return Optional.of(new NetworkOwner(id, Long.parseLong(fields[0]), fields.length > 1 ? fields[1] : ""));
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** The ids with an owner file, alive or not. */
  static List<String> recorded() throws IOException {
    if (!Files.isDirectory(DIR)) {
      return List.of();
    }
    try (var files = Files.list(DIR)) {
      return files.map(f -> f.getFileName().toString()).toList();
    }
  }

  /** The owner still runs: its pid is alive and was started when the owner was (pids are reused). */
  boolean alive() {
    return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).map(NetworkOwner::startOf)
        .map(started::equals).orElse(false);
  }

  private static String startOf(ProcessHandle process) {
    return process.info().startInstant().map(Object::toString).orElse("?");
  }

  void release() {
    try {
      Files.deleteIfExists(DIR.resolve(id));
    } catch (IOException e) {
      // A stale file names a dead owner: the next start removes it with its network.
    }
  }
}
