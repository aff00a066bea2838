package org.edl.worker.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The main class of the JVM that {@link ClassArchiveMaker} starts: loads, without initialising
 * them, the classes a worker's {@code -XX:DumpLoadedClassList} file names, then exits, so that
 * {@code -XX:ArchiveClassesAtExit} writes them into the archive. Classes that cannot be loaded
 * here (a hidden class, one generated at run time) are counted and skipped: the archive is a cache.
 */
public final class ClassListLoader {
  private ClassListLoader() {}

  public static void main(String[] args) {
    if (args.length != 1) {
      System.err.println("usage: ClassListLoader <class list written by -XX:DumpLoadedClassList>");
      System.exit(2);
    }
    List<String> lines;
    try {
      lines = Files.readAllLines(Path.of(args[0]));
    } catch (IOException e) {
      System.err.println("cannot read the class list " + args[0] + ": " + e);
      System.exit(2);
      return;
    }
    int[] counts = load(lines, ClassLoader.getSystemClassLoader());
    System.out.println("loaded " + counts[0] + " classes, skipped " + counts[1]);
  }

  /** @return classes loaded and lines naming a class that could not be */
  static int[] load(List<String> lines, ClassLoader loader) {
    int loaded = 0;
    int skipped = 0;
    for (String line : lines) {
      String name = className(line);
      if (name == null) {
        continue;
      }
      try {
        Class.forName(name, false, loader);
        loaded++;
      } catch (ClassNotFoundException | LinkageError e) {
        skipped++;
      }
    }
    return new int[] {loaded, skipped};
  }

  /** The class a list line names ({@code java/lang/Object id: 0}), or null for comments and {@code @} directives. */
  static String className(String line) {
    String t = line.strip();
    if (t.isEmpty() || t.startsWith("#") || t.startsWith("@")) {
      return null;
    }
    int space = t.indexOf(' ');
    return (space < 0 ? t : t.substring(0, space)).replace('/', '.');
  }
}
