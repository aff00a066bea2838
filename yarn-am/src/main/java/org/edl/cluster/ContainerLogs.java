package org.edl.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * With the system property {@value EmbeddedCluster#KEEP_LOGS} naming a directory (the build sets
 * it for tests), the NodeManagers' container logs (stdout, stderr, syslog of every AM and worker)
 * are copied there before the cluster's directory is removed: a test that failed now and then can
 * be read afterwards.
 */
final class ContainerLogs {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedCluster.class);

  private ContainerLogs() {}

  /** Whether logs are to be kept: the NodeManagers must then not delete them as jobs end. */
  static boolean kept() {
    String keep = System.getProperty(EmbeddedCluster.KEEP_LOGS);
    return keep != null && !keep.isBlank();
  }

  static void keep(Path baseDir) {
    if (!kept()) {
      return;
    }
    Path target = Path.of(System.getProperty(EmbeddedCluster.KEEP_LOGS)).resolve(baseDir.getFileName());
    int kept = 0;
    try (var walk = Files.walk(baseDir)) {
      for (Path p : (Iterable<Path>) walk.filter(Files::isRegularFile)
          .filter(f -> f.toString().contains("-logDir-nm-"))::iterator) {
        Path to = target.resolve(baseDir.relativize(p));
        Files.createDirectories(to.getParent());
        Files.copy(p, to, StandardCopyOption.REPLACE_EXISTING);
        kept++;
      }
      if (kept > 0) {
        LOG.info("{} container log files kept in {}", kept, target);
      }
    } catch (IOException e) {
      LOG.warn("Could not keep the container logs in {}: {}", target, e.toString());
    }
  }
}
