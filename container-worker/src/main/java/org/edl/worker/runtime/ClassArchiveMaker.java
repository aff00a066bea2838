package org.edl.worker.runtime;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.edl.job.WorkerEnv;
import org.edl.worker.data.BatchSlicer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the class-data archive (JDK 17 AppCDS, a dynamic archive on top of the JDK's own) that
 * the job's later workers on this node start from: they map the classes instead of reading,
 * parsing and verifying them from the jars, so a newcomer's GPU idles less before it registers.
 *
 * <p>The AM starts every worker with {@code -XX:SharedArchiveFile=<JDK's archive>:<top>} and
 * {@code -XX:DumpLoadedClassList=<list>}; {@code <top>} is in the application's directory on the
 * node, shared by the job's containers there and deleted with it. While {@code <top>} is missing,
 * the JVM starts from the JDK's archive alone. The first worker on the node to have trained a few
 * batches (its classes have settled by then) takes a lock file and starts a JVM of its own class
 * path that loads the classes its list names ({@link ClassListLoader}) and writes them at its exit
 * ({@code -XX:ArchiveClassesAtExit}); the file is renamed into place when whole. A separate JVM
 * and not a dump from this one: a dump stops the JVM, and so the whole ring, for its length.
 * Best effort: anything that goes wrong is one warning, and the workers start as before.
 */
public final class ClassArchiveMaker {
  private static final Logger LOG = LoggerFactory.getLogger(ClassArchiveMaker.class);
  /** Batches a worker trains before its list is taken: start-up, the first ring and a step's classes. */
  static final int AFTER_BATCHES = 10;
  private static final long TIMEOUT_MINUTES = 5;
  /** What the archive's JVM takes at most while it runs (about 170 MB measured), with a margin. */
  static final long WRITER_MB = 256;

  /** What this JVM was started with: the archive to map, the top one to make, the list it writes. */
  public record Options(String base, Path top, Path loadedClasses) {}

  private final Options options;
  private final String classpath;
  private final List<String> jvmOptions;

  /**
   * @param classpath  the class path the archive is for: this JVM's, which every worker of the job has
   * @param jvmOptions options the loader JVM repeats (the {@code --add-opens} this one runs with)
   */
  ClassArchiveMaker(Options options, String classpath, List<String> jvmOptions) {
    this.options = options;
    this.classpath = classpath;
    this.jvmOptions = List.copyOf(jvmOptions);
  }

  /**
   * A listener that, once this worker has trained {@value #AFTER_BATCHES} batches, writes the
   * archive in the background if this JVM was started with the AM's class-sharing options and no
   * archive is there yet. Reads nothing before then: the management beans are not on the way to
   * registering.
   */
  public static WorkerListener forThisJvm() {
    return new WorkerListener() {
      private int batches;

      @Override
      public void batchTrained(String workerId, long step, BatchSlicer.Range positions, int[] samples) {
        if (++batches == AFTER_BATCHES) {
          Thread t = new Thread(() -> ofThisJvm().ifPresent(m -> m.makeQuietly(workerId)), "edl-class-archive");
          t.setDaemon(true);
          t.start();
        }
      }
    };
  }

  static Optional<ClassArchiveMaker> ofThisJvm() {
    Optional<Options> options = optionsOfThisJvm();
    if (options.isEmpty() || Files.exists(options.get().top())) {
      return Optional.empty();
    }
    String classpath = System.getProperty("java.class.path", "");
    Optional<String> refused = unarchivable(classpath);
    if (refused.isPresent()) {
      LOG.info("No class-data archive for this job's workers: {} on the class path is a directory that is not"
          + " empty, ahead of jars, which the JVM cannot archive", refused.get());
      return Optional.empty();
    }
    Optional<String> cramped = lacksRoom(System.getenv(WorkerEnv.CONTAINER_MEMORY_MB), residentMb());
    if (cramped.isPresent()) {
      LOG.info("This worker writes no class-data archive: {}", cramped.get());
      return Optional.empty();
    }
    List<String> opens = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("--add-opens")).toList();
    return Optional.of(new ClassArchiveMaker(options.get(), classpath, opens));
  }

  static Optional<Options> optionsOfThisJvm() {
    HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    String archives = vm.getVMOption("SharedArchiveFile").getValue();
    String list = vm.getVMOption("DumpLoadedClassList").getValue();
    int split = archives.lastIndexOf(File.pathSeparatorChar);
    if (split <= 0 || list.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new Options(archives.substring(0, split), Path.of(archives.substring(split + 1)).normalize(),
        Path.of(list)));
  }

  /**
   * The first directory with something in it that comes before a jar on {@code classpath}: the
   * JDK refuses to archive from such a class path (classes in directories cannot be archived, and
   * one loaded there would shadow the jars' behind it).
   */
  static Optional<String> unarchivable(String classpath) {
    String firstDirectory = null;
    for (String entry : classpath.split(File.pathSeparator)) {
      Path p = Path.of(entry.isEmpty() ? "." : entry);
      if (Files.isDirectory(p) && firstDirectory == null && !isEmpty(p)) {
        firstDirectory = entry;
      } else if (firstDirectory != null && Files.isRegularFile(p)) {
        return Optional.of(firstDirectory);
      }
    }
    return Optional.empty();
  }

  /**
   * Why the container has no room for the archive's JVM next to this one (the NodeManager's memory
   * check counts every process of the container), or empty; also empty where either figure is
   * unknown (a worker started by hand, a system without {@code /proc}).
   */
  static Optional<String> lacksRoom(String containerMb, long residentMb) {
    long limit;
    try {
      limit = containerMb == null ? -1 : Long.parseLong(containerMb.trim());
    } catch (NumberFormatException e) {
      limit = -1;
    }
    if (limit <= 0 || residentMb < 0 || residentMb + WRITER_MB <= limit) {
      return Optional.empty();
    }
    return Optional.of("it uses " + residentMb + " MB of its container's " + limit + " MB, and writing the archive"
        + " takes about " + WRITER_MB + " MB more");
  }

  /**
   * Resident memory in MB of this process and its children (a script job's Python process), from
   * {@code /proc}; -1 where unknown.
   */
  static long residentMb() {
    long kb = residentKb(ProcessHandle.current().pid());
    if (kb < 0) {
      return -1;
    }
    for (ProcessHandle child : ProcessHandle.current().descendants().toList()) {
      kb += Math.max(0, residentKb(child.pid()));
    }
    return kb / 1024;
  }

  private static long residentKb(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not Linux, or the process has gone: unknown
    }
    return -1;
  }

  private static boolean isEmpty(Path dir) {
    try (Stream<Path> s = Files.list(dir)) {
      return s.findAny().isEmpty();
    } catch (IOException e) {
      return false;
    }
  }

  private void makeQuietly(String workerId) {
    try {
      make(workerId);
    } catch (Exception e) {
      LOG.warn("Could not write the class-data archive {}: {}; the job's next workers on this node start without it",
          options.top(), e.toString());
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** @return whether this call wrote the archive (false: it was there, or another worker is writing it) */
  boolean make(String workerId) throws IOException, InterruptedException {
    Path top = options.top();
    try {
      Files.createFile(top.resolveSibling(top.getFileName() + ".lock"));
    } catch (FileAlreadyExistsException e) {
      return false; // another worker of the job on this node has it in hand, or wrote it (the lock stays)
    }
    Path partial = top.resolveSibling(top.getFileName() + "." + workerId + ".tmp");
    Path output = top.resolveSibling(top.getFileName() + "." + workerId + ".log");
    long began = System.nanoTime();
    Process p = new ProcessBuilder(command(partial)).redirectErrorStream(true).redirectOutput(output.toFile())
        .start();
    if (!p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IOException("the JVM loading the classes ran past " + TIMEOUT_MINUTES + " minutes");
    }
    if (p.exitValue() != 0 || !Files.isRegularFile(partial)) {
      Files.deleteIfExists(partial);
      throw new IOException("the JVM loading the classes exited with " + p.exitValue() + ": " + tail(output));
    }
    Files.move(partial, top, StandardCopyOption.ATOMIC_MOVE);
    Files.deleteIfExists(output);
    LOG.info("Class-data archive for the job's next workers on this node written to {} ({} MB, {} s)", top,
        String.format(java.util.Locale.ROOT, "%.1f", Files.size(top) / 1e6),
        String.format(java.util.Locale.ROOT, "%.1f", (System.nanoTime() - began) / 1e9));
    return true;
  }

  List<String> command(Path partial) {
    List<String> cmd = new ArrayList<>();
    Path nice = Path.of("/usr/bin/nice");
    if (Files.isExecutable(nice)) {
      cmd.addAll(List.of(nice.toString(), "-n", "10")); // the training threads come first
    }
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    cmd.add("-XX:SharedArchiveFile=" + options.base());
    cmd.add("-XX:ArchiveClassesAtExit=" + partial);
    // About 170 MB for 2 s here (WRITER_MB), inside the worker's container: a small heap, one compiler, no G1 tables.
    cmd.addAll(List.of("-Xmx64m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
    cmd.add("-cp");
    cmd.add(classpath);
    cmd.add(ClassListLoader.class.getName());
    cmd.add(options.loadedClasses().toString());
    return cmd;
  }

  private static String tail(Path output) {
    try {
      List<String> lines = Files.readAllLines(output);
      return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    } catch (IOException e) {
      return "(no output: " + e + ")";
    }
  }
}
