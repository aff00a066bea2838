package org.edl.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.edl.testing.ZooKeeperServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The GPU indices a later AM attempt reads, and their removal when the container is gone. */
class GpuIndexRecordTest {
  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @Test
  void aRecordIsReadBackUntilItsContainerExitsAndThenIsGone() throws Exception {
    try (CuratorFramework zk = ZK.newClient()) {
      GpuIndexRecord record = new GpuIndexRecord(zk, "application_1_0007");
      record.write("container_1_0007_01_000002", List.of(0, 3));
      record.write("container_1_0007_01_000003", List.of());
      assertEquals(Optional.of(List.of(0, 3)), record.read("container_1_0007_01_000002"));
      assertEquals(Optional.of(List.of()), record.read("container_1_0007_01_000003"));

      record.forget("container_1_0007_01_000002");
      record.forget("container_1_0007_01_000002"); // twice, or never written: nothing to do
      record.forget("container_1_0007_01_000009");
      assertEquals(Optional.empty(), record.read("container_1_0007_01_000002"));
      assertEquals(List.of("container_1_0007_01_000003"), zk.getChildren().forPath("/edl/application_1_0007/gpus"));
    }
  }
}
