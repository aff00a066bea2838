package org.edl.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.edl.testing.HdfsCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Found on bin/edl cluster: the first job on a fresh cluster made /user drwx------, and a second
 * user could not submit until an administrator opened it again.
 */
class StagingDirectoryTest {
  @RegisterExtension
  static final HdfsCluster HDFS = new HdfsCluster(1);

  @Test
  void onlyTheStagingDirectoryIsPrivateNotTheParentsItCreates() throws Exception {
    FileSystem fs = HDFS.fileSystem();
    Path staging = new Path("/user/alice/.edl/application_1_0001");
    JobSubmitter.makeStagingDirectory(fs, staging);
    assertEquals(new FsPermission((short) 0700), fs.getFileStatus(staging).getPermission());
    for (Path parent : new Path[] {new Path("/user"), new Path("/user/alice"), staging.getParent()}) {
      FsPermission p = fs.getFileStatus(parent).getPermission();
      assertEquals(FsPermission.getDirDefault().applyUMask(FsPermission.getUMask(fs.getConf())), p, parent.toString());
    }
  }
}
