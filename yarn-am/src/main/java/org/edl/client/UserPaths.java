package org.edl.client;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A path a user typed (data, output, data cache), made absolute for the workers, who share
 * neither this client's working directory nor, necessarily, its default file system.
 *
 * <p>A path without a scheme belongs to the default file system. One with a scheme keeps it and
 * is qualified by its own file system: Hadoop's {@code Path.makeQualified(defaultUri, ...)} gives
 * {@code file:///data.libsvm} the default file system's authority
 * ({@code file://namenode:8020/data.libsvm}), and {@code FileSystem.makeQualified} refuses a
 * path of another file system ("Wrong FS"), so {@code --data file:///...} could not be submitted.
 */
final class UserPaths {
  private UserPaths() {}

  static Path qualify(String path, FileSystem defaultFs, Configuration conf) throws IOException {
    Path p = new Path(path);
    FileSystem own = p.toUri().getScheme() == null ? defaultFs : p.getFileSystem(conf);
    return own.makeQualified(p);
  }
}
