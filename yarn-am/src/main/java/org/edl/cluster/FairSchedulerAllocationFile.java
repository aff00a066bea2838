package org.edl.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the FairScheduler allocation file of the embedded cluster, laid out for the EDL
 * scheduler plugin as {@code conf/fair-scheduler.xml} is: a DRF root (a {@code fair} parent
 * refuses the DRF-kind EDL policies), {@code root.users} ordering its per-user queues by GPUs
 * held relative to weight, each user's applications by priority then submit time, and a
 * {@code root.default} queue. Applications land in the queue they name (created if missing), or
 * in {@code root.users.<user>}; never in a queue named after the user directly under root, which
 * for {@code root} would be the non-leaf root queue.
 */
public final class FairSchedulerAllocationFile {
  public static final String DEFAULT_QUEUE = "default";

  private static final String CONTENT = """
      <?xml version="1.0" encoding="UTF-8"?>
      <!-- Written by the EDL embedded cluster. -->
      <allocations>
        <defaultQueueSchedulingPolicy>org.edl.scheduler.rm.AppOrderPolicy</defaultQueueSchedulingPolicy>
        <queue name="root">
          <schedulingPolicy>drf</schedulingPolicy>
          <queue name="users" type="parent">
            <schedulingPolicy>org.edl.scheduler.rm.UserFairPolicy</schedulingPolicy>
          </queue>
          <queue name="%1$s">
            <schedulingPolicy>drf</schedulingPolicy>
          </queue>
        </queue>
        <queuePlacementPolicy>
          <rule name="specified" create="true"/>
          <rule name="nestedUserQueue" create="true">
            <rule name="default" queue="users"/>
          </rule>
        </queuePlacementPolicy>
      </allocations>
      """;

  private FairSchedulerAllocationFile() {}

  /** Writes the file and returns its path. */
  public static Path write(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, String.format(CONTENT, DEFAULT_QUEUE), StandardCharsets.UTF_8);
    return file;
  }
}
