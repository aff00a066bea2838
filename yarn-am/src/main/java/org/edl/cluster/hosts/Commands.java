package org.edl.cluster.hosts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the system commands ({@code ip}, {@code tc}) that make and remove the hosts' network. */
final class Commands {
  private static final long TIMEOUT_S = 30;

  private Commands() {}

  /** Runs {@code command}; its standard output, or an exception naming the command and what it said. */
  static String run(List<String> command) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out;
    try {
      out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", command) + ": no answer in " + TIMEOUT_S + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IOException(String.join(" ", command) + ": interrupted", e);
    }
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " exited " + p.exitValue() + ": " + out.strip());
    }
    return out;
  }

  /** As {@link #run}, for removals: what is already gone is not an error. */
  static void runQuietly(List<String> command) {
    try {
      run(command);
    } catch (IOException e) {
      // Tear-down goes on: the next start removes what is left.
    }
  }

  static boolean onPath(String program) {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
      if (java.nio.file.Files.isExecutable(java.nio.file.Path.of(dir, program))) {
        return true;
      }
    }
    return java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/sbin", program))
        || java.nio.file.Files.isExecutable(java.nio.file.Path.of("/sbin", program));
  }
}
