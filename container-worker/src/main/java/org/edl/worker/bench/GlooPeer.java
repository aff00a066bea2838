package org.edl.worker.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * torch.distributed's gloo {@code all_reduce}, the library PyTorch and Horovod users run on CPUs,
 * timed beside our ring: {@code gloo_allreduce.py} (a resource next to this class) runs one
 * process per member, one thread each, over loopback TCP, and prints each size's median time.
 */
public final class GlooPeer {
  public static final String IMPL = "gloo";
  /** Where Debian's python3-torch is importable, when another python3 comes first on the PATH. */
  static final String DEBIAN_PYTHON = "/usr/bin/python3";
  private static final String SCRIPT = "gloo_allreduce.py";
  private static final long TIMEOUT_MINUTES = 30;

  private final String python;

  private GlooPeer(String python) {
    this.python = python;
  }

  /**
   * The first of {@code preferred} and {@value #DEBIAN_PYTHON} that imports torch with gloo;
   * empty when neither does.
   */
  public static Optional<GlooPeer> find(String preferred) {
    Set<String> candidates = new LinkedHashSet<>(List.of(preferred, DEBIAN_PYTHON));
    for (String candidate : candidates) {
      try {
        Process p = new ProcessBuilder(candidate, "-c",
            "import torch.distributed as d, sys; sys.exit(0 if d.is_available() and d.is_gloo_available() else 1)")
            .redirectErrorStream(true).start();
        p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
        if (p.waitFor(2, TimeUnit.MINUTES) && p.exitValue() == 0) {
          return Optional.of(new GlooPeer(candidate));
        }
        p.destroyForcibly();
      } catch (IOException notThere) {
        // try the next one
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  public String python() {
    return python;
  }

  /**
   * Times {@code members} processes' all_reduce of each size ({@code iterations} timed runs, ten
   * times as many under 1 MiB, after {@code warmup}).
   *
   * @throws IOException when the script fails (its output in the message) or sums wrongly
   */
  public List<BandwidthPoint> run(int members, List<Long> sizes, int iterations, int warmup) throws IOException {
    Path script = Files.createTempFile("edl-gloo-allreduce-", ".py");
    try {
      writeScript(script);
      Process p = new ProcessBuilder(python, script.toString(), "--members", Integer.toString(members),
          "--sizes", sizes.stream().map(String::valueOf).collect(Collectors.joining(",")),
          "--iterations", Integer.toString(iterations), "--warmup", Integer.toString(warmup)).start();
      CompletableFuture<String> errors = CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
      String out = readAll(p.getInputStream());
      if (!p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IOException("gloo all_reduce with " + members + " members ran past " + TIMEOUT_MINUTES + " minutes");
      }
      if (p.exitValue() != 0) {
        throw new IOException("gloo all_reduce with " + members + " members (" + python + ") exited " + p.exitValue()
            + ": " + errors.join().strip());
      }
      return points(members, out);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while timing gloo", e);
    } finally {
      Files.deleteIfExists(script);
    }
  }

  /**
   * Writes {@code gloo_allreduce.py} to {@code file}, for processes this class does not start (its
   * {@code --rank} mode: one member per process, as the multi-host benchmark runs it).
   */
  public static void writeScript(Path file) throws IOException {
    try (InputStream in = GlooPeer.class.getResourceAsStream(SCRIPT)) {
      if (in == null) {
        throw new IllegalStateException(SCRIPT + " missing from the class path next to " + GlooPeer.class.getName());
      }
      Files.copy(in, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** The script's {@code bytes,median_seconds} lines as points. */
  static List<BandwidthPoint> points(int members, String output) throws IOException {
    List<BandwidthPoint> points = new ArrayList<>();
    for (String line : output.strip().split("\\R")) {
      String[] f = line.split(",");
      try {
        points.add(BandwidthPoint.allReduce(members, Long.parseLong(f[0].trim()), IMPL, Double.parseDouble(f[1].trim())));
      } catch (RuntimeException e) {
        throw new IOException("gloo_allreduce.py printed an unreadable line: '" + line + "'", e);
      }
    }
    return points;
  }

  private static String readAll(InputStream in) {
    try {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }
}
