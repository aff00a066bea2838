package org.edl.cluster;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a start-up step prints straight to {@code System.err}, moved to the log. With Kerberos
 * on, MiniDFSCluster first tries the privileged ports of a DataNode started as root, and prints
 * that attempt's stack trace and a few lines of its own whether it goes on or not (on with
 * unprivileged ports here): on {@code edl cluster}'s console that read as a failure.
 */
final class StandardErrorToLog {
  private static final Logger LOG = LoggerFactory.getLogger(StandardErrorToLog.class);

  @FunctionalInterface
  interface Step<T> {
    T run() throws Exception;
  }

  private StandardErrorToLog() {}

  /** Runs {@code step} with {@code System.err} held, then logs what it printed at DEBUG. */
  static <T> T during(String what, Step<T> step) throws Exception {
    PrintStream console = System.err;
    ByteArrayOutputStream held = new ByteArrayOutputStream();
    synchronized (System.class) {
      System.setErr(new PrintStream(held, true, StandardCharsets.UTF_8));
      try {
        return step.run();
      } finally {
        System.setErr(console);
        if (held.size() > 0) {
          LOG.debug("Printed during {}:\n{}", what, held.toString(StandardCharsets.UTF_8));
        }
      }
    }
  }
}
