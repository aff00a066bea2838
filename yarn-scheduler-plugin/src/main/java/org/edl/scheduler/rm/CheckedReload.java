package org.edl.scheduler.rm;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.util.function.Supplier;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.AllocationConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.AllocationConfigurationException;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.AllocationFileLoaderService;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts {@link AllocationFileCheck} in front of FairScheduler's own reload of the allocation file:
 * the thread that reloads it within about 10 s of every change (and {@code refreshQueues}) hands
 * the parsed file to a listener, which this wraps. A file the check refuses is not applied: the
 * loader logs the refusal, keeps the previous configuration and tries again on its next round,
 * just as it does with malformed XML.
 *
 * <p>The loader and its listener are private to FairScheduler, so they are reached by reflection;
 * should a Hadoop upgrade move them, this logs a warning and the stock reload runs unchecked.
 */
final class CheckedReload implements AllocationFileLoaderService.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(CheckedReload.class);

  private final AllocationFileLoaderService.Listener applies;
  private final Supplier<File> file;

  private CheckedReload(AllocationFileLoaderService.Listener applies, Supplier<File> file) {
    this.applies = applies;
    this.file = file;
  }

  /** @return whether the scheduler's reloads are checked from now on */
  static boolean install(FairScheduler scheduler, Supplier<File> file) {
    try {
      AllocationFileLoaderService loader = (AllocationFileLoaderService) field(FairScheduler.class, "allocsLoader")
          .get(scheduler);
      AllocationFileLoaderService.Listener current = (AllocationFileLoaderService.Listener)
          field(AllocationFileLoaderService.class, "reloadListener").get(loader);
      if (current == null || current instanceof CheckedReload) {
        return current != null;
      }
      loader.setReloadListener(new CheckedReload(current, file));
      return true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn("FairScheduler's own reload of the allocation file will not be checked (could not reach it: {});"
          + " refreshQueues still is", e.toString());
      return false;
    }
  }

  @Override
  public void onReload(AllocationConfiguration parsed) throws IOException {
    File f = file.get();
    if (f != null) {
      try {
        AllocationFileCheck.check(f);
      } catch (AllocationConfigurationException e) {
        throw new IOException("not applying the changed allocation file, keeping the previous configuration: "
            + e.getMessage(), e);
      }
    }
    applies.onReload(parsed);
  }

  @Override
  public void onCheck() {
    applies.onCheck();
  }

  private static Field field(Class<?> owner, String name) throws NoSuchFieldException {
    Field f = owner.getDeclaredField(name);
    f.setAccessible(true);
    return f;
  }
}
