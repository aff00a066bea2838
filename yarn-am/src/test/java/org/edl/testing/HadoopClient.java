package org.edl.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code yarn} command of a Hadoop client installation, for the README's {@code yarn jar} and
 * {@code yarn application} lines. Hadoop's distribution is in neither Maven Central nor Debian, so
 * this writes the part of its {@code bin/yarn} those lines use: {@code jar} runs
 * {@code org.apache.hadoop.util.RunJar} and {@code application} runs {@code ApplicationCLI}, each
 * with {@code HADOOP_CONF_DIR} first on the class path and then Hadoop's jars (here, those of the
 * test's class path that are not EDL's or what the shaded jar carries), as {@code bin/yarn} does.
 */
public final class HadoopClient {
  private HadoopClient() {}

  /** Writes {@code dir/yarn}; put {@code dir} first on the PATH. */
  public static Path install(Path dir) throws IOException {
    Files.createDirectories(dir);
    Path yarn = dir.resolve("yarn");
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    Files.writeString(yarn, String.join("\n",
        "#!/usr/bin/env bash",
        "# Hadoop's bin/yarn, the subcommands the README uses (written by " + HadoopClient.class.getName() + ").",
        "set -euo pipefail",
        "subcommand=${1:?usage: yarn jar JAR [ARGS] | yarn application ARGS}",
        "shift",
        "case \"$subcommand\" in",
        "  jar) main=org.apache.hadoop.util.RunJar ;;",
        "  application) main=org.apache.hadoop.yarn.client.cli.ApplicationCLI; set -- application \"$@\" ;;",
        "  *) echo \"yarn: $subcommand: not a subcommand this client has\" >&2; exit 1 ;;",
        "esac",
        "exec '" + java + "' ${HADOOP_OPTS:-} -cp \"${HADOOP_CONF_DIR:?}:" + hadoopJars() + "\" \"$main\" \"$@\"",
        ""));
    Files.setPosixFilePermissions(yarn, PosixFilePermissions.fromString("rwxr-xr-x"));
    return yarn;
  }

  /** Hadoop and its dependencies: none of EDL's jars, nor what the shaded jar brings itself. */
  private static String hadoopJars() {
    List<String> jars = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path p = Paths.get(entry);
      String name = p.getFileName().toString();
      if (name.endsWith(".jar") && Files.isRegularFile(p) && !name.startsWith("edl-")
          && !name.startsWith("libthrift") && !name.startsWith("picocli") && !name.startsWith("jfreechart")
          && !name.startsWith("commons-csv") && !name.startsWith("jcuda")) {
        jars.add(p.toAbsolutePath().toString());
      }
    }
    return String.join(File.pathSeparator, jars);
  }
}
