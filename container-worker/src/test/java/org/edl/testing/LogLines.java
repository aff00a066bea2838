package org.edl.testing;

import java.util.List;
import org.apache.log4j.AppenderSkeleton;
import org.apache.log4j.Logger;
import org.apache.log4j.spi.LoggingEvent;

/** Collects, while open, the messages one class logs that contain a given text. */
public final class LogLines implements AutoCloseable {
  private final Logger logger;
  private final AppenderSkeleton appender;

  private LogLines(Logger logger, AppenderSkeleton appender) {
    this.logger = logger;
    this.appender = appender;
  }

  /** Adds to {@code into} every message of {@code source}'s logger containing {@code containing}. */
  public static LogLines of(Class<?> source, List<String> into, String containing) {
    AppenderSkeleton appender = new AppenderSkeleton() {
      @Override
      protected void append(LoggingEvent event) {
        String message = event.getRenderedMessage();
        if (message != null && message.contains(containing)) {
          into.add(message);
        }
      }

      @Override
      public void close() {}

      @Override
      public boolean requiresLayout() {
        return false;
      }
    };
    Logger logger = Logger.getLogger(source);
    logger.addAppender(appender);
    return new LogLines(logger, appender);
  }

  @Override
  public void close() {
    logger.removeAppender(appender);
  }
}
