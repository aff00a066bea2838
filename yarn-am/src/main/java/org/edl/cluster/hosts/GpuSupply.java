package org.edl.cluster.hosts;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.conf.Configuration;

/**
 * How each NodeManager of the multi-host cluster comes to advertise its {@code yarn.io/gpu}: through
 * Hadoop's own GPU resource plugin, as the shipped yarn-site.xml configures it ({@code auto}), which
 * runs a stand-in {@code nvidia-smi} from the host's own directory that reports {@code perHost}
 * devices. Under the DefaultContainerExecutor the plugin only counts: YARN assigns no device to a
 * container (see docs/operations.md).
 */
record GpuSupply(int perHost) {
  static final String DISCOVERY_PATH_KEY = "yarn.nodemanager.resource-plugins.gpu.path-to-discovery-executables";
  private static final String STAND_IN = "nvidia-smi";

  void configure(Configuration yarnSite, Path hostDir) {
    Path bin = hostDir.resolve("bin");
    try {
      Files.createDirectories(bin);
      try (InputStream script = GpuSupply.class.getResourceAsStream(STAND_IN)) {
        if (script == null) {
          throw new IllegalStateException("org/edl/cluster/hosts/" + STAND_IN + " missing from the class path");
        }
        Files.copy(script, bin.resolve(STAND_IN), StandardCopyOption.REPLACE_EXISTING);
      }
      // The build does not keep a resource's executable bit; Hadoop runs the binary directly.
      Files.setPosixFilePermissions(bin.resolve(STAND_IN), PosixFilePermissions.fromString("rwxr-xr-x"));
      Files.writeString(bin.resolve("gpus"), perHost + "\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    yarnSite.set(DISCOVERY_PATH_KEY, bin.toString());
  }
}
