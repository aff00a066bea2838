package org.edl.job;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the temporaries ({@link TemporaryName}) in one directory that can never be renamed into
 * place. A writer killed, or paused past its ZooKeeper session, between creating its temporary
 * and renaming it leaves it behind; nothing else ever would remove it. Which ones go is decided
 * by the writer the name carries, never by guessing whether a write is still running:
 *
 * <ul>
 *   <li>an older epoch of the sweeper's own application: that leadership is fenced and can never
 *   commit (its rename would also find its source gone), so it goes at once;</li>
 *   <li>the sweeper's own epoch or a newer one: possibly a write that will still be committed,
 *   so it stays, however old;</li>
 *   <li>another application's or an older build's (no writer in the name): its writer's epoch
 *   cannot be compared, so it stays until it was untouched for {@link #UNATTRIBUTED_KEPT}.</li>
 * </ul>
 */
public final class StaleTemporaries {
  private static final Logger LOG = LoggerFactory.getLogger(StaleTemporaries.class);
  /**
   * How long a temporary whose writer cannot be judged by its epoch is left alone. No write of a
   * checkpoint or a model takes a day; a job that shares its {@code --output} with a running one
   * keeps that one's writes.
   */
  public static final Duration UNATTRIBUTED_KEPT = Duration.ofDays(1);

  /** What becomes of one temporary. */
  public enum Verdict {
    /** Written by a leadership the sweeper's fenced: it can never commit. Removed. */
    FENCED(true),
    /** Written by the sweeper's own leadership or a newer one: it may still be committed. Kept. */
    CURRENT(false),
    /** Another application's or an older build's, touched recently: its writer may live. Kept. */
    FOREIGN(false),
    /** Another application's or an older build's, untouched for {@link #UNATTRIBUTED_KEPT}. Removed. */
    ABANDONED(true);

    private final boolean removed;

    Verdict(boolean removed) {
      this.removed = removed;
    }

    public boolean removed() {
      return removed;
    }
  }

  private StaleTemporaries() {}

  /** The verdict on {@code name}, last touched at {@code lastTouched}, for {@code sweeper} at {@code now}. */
  public static Verdict judge(TemporaryName name, Instant lastTouched, WriterEpoch sweeper, Instant now) {
    Optional<WriterEpoch> writer = name.writer();
    if (writer.isPresent() && sweeper.fences(writer.get())) {
      return Verdict.FENCED;
    }
    if (writer.isPresent() && writer.get().appId().equals(sweeper.appId())) {
      return Verdict.CURRENT;
    }
    return lastTouched.plus(UNATTRIBUTED_KEPT).isBefore(now) ? Verdict.ABANDONED : Verdict.FOREIGN;
  }

  /**
   * Removes, from {@code directory}, the temporaries of a target that {@code targets} accepts and
   * whose verdict for {@code sweeper} is a removal; anything else there is left as it is.
   *
   * @return the temporaries removed (none when the directory does not exist)
   * @throws IOException when the directory cannot be listed; a temporary that cannot be removed is a WARN
   */
  public static List<Path> sweep(FileSystem fs, Path directory, Predicate<String> targets, WriterEpoch sweeper)
      throws IOException {
    FileStatus[] entries;
    try {
      entries = fs.listStatus(directory);
    } catch (FileNotFoundException e) {
      return List.of();
    }
    Instant now = Instant.now();
    List<Path> removed = new ArrayList<>();
    for (FileStatus s : entries) {
      Optional<TemporaryName> name = TemporaryName.parse(s.getPath().getName()).filter(n -> targets.test(n.target()));
      if (name.isEmpty()) {
        continue;
      }
      try {
        Verdict v = judge(name.get(), lastTouched(fs, s), sweeper, now);
        if (!v.removed()) {
          LOG.debug("Keeping temporary {} ({}) as {}", s.getPath(), v, sweeper);
          continue;
        }
        // False or not found: it went meanwhile (its own writer, or another sweep, removed it).
        if (fs.delete(s.getPath(), true)) {
          removed.add(s.getPath());
          LOG.info("Removed temporary {} ({}: written by {}) as {}", s.getPath(), v,
              name.get().writer().map(Object::toString).orElse("an older build"), sweeper);
        }
      } catch (FileNotFoundException gone) {
        LOG.debug("Temporary {} went while it was judged", s.getPath());
      } catch (IOException e) {
        LOG.warn("Could not remove temporary {}: {}", s.getPath(), e.toString());
      }
    }
    return removed;
  }

  /** The newest modification of the temporary or, for a directory, of what it holds. */
  private static Instant lastTouched(FileSystem fs, FileStatus s) throws IOException {
    long newest = s.getModificationTime();
    if (s.isDirectory()) {
      for (FileStatus child : fs.listStatus(s.getPath())) {
        newest = Math.max(newest, child.getModificationTime());
      }
    }
    return Instant.ofEpochMilli(newest);
  }
}
