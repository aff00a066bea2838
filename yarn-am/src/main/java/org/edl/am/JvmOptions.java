package org.edl.am;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * The Java 17 {@code --add-opens} flags every EDL JVM (AM and worker) starts with. The list is
 * the parent pom's {@code edl.jvm.opens}, filtered into {@code jvm.properties} at build time, so
 * surefire, {@code bin/edl} and the containers cannot drift apart.
 */
public final class JvmOptions {
  private static final List<String> OPENS = load();

  private JvmOptions() {}

  public static List<String> addOpens() {
    return OPENS;
  }

  private static List<String> load() {
    try (InputStream in = JvmOptions.class.getResourceAsStream("jvm.properties")) {
      if (in == null) {
        throw new IllegalStateException("org/edl/am/jvm.properties missing from the classpath");
      }
      Properties p = new Properties();
      p.load(in);
      String opens = p.getProperty("opens", "").trim();
      if (opens.startsWith("${")) {
        throw new IllegalStateException("jvm.properties was not filtered by the build: " + opens);
      }
      return Arrays.stream(opens.split("\\s+")).filter(s -> !s.isEmpty()).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
