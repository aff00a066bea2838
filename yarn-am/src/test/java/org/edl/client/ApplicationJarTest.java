package org.edl.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client finds the jar it runs from as {@code yarn jar} runs it: Hadoop's own {@code RunJar}
 * in a JVM whose class path holds third-party jars only (no EDL classes, no libthrift, no
 * picocli), so that every EDL class comes from the jar RunJar unpacked.
 */
class ApplicationJarTest {
  @Test
  void underHadoopsRunJarTheJarIsFoundThoughTheClassesComeFromItsUnpackedCopy(@TempDir Path dir) throws Exception {
    Path jar = dir.resolve("edl-am-test.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      add(out, ApplicationJar.class);
      add(out, ApplicationJarProbe.class);
    }
    List<String> command = new ArrayList<>(List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
        "-Dhadoop.tmp.dir=" + dir.resolve("hadoop-tmp"), "-cp", hadoopOnlyClasspath(),
        "org.apache.hadoop.util.RunJar", jar.toString(), ApplicationJarProbe.class.getName(), "/opt/hadoop/*"));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(false);
    pb.environment().remove("HADOOP_CLIENT_SKIP_UNJAR");
    Process p = pb.start();
    String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String stderr = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), stdout + stderr);
    String[] lines = stdout.strip().split("\n");
    assertEquals(jar.toRealPath(), Paths.get(lines[0]).toRealPath(), stdout + stderr);
    assertEquals(jar.toAbsolutePath() + File.pathSeparator + "/opt/hadoop/*", lines[1],
        "the embedded cluster's containers get the jar in front of Hadoop's class path");
  }

  @Test
  void classesFromADirectoryWithNoJarBehindThemAreRefusedWithTheCommandToUse() {
    // In this test JVM the EDL classes come from target/classes.
    IOException e = assertThrows(IOException.class, () -> ApplicationJar.locate(ApplicationJar.class));
    assertTrue(e.getMessage().contains("yarn jar edl-am-<version>.jar submit"), e.getMessage());
  }

  private static String hadoopOnlyClasspath() {
    List<String> jars = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      String name = Paths.get(entry).getFileName().toString();
      if (entry.endsWith(".jar") && Files.isRegularFile(Paths.get(entry)) && !name.startsWith("edl-")
          && !name.startsWith("libthrift") && !name.startsWith("picocli")) {
        jars.add(entry);
      }
    }
    return String.join(File.pathSeparator, jars);
  }

  private static void add(JarOutputStream out, Class<?> c) throws IOException {
    String name = c.getName().replace('.', '/') + ".class";
    out.putNextEntry(new JarEntry(name));
    try (var in = c.getClassLoader().getResourceAsStream(name)) {
      in.transferTo(out);
    }
    out.closeEntry();
  }
}
