package org.edl.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the FairScheduler allocation file of the embedded cluster. Every queue uses Dominant
 * Resource Fairness so that GPUs count in the shares (the {@code fair} policy only looks at
 * memory), and the root is DRF too because a {@code fair} parent refuses a DRF child.
 * Applications land in the queue they name, or in {@code root.default}; never in a queue named
 * after the user, which for {@code root} would be the non-leaf root queue.
 */
public final class FairSchedulerAllocationFile {
  public static final String DEFAULT_QUEUE = "default";

  private static final String CONTENT = """
      <?xml version="1.0" encoding="UTF-8"?>
      <!-- Written by the EDL embedded cluster. -->
      <allocations>
        <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
        <queue name="root">
          <schedulingPolicy>drf</schedulingPolicy>
          <queue name="%1$s">
            <schedulingPolicy>drf</schedulingPolicy>
          </queue>
        </queue>
        <queuePlacementPolicy>
          <rule name="specified" create="true"/>
          <rule name="default" queue="%1$s"/>
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
