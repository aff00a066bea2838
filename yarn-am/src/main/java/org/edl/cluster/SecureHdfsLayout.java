package org.edl.cluster;

import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * What an administrator creates on a new secure HDFS before its first user: with Kerberos the
 * file system belongs to the services' principal (the NameNode's superuser), so a user cannot
 * make their own home directory, and YARN's log aggregation needs a world-writable {@code /tmp}.
 */
final class SecureHdfsLayout {
  private SecureHdfsLayout() {}

  /** As the superuser this JVM is logged in as: {@code /tmp} (1777) and {@code /user/<user>} owned by the user. */
  static void prepare(URI hdfs, Configuration conf, String user) throws IOException {
    try (FileSystem fs = FileSystem.newInstance(hdfs, conf)) {
      Path tmp = new Path("/tmp");
      fs.mkdirs(tmp);
      fs.setPermission(tmp, new FsPermission((short) 01777));
      Path home = new Path("/user", user);
      fs.mkdirs(home);
      fs.setOwner(home, user, user);
      fs.setPermission(home, new FsPermission((short) 0755));
    }
  }
}
