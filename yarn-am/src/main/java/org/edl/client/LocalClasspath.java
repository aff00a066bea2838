package org.edl.client;

import java.io.File;
import java.nio.file.Paths;

/** This JVM's class path with every entry absolute, for processes that start in other directories. */
public final class LocalClasspath {
  private LocalClasspath() {}

  /** Absolute entries only: containers and daemons run in other working directories. */
  public static String absolute() {
    StringBuilder cp = new StringBuilder();
    for (String entry : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
      if (entry.isEmpty()) {
        continue;
      }
      String absolute = entry.endsWith("*")
          ? Paths.get(entry.substring(0, entry.length() - 1)).toAbsolutePath() + File.separator + "*"
          : Paths.get(entry).toAbsolutePath().toString();
      if (cp.length() > 0) {
        cp.append(File.pathSeparator);
      }
      cp.append(absolute);
    }
    return cp.toString();
  }
}
