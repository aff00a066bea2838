package org.edl.worker.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.edl.job.InvalidInputException;

/**
 * Options of {@code bin/edl bench allreduce}.
 *
 * @param maxBytes    largest message; sizes run from 1 KiB up by powers of 4, then this one
 * @param iterations  timed iterations per point (messages under 1 MiB run 10 times as many)
 * @param outDir      where allreduce.csv and allreduce.png go
 * @param members     ring sizes to run, each in one JVM as threads over loopback TCP
 * @param chunkBytes  largest chunk the ring keeps in flight
 */
public record AllReduceBenchOptions(long maxBytes, int iterations, Path outDir, List<Integer> members,
    int chunkBytes) {
  public static final long MIN_BYTES = 1024;
  public static final long LIMIT_BYTES = 1L << 30;
  public static final String USAGE = String.join("\n",
      "usage: edl bench allreduce [--max-bytes SIZE] [--iterations N] [--out-dir DIR]",
      "                           [--members N,N,...] [--chunk-bytes SIZE]",
      "  --max-bytes    largest message, e.g. 256MiB (default 256MiB; 1KiB..1GiB, whole floats)",
      "  --iterations   timed iterations per point, after warm-up (default 8)",
      "  --out-dir      directory for allreduce.csv and allreduce.png (default docs/benchmarks)",
      "  --members      ring sizes (default 2,4)",
      "  --chunk-bytes  ring chunk size (default 1MiB)");

  public static AllReduceBenchOptions defaults() {
    return new AllReduceBenchOptions(256L << 20, 8, Path.of("docs", "benchmarks"), List.of(2, 4), 1 << 20);
  }

  /** Parses {@code --name value} or {@code --name=value}; every error names the option and value. */
  public static AllReduceBenchOptions parse(String... args) {
    AllReduceBenchOptions o = defaults();
    long maxBytes = o.maxBytes;
    int iterations = o.iterations;
    Path outDir = o.outDir;
    List<Integer> members = o.members;
    int chunkBytes = o.chunkBytes;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String name = arg;
      String value;
      int eq = arg.indexOf('=');
      if (arg.startsWith("--") && eq > 0) {
        name = arg.substring(0, eq);
        value = arg.substring(eq + 1);
      } else if (arg.startsWith("--") && i + 1 < args.length) {
        value = args[++i];
      } else {
        value = null;
      }
      switch (name) {
        case "--max-bytes" -> maxBytes = bytes("max-bytes", need(name, value));
        case "--iterations" -> iterations = (int) whole("iterations", need(name, value), 1, 100_000);
        case "--out-dir" -> outDir = Path.of(need(name, value));
        case "--members" -> members = memberList(need(name, value));
        case "--chunk-bytes" -> chunkBytes = (int) Math.min(Integer.MAX_VALUE, bytes("chunk-bytes", need(name, value)));
        default -> throw new InvalidInputException("option", arg,
            "unknown; known options: --max-bytes, --iterations, --out-dir, --members, --chunk-bytes");
      }
    }
    return new AllReduceBenchOptions(maxBytes, iterations, outDir, members, chunkBytes).validate();
  }

  public AllReduceBenchOptions validate() {
    if (maxBytes < MIN_BYTES || maxBytes > LIMIT_BYTES || maxBytes % Float.BYTES != 0) {
      throw new InvalidInputException("max-bytes", maxBytes,
          "must be a whole number of floats between 1KiB and 1GiB");
    }
    if (iterations < 1) {
      throw new InvalidInputException("iterations", iterations, "must be at least 1");
    }
    if (Files.exists(outDir) && !Files.isDirectory(outDir)) {
      throw new InvalidInputException("out-dir", outDir, "exists and is not a directory");
    }
    if (chunkBytes < 64 || chunkBytes > (64 << 20)) {
      throw new InvalidInputException("chunk-bytes", chunkBytes, "must be between 64 bytes and 64MiB");
    }
    return this;
  }

  /** 1 KiB, 4 KiB, 16 KiB, ... up to {@link #maxBytes}, which is always last. */
  public List<Long> sizes() {
    List<Long> sizes = new ArrayList<>();
    for (long b = MIN_BYTES; b < maxBytes; b *= 4) {
      sizes.add(b);
    }
    sizes.add(maxBytes);
    return sizes;
  }

  /** Timed iterations for one message size: small messages are cheap and noisy, so run more. */
  public int iterationsFor(long bytes) {
    return bytes < (1 << 20) ? iterations * 10 : iterations;
  }

  private static String need(String name, String value) {
    if (value == null) {
      throw new InvalidInputException(name.replaceFirst("^--", ""), null, "needs a value");
    }
    return value;
  }

  /** A byte count such as {@code 65536}, {@code 64KiB}, {@code 256MiB}, {@code 1GiB}, {@code 64M}. */
  static long bytes(String field, String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    long unit = 1;
    for (String[] suffix : new String[][] {{"kib", "1024"}, {"mib", "1048576"}, {"gib", "1073741824"},
        {"k", "1024"}, {"m", "1048576"}, {"g", "1073741824"}, {"b", "1"}}) {
      if (t.endsWith(suffix[0])) {
        unit = Long.parseLong(suffix[1]);
        t = t.substring(0, t.length() - suffix[0].length()).trim();
        break;
      }
    }
    return whole(field, t, 1, Long.MAX_VALUE / unit, text) * unit;
  }

  private static long whole(String field, String text, long min, long max) {
    return whole(field, text, min, max, text);
  }

  private static long whole(String field, String text, long min, long max, String shown) {
    long v;
    try {
      v = Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new InvalidInputException(field, shown, "not a whole number");
    }
    if (v < min || v > max) {
      throw new InvalidInputException(field, shown, "must be between " + min + " and " + max);
    }
    return v;
  }

  private static List<Integer> memberList(String text) {
    List<Integer> list = new ArrayList<>();
    for (String part : text.split(",")) {
      list.add((int) whole("members", part, 2, 64, text));
    }
    return List.copyOf(list);
  }
}
