package org.edl.job;

import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The hidden name a file or checkpoint directory is written under before it is renamed into
 * place: {@code .<target>.<appId>.e<epoch>.<uuid>.tmp}. It names its writer's leadership so that
 * a later leadership can tell a fenced writer's leftover from a write that may still be committed
 * ({@link StaleTemporaries}); the UUID keeps two writers of one target apart. Builds before the
 * writer was named wrote {@code .<target>-<uuid>.tmp} (checkpoints) and {@code .<target>.<uuid>.tmp}
 * (the model): those parse with no writer.
 *
 * @param target the name it is renamed to
 * @param writer the leadership that writes it; empty for a name of an older build
 */
public record TemporaryName(String target, Optional<WriterEpoch> writer) {
  private static final String UUID_TEXT = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
  private static final Pattern NAMED = Pattern.compile(
      "\\.(.+)\\.(" + WriterEpoch.APP_ID.pattern() + ")\\.e(\\d{1,18})\\." + UUID_TEXT + "\\.tmp");
  private static final Pattern UNNAMED = Pattern.compile("\\.(.+)[.-]" + UUID_TEXT + "\\.tmp");

  /** A new, unique temporary name for {@code target} written by {@code writer}. */
  public static String of(String target, WriterEpoch writer) {
    return "." + target + "." + writer.appId() + ".e" + writer.epoch() + "." + UUID.randomUUID() + ".tmp";
  }

  /** What {@code name} says about its writer; empty when it is no temporary name of ours. */
  public static Optional<TemporaryName> parse(String name) {
    Matcher m = NAMED.matcher(name);
    if (m.matches()) {
      return Optional.of(new TemporaryName(m.group(1),
          Optional.of(new WriterEpoch(m.group(2), Long.parseLong(m.group(3))))));
    }
    m = UNNAMED.matcher(name);
    if (m.matches()) {
      return Optional.of(new TemporaryName(m.group(1), Optional.empty()));
    }
    return Optional.empty();
  }
}
