package org.edl.scheduler.sim;

import java.nio.file.Path;

/** The shared data, which surefire points to with {@code edl.shared.dir} (never copied in). */
final class SimTestData {
  private SimTestData() {}

  static Path data() {
    return Path.of(System.getProperty("edl.shared.dir", "../../shared")).resolve("data");
  }

  static Path profiles() {
    return data().resolve("profiles");
  }
}
