package org.edl.client;

import java.io.File;
import java.io.IOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Enumeration;

/**
 * Finds the edl-am jar the client runs from, to ship it to the ApplicationMaster's container.
 * Run as {@code java -cp edl-am.jar:...} the class's code source is the jar. Run by Hadoop's
 * {@code RunJar} ({@code yarn jar edl-am.jar ...}) the classes come from the jar's unpacked copy
 * in a temporary directory, while the jar itself is on the same class loader too: the copy the
 * loader finds inside a jar is the one.
 */
final class ApplicationJar {
  private ApplicationJar() {}

  /**
   * The jar the containers run: {@code named} ({@link JobSubmitter#APPLICATION_JAR_KEY}) where it
   * is set, else the jar {@code anchor} came from. Under {@code RunJar} ({@code yarn jar}) the
   * classes load from the jar's unpacked directory while the jar itself stays on the class
   * loader, so a class loaded from a directory is looked up again among the loader's copies.
   */
  static Path toShip(String named, Class<?> anchor) throws IOException {
    if (named == null || named.isEmpty()) {
      return locate(anchor);
    }
    Path jar = Paths.get(named);
    if (!Files.isRegularFile(jar)) {
      throw new IOException(JobSubmitter.APPLICATION_JAR_KEY + " names " + named + ", which is not a file");
    }
    return jar;
  }

  static Path locate(Class<?> anchor) throws IOException {
    Path source;
    try {
      source = Paths.get(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException | NullPointerException e) {
      throw new IOException("cannot locate the edl-am jar: " + anchor.getName() + " has no code source", e);
    }
    if (isJar(source)) {
      return source;
    }
    String resource = anchor.getName().replace('.', '/') + ".class";
    ClassLoader loader = anchor.getClassLoader();
    Enumeration<URL> copies = loader == null ? ClassLoader.getSystemResources(resource) : loader.getResources(resource);
    while (copies.hasMoreElements()) {
      URL url = copies.nextElement();
      if (url.getProtocol().equals("jar")) {
        Path jar = jarOf(url);
        if (jar != null && isJar(jar)) {
          return jar;
        }
      }
    }
    throw new IOException("not running from the edl-am jar (" + anchor.getSimpleName() + " loaded from " + source
        + ", and no jar on its class loader holds it): on a real cluster submit with"
        + " `yarn jar edl-am-<version>.jar submit ...`");
  }

  /**
   * The embedded cluster's containers run on this JVM's own class path; under {@code RunJar} that
   * is Hadoop's alone, so the jar goes in front of it.
   */
  static String withLocalClasspath(String localClasspath) throws IOException {
    Path jar;
    try {
      jar = locate(ApplicationJar.class).toAbsolutePath();
    } catch (IOException e) {
      return localClasspath; // tests and IDEs: the classes are on the class path as directories
    }
    for (String entry : localClasspath.split(File.pathSeparator)) {
      if (!entry.isEmpty() && Paths.get(entry).toAbsolutePath().equals(jar)) {
        return localClasspath;
      }
    }
    return localClasspath.isEmpty() ? jar.toString() : jar + File.pathSeparator + localClasspath;
  }

  private static Path jarOf(URL url) throws IOException {
    try {
      URL file = ((JarURLConnection) url.openConnection()).getJarFileURL();
      return Paths.get(file.toURI());
    } catch (URISyntaxException | ClassCastException e) {
      return null;
    }
  }

  private static boolean isJar(Path p) {
    return Files.isRegularFile(p) && p.getFileName().toString().endsWith(".jar");
  }
}
