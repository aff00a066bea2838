package org.edl.worker.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.edl.job.InvalidInputException;
import picocli.CommandLine;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Options of {@code bin/edl bench allreduce}, declared once for picocli in {@link Flags}: the
 * CLI's subcommand mixes them in, and {@link #parse} (for {@link AllReduceBench#main} and tests)
 * parses with them.
 *
 * @param maxBytes    largest message; sizes run from 1 KiB up by powers of 4, then this one
 * @param iterations  timed iterations per point (messages under 1 MiB run 10 times as many)
 * @param outDir      where allreduce.csv and allreduce.png go
 * @param members     ring sizes to run, each in one JVM as threads over loopback TCP
 * @param chunkBytes  largest chunk the ring keeps in flight
 * @param gloo        whether to run torch.distributed's gloo as a peer: on, off, or auto (when a
 *                    Python with torch is found)
 * @param python      the Python interpreter to try first for gloo
 */
public record AllReduceBenchOptions(long maxBytes, int iterations, Path outDir, List<Integer> members,
    int chunkBytes, Gloo gloo, String python) {
  /** Whether the gloo peer runs. */
  public enum Gloo { ON, OFF, AUTO }

  public static final long MIN_BYTES = 1024;
  public static final long LIMIT_BYTES = 1L << 30;
  private static final String COMMAND = "edl bench allreduce";
  public static final String USAGE = commandLine(new Flags()).getUsageMessage();

  /**
   * The options as the command line gives them. Values stay text until {@link #toOptions}, so
   * that an error names the option and the value as typed (a list such as {@code 2,1} whole).
   */
  public static class Flags {
    @Option(names = "--max-bytes", paramLabel = "SIZE", defaultValue = "256MiB",
        description = "largest message, e.g. 256MiB (default ${DEFAULT-VALUE}; 1KiB..1GiB, whole floats)")
    String maxBytes;
    @Option(names = "--iterations", paramLabel = "N", defaultValue = "8",
        description = "timed iterations per point, after warm-up (default ${DEFAULT-VALUE})")
    String iterations;
    @Option(names = "--out-dir", paramLabel = "DIR", defaultValue = "docs/benchmarks",
        description = "directory for allreduce.csv and allreduce.png (default ${DEFAULT-VALUE})")
    String outDir;
    @Option(names = "--members", paramLabel = "N,N,...", defaultValue = "2,4",
        description = "ring sizes (default ${DEFAULT-VALUE})")
    String members;
    @Option(names = "--chunk-bytes", paramLabel = "SIZE", defaultValue = "1MiB",
        description = "ring chunk size (default ${DEFAULT-VALUE})")
    String chunkBytes;
    @Option(names = "--gloo", paramLabel = "auto|on|off", defaultValue = "auto",
        description = "also time torch.distributed's gloo all_reduce, one process per member (default"
            + " ${DEFAULT-VALUE}: when a Python with torch is found; Debian: python3-torch)")
    String gloo;
    @Option(names = "--python", paramLabel = "CMD", defaultValue = "python3",
        description = "the Python for gloo, tried before /usr/bin/python3 (default ${DEFAULT-VALUE})")
    String python;

    /** The options these flags give, checked; every error names the option and the value. */
    public AllReduceBenchOptions toOptions() {
      return new AllReduceBenchOptions(bytes("max-bytes", maxBytes), (int) whole("iterations", iterations, 1, 100_000),
          Path.of(outDir), memberList(members), (int) Math.min(Integer.MAX_VALUE, bytes("chunk-bytes", chunkBytes)),
          glooOf(gloo), python).validate();
    }
  }

  public static AllReduceBenchOptions defaults() {
    return parse();
  }

  /** Parses {@code --name value} or {@code --name=value}; every error names the option and value. */
  public static AllReduceBenchOptions parse(String... args) {
    Flags flags = new Flags();
    try {
      commandLine(flags).parseArgs(args);
    } catch (UnmatchedArgumentException e) {
      throw new InvalidInputException("option", e.getUnmatched().isEmpty() ? "" : e.getUnmatched().get(0),
          "unknown; known options: " + String.join(", ", e.getCommandLine().getCommandSpec().options().stream()
              .map(OptionSpec::longestName).toList()));
    } catch (MissingParameterException e) {
      String name = e.getMissing().isEmpty() || !(e.getMissing().get(0) instanceof OptionSpec o) ? "option"
          : o.longestName().replaceFirst("^--", "");
      throw new InvalidInputException(name, null, "needs a value");
    } catch (ParameterException e) {
      throw new InvalidInputException("option", String.join(" ", args), e.getMessage());
    }
    return flags.toOptions();
  }

  private static CommandLine commandLine(Flags flags) {
    CommandSpec spec = CommandSpec.forAnnotatedObject(flags).name(COMMAND);
    spec.usageMessage().sortOptions(false).sortSynopsis(false);
    return new CommandLine(spec);
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

  /** A byte count such as {@code 65536}, {@code 64KiB}, {@code 256MiB}, {@code 1GiB}, {@code 64M}. */
  public static long bytes(String field, String text) {
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

  private static Gloo glooOf(String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "on" -> Gloo.ON;
      case "off" -> Gloo.OFF;
      case "auto" -> Gloo.AUTO;
      default -> throw new InvalidInputException("gloo", text, "choose auto, on or off");
    };
  }

  private static List<Integer> memberList(String text) {
    List<Integer> list = new ArrayList<>();
    for (String part : text.split(",")) {
      list.add((int) whole("members", part, 2, 64, text));
    }
    return List.copyOf(list);
  }
}
