package org.edl.worker.gpu;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.edl.job.WorkerEnv;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GPU indices claimed on the node itself, where YARN does not isolate devices: one lock file per
 * index ({@code <dir>/gpu-<i>.lock}), locked with {@link FileChannel#tryLock()} and held for the
 * worker's life. The kernel drops the lock when the process ends, {@code kill -9} included, so a
 * dead worker never keeps a device; the file itself stays and is locked again by the next
 * claimant. Every container on the node must see the same directory, whatever job it belongs to,
 * and nothing may delete a file while a worker holds it (a claimant would lock a new file of the
 * same name): the directory gets the sticky bit, and must be kept from {@code /tmp} cleaners.
 *
 * <p>POSIX record locks belong to the process, not to the channel: closing any descriptor of a
 * file releases the process's lock on it. The files this JVM holds are therefore kept in {@link
 * #HELD_HERE} and never opened a second time here, not even to read who holds them.
 */
public final class GpuClaims {
  private static final Logger LOG = LoggerFactory.getLogger(GpuClaims.class);
  /** How often a claimant that found too few free indices looks again. */
  static final Duration POLL = Duration.ofMillis(250);
  /** Claimed by this process (per process because the kernel's locks are). */
  private static final Map<Path, FileChannel> HELD_HERE = new ConcurrentHashMap<>();

  private final Path dir;
  private final String holder;

  /**
   * @param dir    the node's claim directory; created (with the sticky bit, writable by all) if
   *               missing
   * @param holder written into each file this claimant locks, for the message of one that finds
   *               it taken (container id and pid)
   */
  public GpuClaims(Path dir, String holder) {
    this.dir = Objects.requireNonNull(dir, "dir");
    this.holder = Objects.requireNonNull(holder, "holder");
  }

  public Path dir() {
    return dir;
  }

  /**
   * Claims {@code count} indices: those in {@code preferred} first (the AM's suggestion), then
   * any other below {@code nodeGpus}. While too few are free, looks again until {@code wait} has
   * passed (a container YARN has just ended may still be exiting), then fails naming the
   * directory and who holds what.
   *
   * @param nodeGpus the node's GPU count; 0 or less when unknown, and then only {@code preferred}
   *                 are tried
   * @throws GpuClaimException when too few indices are free after {@code wait}
   */
  public GpuClaim claim(List<Integer> preferred, int nodeGpus, int count, Duration wait)
      throws IOException, InterruptedException {
    List<Integer> candidates = candidates(preferred, nodeGpus);
    if (count > candidates.size()) {
      throw new GpuClaimException("cannot claim " + count + " GPU(s) in " + dir + ": the node has "
          + (nodeGpus > 0 ? nodeGpus + " (" + WorkerEnv.NODE_GPUS + ")"
              : "an unknown number (no " + WorkerEnv.NODE_GPUS + "), and the AM suggested "
                  + preferred));
    }
    createDirectory();
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      GpuClaim claim = lockFree(candidates, count);
      if (claim.indices().size() == count) {
        return claim;
      }
      int free = claim.indices().size();
      claim.close();
      if (System.nanoTime() - deadline >= 0) {
        throw new GpuClaimException("only " + free + " of the " + count + " GPU(s) this worker needs are free in "
            + dir + " after " + wait.toSeconds() + " s: " + holders(candidates)
            + "; another container on this node holds the devices YARN counted for this one");
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  private static List<Integer> candidates(List<Integer> preferred, int nodeGpus) {
    Set<Integer> order = new LinkedHashSet<>();
    for (int i : preferred) {
      if (i >= 0 && (nodeGpus <= 0 || i < nodeGpus)) {
        order.add(i);
      }
    }
    for (int i = 0; i < nodeGpus; i++) {
      order.add(i);
    }
    return List.copyOf(order);
  }

  /** Locks up to {@code count} free candidates, lowest position first; fewer when fewer are free. */
  private GpuClaim lockFree(List<Integer> candidates, int count) throws IOException {
    List<Integer> indices = new ArrayList<>(count);
    List<Path> files = new ArrayList<>(count);
    for (int i : candidates) {
      if (indices.size() == count) {
        break;
      }
      Path file = fileOf(i);
      if (lock(file)) {
        indices.add(i);
        files.add(file);
      }
    }
    return new GpuClaim(dir, indices, files);
  }

  /**
   * Whether this process now holds {@code file}'s lock (and has written itself into it). One
   * claimant of this process at a time: a second one opening and closing the file between
   * another's lock and its entry in {@link #HELD_HERE} would release that lock.
   */
  private boolean lock(Path file) throws IOException {
    synchronized (HELD_HERE) {
      return lockAlone(file);
    }
  }

  private boolean lockAlone(Path file) throws IOException {
    if (HELD_HERE.containsKey(file)) {
      return false;
    }
    FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException | IOException e) {
      channel.close();
      throw e instanceof IOException io ? io : new IOException("locking " + file + " (locked elsewhere in this process)", e);
    }
    if (lock == null) {
      channel.close();
      return false;
    }
    HELD_HERE.put(file, channel);
    shareWithOtherUsers(file);
    channel.truncate(0);
    channel.write(ByteBuffer.wrap((holder + "\n").getBytes(StandardCharsets.UTF_8)), 0);
    channel.force(false);
    return true;
  }

  static void release(Path file) throws IOException {
    synchronized (HELD_HERE) {
      FileChannel channel = HELD_HERE.remove(file);
      if (channel != null) {
        channel.close();
      }
    }
  }

  private void createDirectory() throws IOException {
    // Every directory made here, not only the node's: every job's containers (any user's) must
    // create files in them, and the sticky bit keeps one user from deleting another's lock file.
    ArrayDeque<Path> missing = new ArrayDeque<>();
    for (Path d = dir.toAbsolutePath(); d != null && !Files.isDirectory(d); d = d.getParent()) {
      missing.push(d);
    }
    for (Path d : missing) {
      try {
        Files.createDirectory(d);
        Files.setAttribute(d, "unix:mode", 01777);
      } catch (FileAlreadyExistsException raced) {
        // another container created it meanwhile
      } catch (UnsupportedOperationException e) {
        LOG.warn("Could not open {} to every user ({}); other users' workers may not claim GPUs there", d, e.toString());
      }
    }
  }

  private static void shareWithOtherUsers(Path file) {
    try {
      Files.setAttribute(file, "unix:mode", 0666);
    } catch (UnsupportedOperationException | IOException e) {
      // Not the file's owner (another user created it): its mode was set then.
    }
  }

  Path fileOf(int index) {
    return dir.resolve("gpu-" + index + ".lock");
  }

  /** "gpu-0 held by container_..._02 (pid 4711), gpu-1 held by this process, gpu-2 free" for the message. */
  private String holders(List<Integer> candidates) {
    List<String> out = new ArrayList<>();
    for (int i : candidates) {
      out.add("gpu-" + i + " " + stateOf(fileOf(i)));
    }
    return String.join(", ", out);
  }

  /** A free file still names its last holder: only a file whose lock is taken names its holder. */
  private static String stateOf(Path file) {
    synchronized (HELD_HERE) {
      if (HELD_HERE.containsKey(file)) {
        return "held by this process";
      }
      try (FileChannel c = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
          StandardOpenOption.WRITE)) {
        if (c.tryLock() != null) {
          return "free";
        }
        ByteBuffer b = ByteBuffer.allocate(512);
        c.read(b, 0);
        String who = new String(b.array(), 0, b.position(), StandardCharsets.UTF_8).strip();
        return "held by " + (who.isEmpty() ? "an unknown process" : who);
      } catch (IOException | OverlappingFileLockException e) {
        return "held by an unknown process (" + e + ")";
      }
    }
  }
}
