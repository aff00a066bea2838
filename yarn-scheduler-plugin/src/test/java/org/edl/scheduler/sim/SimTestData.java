package org.edl.scheduler.sim;

import java.nio.file.Path;

/** The measured profiles the worker jar carries, which surefire points to with {@code edl.profiles.dir}. */
final class SimTestData {
  private SimTestData() {}

  static Path profiles() {
    return Path.of(System.getProperty("edl.profiles.dir",
        "../container-worker/src/main/resources/org/edl/worker/emulated/profiles"));
  }
}
