package org.edl.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.log4j.ConsoleAppender;
import org.apache.log4j.Level;
import org.apache.log4j.LogManager;
import org.apache.log4j.Logger;
import org.apache.log4j.PatternLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A container whose cluster configuration has no log4j.properties still logs. */
class ContainerLoggingTest {
  private final PrintStream stdout = System.out;

  @AfterEach
  void restore() {
    System.setOut(stdout);
    LogManager.resetConfiguration();
    Logger.getRootLogger().addAppender(new ConsoleAppender(new PatternLayout("%d %p %c: %m%n")));
  }

  @Test
  void withoutAConfigurationTheDefaultsLogInfoToStdout() {
    LogManager.resetConfiguration(); // what log4j has when no log4j.properties is on the class path
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));

    assertTrue(ContainerLogging.ensureConfigured());
    org.slf4j.LoggerFactory.getLogger("org.edl.worker.runtime.Worker").info("Registered with the leader");
    org.slf4j.LoggerFactory.getLogger("org.apache.hadoop.ipc.Client").info("retrying connect");

    String out = captured.toString(StandardCharsets.UTF_8);
    assertTrue(out.contains("INFO  [") && out.contains("runtime.Worker: Registered with the leader"), out);
    assertFalse(out.contains("retrying connect"), "Hadoop's INFO is quieted: " + out);
    assertEquals(Level.INFO, Logger.getRootLogger().getLevel());
  }

  @Test
  void aConfigurationTheClusterBringsWins() {
    LogManager.resetConfiguration();
    Logger.getRootLogger().addAppender(new ConsoleAppender(new PatternLayout("%m%n")));
    Logger.getRootLogger().setLevel(Level.DEBUG);
    assertFalse(ContainerLogging.ensureConfigured());
    assertEquals(Level.DEBUG, Logger.getRootLogger().getLevel());
  }
}
