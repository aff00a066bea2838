package org.edl.am;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.edl.thrift.JobProgress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rendezvous store of a {@code --torchrun} job, hosted in the AM's container (an agent's
 * container may be the one a scale-in gives back): a child process of the job's own Python and
 * PyTorch, {@link StagingLayout#TORCHRUN_LAUNCHER} {@code store}. It prints its port, then each
 * rendezvous round as it completes; each round reaches the fleet as a progress report of that
 * many workers, which is what a scale-out or scale-in waits for. The child ends with the AM:
 * it exits when its standard input closes.
 */
final class TorchrunRendezvous implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TorchrunRendezvous.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Torch is imported before the store opens: seconds on a loaded node. */
  private static final long START_TIMEOUT_SECONDS = 120;

  private final Process process;
  private final int port;
  private volatile boolean closed;
  /** Reads the store's lines; ends when the store does. */
  private Thread reader;

  private TorchrunRendezvous(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /**
   * Starts the store with {@code python} in {@code dir} (the AM's working directory) and reports
   * every completed round to {@code rounds}, from a thread of its own; if the store exits before
   * {@link #close}, {@code exited} hears why (the job cannot form another round).
   */
  public static TorchrunRendezvous start(String python, Path dir, String runId, Consumer<JobProgress> rounds,
      Consumer<IOException> exited) throws IOException {
    ProcessBuilder b = new ProcessBuilder(python, "-u", StagingLayout.TORCHRUN_LAUNCHER, "store", "--run-id", runId)
        .directory(dir.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT);
    Process p = b.start();
    BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    int port = readPort(p, out, python);
    TorchrunRendezvous store = new TorchrunRendezvous(p, port);
    Thread reader = store.reader = new Thread(() -> {
      store.follow(out, rounds);
      if (!store.closed) {
        exited.accept(new IOException("the rendezvous store exited" + store.exitStatus() + "; see the AM's stderr"));
      }
    }, "torchrun-rendezvous");
    reader.setDaemon(true);
    reader.start();
    LOG.info("Rendezvous store of {} on port {} ({} {})", runId, port, python, StagingLayout.TORCHRUN_LAUNCHER);
    return store;
  }

  private static int readPort(Process p, BufferedReader out, String python) throws IOException {
    // The first line comes once torch is imported and the store listens; a broken environment exits.
    java.util.concurrent.CompletableFuture<String> first = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        return out.readLine();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    String line;
    try {
      line = first.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (Exception e) {
      p.destroyForcibly();
      throw new IOException("the rendezvous store (" + python + " " + StagingLayout.TORCHRUN_LAUNCHER
          + " store) did not start within " + START_TIMEOUT_SECONDS + " s: " + e, e);
    }
    if (line == null) {
      throw new IOException("the rendezvous store (" + python + " " + StagingLayout.TORCHRUN_LAUNCHER
          + " store) exited before it listened (see the AM's stderr): does " + python + " have torch?");
    }
    return JSON.readTree(line).path("port").asInt();
  }

  private void follow(BufferedReader out, Consumer<JobProgress> rounds) {
    try {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        JsonNode n = JSON.readTree(line);
        if (n.has("unreadable")) {
          LOG.warn("The rendezvous store holds a state it cannot read: {}", n.path("unreadable").asText());
          continue;
        }
        long round = n.path("round").asLong();
        int nodes = n.path("nodes").asInt();
        List<String> members = new ArrayList<>();
        n.path("members").forEach(m -> members.add(m.asText()));
        LOG.info("Rendezvous round {} complete: {} nodes {}", round, nodes, members);
        rounds.accept(RendezvousProgress.of(round, nodes, members));
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("Stopped reading the rendezvous store's rounds", e);
    }
  }

  public int port() {
    return port;
  }

  private String exitStatus() {
    try {
      return process.waitFor(5, TimeUnit.SECONDS) ? " with status " + process.exitValue() : "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  @Override
  public void close() {
    closed = true;
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
      // Once closed, nothing more is reported: the reader has seen the store's end.
      reader.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
