package org.edl.job;

import java.net.URL;
import org.apache.log4j.LogManager;
import org.apache.log4j.PropertyConfigurator;

/**
 * Logging for the AM and worker containers. On a cluster whose configuration directory holds a
 * {@code log4j.properties} (Hadoop ships one) log4j configures itself from it, and the admin's
 * settings win. Without one, log4j would drop every line; then {@link #DEFAULTS} applies: INFO to
 * the container's stdout file.
 */
public final class ContainerLogging {
  /** The fallback configuration, a class-path resource of the worker jar. */
  public static final String DEFAULTS = "org/edl/job/container-log4j.properties";

  private ContainerLogging() {}

  /**
   * Applies {@link #DEFAULTS} unless log4j found a configuration with an appender; call before the
   * first line is logged.
   *
   * @return whether the defaults were applied
   */
  public static boolean ensureConfigured() {
    if (LogManager.getRootLogger().getAllAppenders().hasMoreElements()) {
      return false;
    }
    URL defaults = ContainerLogging.class.getClassLoader().getResource(DEFAULTS);
    if (defaults == null) {
      throw new IllegalStateException(DEFAULTS + " missing from the class path");
    }
    PropertyConfigurator.configure(defaults);
    return true;
  }
}
