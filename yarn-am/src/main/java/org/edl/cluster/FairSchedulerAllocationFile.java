package org.edl.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.edl.scheduler.rm.AppOrderPolicy;
import org.edl.scheduler.rm.ElasticTiresiasPolicy;
import org.edl.scheduler.rm.UserFairPolicy;

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
        <defaultQueueSchedulingPolicy>%2$s</defaultQueueSchedulingPolicy>
        <queue name="root">
          <schedulingPolicy>drf</schedulingPolicy>
          <queue name="users" type="parent">
            <schedulingPolicy>%3$s</schedulingPolicy>
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

  /**
   * How {@code root.users} orders users and applications: the plugin's fair share (the default)
   * or its Elastic-Tiresias mode (docs/operations.md), both by the plugin's own policy classes.
   */
  public enum Mode {
    FAIR(UserFairPolicy.class, AppOrderPolicy.class),
    ELASTIC_TIRESIAS(ElasticTiresiasPolicy.class, ElasticTiresiasPolicy.class);

    private final String users;
    private final String applications;

    Mode(Class<?> users, Class<?> applications) {
      this.users = users.getName();
      this.applications = applications.getName();
    }
  }

  private FairSchedulerAllocationFile() {}

  /** Writes the file in the fair-share mode and returns its path. */
  public static Path write(Path file) throws IOException {
    return write(file, Mode.FAIR);
  }

  /** Writes the file with {@code root.users} in {@code mode} and returns its path. */
  public static Path write(Path file, Mode mode) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, String.format(CONTENT, DEFAULT_QUEUE, mode.applications, mode.users),
        StandardCharsets.UTF_8);
    return file;
  }
}
