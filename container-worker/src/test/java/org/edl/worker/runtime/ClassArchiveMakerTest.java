package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClassArchiveMakerTest {
  private static final String LOADER = ClassListLoader.class.getName();
  private static final String JDK_ARCHIVE = Path.of(System.getProperty("java.home"), "lib", "server", "classes.jsa")
      .toString();

  @TempDir
  Path dir;

  /**
   * Two containers of one job on a node: each has the job's jar as a link in its own working
   * directory, which is on its class path too. The archive one of them writes from its class list
   * is mapped by the other, from its own directory.
   */
  @Test
  void anArchiveWrittenFromOneContainersClassListIsUsedByAnotherContainerOfTheJobOnTheNode() throws Exception {
    Path jar = jarOf(ClassListLoader.class);
    Path app = Files.createDirectories(dir.resolve("appcache/application_1_0001"));
    Path first = container(app, "container_1_0001_01_000002", jar);
    Path second = container(app, "container_1_0001_01_000003", jar);
    Path list = Files.writeString(first.resolve("tmp/loaded.lst"), "# NOTE: Do not modify this file.\n"
        + "java/lang/Object id: 0\n" + LOADER.replace('.', '/') + " id: 1017\n"
        + "java/util/concurrent/ConcurrentSkipListMap id: 1018\n@lambda-proxy java/lang/Object run\n");
    Path top = app.resolve("edl-worker.jsa");

    ClassArchiveMaker maker = new ClassArchiveMaker(new ClassArchiveMaker.Options(JDK_ARCHIVE, top, list),
        classpath(first), List.of());
    assertTrue(maker.make("container_1_0001_01_000002"));
    assertTrue(Files.isRegularFile(top));
    try (var files = Files.list(app)) {
      assertEquals(List.of("container_1_0001_01_000002", "container_1_0001_01_000003", "edl-worker.jsa",
          "edl-worker.jsa.lock"), files.map(p -> p.getFileName().toString()).sorted().toList(),
          "the archive renamed into place, nothing partial left");
    }
    assertFalse(new ClassArchiveMaker(new ClassArchiveMaker.Options(JDK_ARCHIVE, top, list), classpath(second),
        List.of()).make("container_1_0001_01_000003"), "one worker per node writes it");

    String loads = run(List.of("-XX:SharedArchiveFile=" + JDK_ARCHIVE + ":" + top, "-Xlog:class+load=info",
        "-cp", classpath(second), LOADER, list.toString()));
    assertTrue(loads.contains(LOADER + " source: shared objects file (top)"), loads);
    assertTrue(loads.contains("java.util.concurrent.ConcurrentSkipListMap source: shared objects file"), loads);
  }

  @Test
  void aJvmStartedBeforeTheArchiveExistsStillMapsTheJdksOwn() throws Exception {
    Path jar = jarOf(ClassListLoader.class);
    Path list = Files.writeString(dir.resolve("empty.lst"), "");
    String loads = run(List.of("-XX:SharedArchiveFile=" + JDK_ARCHIVE + ":" + dir.resolve("missing.jsa"),
        "-Xlog:class+load=info", "-cp", jar.toString(), LOADER, list.toString()));
    assertTrue(loads.contains("java.lang.Object source: shared objects file"), loads);
    assertTrue(loads.contains(LOADER + " source: file:"), loads);
  }

  @Test
  void aLoaderThatFailsLeavesNoArchiveAndSaysWhy() throws Exception {
    Path jar = jarOf(ClassListLoader.class);
    Path top = dir.resolve("edl-worker.jsa");
    ClassArchiveMaker maker = new ClassArchiveMaker(
        new ClassArchiveMaker.Options(JDK_ARCHIVE, top, dir.resolve("no-such-list.lst")), jar.toString(), List.of());
    java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
        () -> maker.make("c1"));
    assertTrue(e.getMessage().contains("NoSuchFileException"), e.getMessage());
    assertFalse(Files.exists(top));
    assertFalse(Files.exists(dir.resolve("edl-worker.jsa.c1.tmp")));
  }

  @Test
  void aDirectoryWithFilesAheadOfAJarMakesTheClassPathUnarchivable() throws Exception {
    Path jar = jarOf(ClassListLoader.class);
    Path full = Files.createDirectories(dir.resolve("conf"));
    Files.writeString(full.resolve("core-site.xml"), "<configuration/>");
    Path empty = Files.createDirectories(dir.resolve("empty"));
    String sep = java.io.File.pathSeparator;
    assertEquals(Optional.of(full.toString()), ClassArchiveMaker.unarchivable(full + sep + jar));
    assertEquals(Optional.empty(), ClassArchiveMaker.unarchivable(jar + sep + full));
    assertEquals(Optional.empty(), ClassArchiveMaker.unarchivable(empty + sep + jar + sep + dir.resolve("gone")));
  }

  @Test
  void aWorkerWithoutRoomInItsContainerForTheArchivesJvmWritesNone() {
    assertEquals(Optional.empty(), ClassArchiveMaker.lacksRoom("1024", 470));
    assertEquals(Optional.of("it uses 900 MB of its container's 1024 MB, and writing the archive takes about "
        + ClassArchiveMaker.WRITER_MB + " MB more"), ClassArchiveMaker.lacksRoom("1024", 900));
    assertEquals(Optional.empty(), ClassArchiveMaker.lacksRoom(null, 900), "a worker started by hand: unknown");
    assertEquals(Optional.empty(), ClassArchiveMaker.lacksRoom("1024", -1), "no /proc: unknown");
    assertTrue(ClassArchiveMaker.residentMb() > 0, "this JVM's resident memory, on Linux");
  }

  @Test
  void listLinesNameClassesCommentsAndDirectivesDoNot() {
    assertEquals("java.lang.Object", ClassListLoader.className("java/lang/Object id: 0"));
    assertEquals("org.edl.A$B", ClassListLoader.className("org/edl/A$B"));
    assertNull(ClassListLoader.className("# NOTE"));
    assertNull(ClassListLoader.className("@lambda-proxy java/lang/Object run"));
    assertNull(ClassListLoader.className("  "));
    assertEquals(List.of(1, 1), List.of(ClassListLoader.load(List.of("java/lang/String", "no/such/Clazz"),
        ClassLoader.getSystemClassLoader())[0], ClassListLoader.load(List.of("java/lang/String", "no/such/Clazz"),
        ClassLoader.getSystemClassLoader())[1]));
  }

  private static Path container(Path app, String name, Path jar) throws Exception {
    Path c = Files.createDirectories(app.resolve(name).resolve("tmp")).getParent();
    Files.createSymbolicLink(c.resolve("edl.jar"), jar);
    Files.writeString(c.resolve("job.properties"), "name=test\n");
    return c;
  }

  /** A container's class path: its jars, then its working directory (ContainerClasspath's order). */
  private static String classpath(Path container) {
    return container.resolve("edl.jar") + java.io.File.pathSeparator + container;
  }

  private Path jarOf(Class<?> c) throws Exception {
    Path jar = dir.resolve("dist/edl.jar");
    if (Files.exists(jar)) {
      return jar;
    }
    Files.createDirectories(jar.getParent());
    String entry = c.getName().replace('.', '/') + ".class";
    try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out);
        InputStream in = c.getClassLoader().getResourceAsStream(entry)) {
      j.putNextEntry(new JarEntry(entry));
      in.transferTo(j);
      j.closeEntry();
    }
    return jar;
  }

  private static String run(List<String> args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(args);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
    return out;
  }
}
