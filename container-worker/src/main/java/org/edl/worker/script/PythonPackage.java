package org.edl.worker.script;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The {@code edl} Python package (and the Thrift code it speaks) that the worker jar carries:
 * written out where the script's interpreter finds it, so that nothing is installed on the
 * cluster's nodes but Python, PyTorch and Thrift's Python runtime.
 */
public final class PythonPackage {
  static final String ROOT = "org/edl/worker/script/python/";

  private PythonPackage() {}

  /** Writes the package's files under {@code dir} (its PYTHONPATH entry) and lists them. */
  public static List<Path> writeTo(Path dir) throws IOException {
    List<Path> written = new ArrayList<>();
    for (String name : files()) {
      Path target = dir.resolve(name.substring(ROOT.length()));
      Files.createDirectories(target.getParent());
      try (InputStream in = PythonPackage.class.getClassLoader().getResourceAsStream(name)) {
        if (in == null) {
          throw new IOException("resource " + name + " vanished from the worker's class path");
        }
        Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      }
      written.add(target);
    }
    return written;
  }

  /** The package's resource names, from the worker jar or (in a build) its classes directory. */
  static List<String> files() throws IOException {
    URL marker = PythonPackage.class.getClassLoader().getResource(ROOT + "edl/__init__.py");
    if (marker == null) {
      throw new IOException(ROOT + "edl/__init__.py is missing from the worker's class path");
    }
    List<String> names = new ArrayList<>();
    if ("jar".equals(marker.getProtocol())) {
      JarURLConnection c = (JarURLConnection) marker.openConnection();
      c.setUseCaches(false);
      try (JarFile jar = c.getJarFile()) {
        Enumeration<JarEntry> entries = jar.entries();
        while (entries.hasMoreElements()) {
          String n = entries.nextElement().getName();
          if (n.startsWith(ROOT) && n.endsWith(".py")) {
            names.add(n);
          }
        }
      }
    } else {
      Path root;
      try {
        root = Path.of(marker.toURI()).getParent().getParent();
      } catch (URISyntaxException e) {
        throw new IOException(marker + ": " + e.getMessage(), e);
      }
      try (Stream<Path> s = Files.walk(root)) {
        s.filter(p -> p.toString().endsWith(".py")).forEach(p ->
            names.add(ROOT + root.relativize(p).toString().replace('\\', '/')));
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
    }
    names.sort(null);
    return names;
  }
}
