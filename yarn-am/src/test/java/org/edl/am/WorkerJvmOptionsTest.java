package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class WorkerJvmOptionsTest {
  @Test
  void workersShareClassesAndAskForHugePagesByDefault() {
    assertEquals(List.of("-XX:SharedArchiveFile={{JAVA_HOME}}/lib/server/classes.jsa:{{PWD}}/../edl-worker.jsa",
        "-XX:DumpLoadedClassList={{PWD}}/tmp/edl-loaded-classes.lst", "-XX:+UseTransparentHugePages"),
        WorkerJvmOptions.of(new Configuration(false)));
  }

  @Test
  void theAdminCanTurnHugePagesOffAlone() {
    Configuration conf = new Configuration(false);
    conf.setBoolean(WorkerHugePages.ENABLED_KEY, false);
    assertEquals(WorkerClassSharing.jvmOptions(conf), WorkerJvmOptions.of(conf));
  }

  @Test
  void andBoth() {
    Configuration conf = new Configuration(false);
    conf.setBoolean(WorkerHugePages.ENABLED_KEY, false);
    conf.setBoolean(WorkerClassSharing.ENABLED_KEY, false);
    assertEquals(List.of(), WorkerJvmOptions.of(conf));
  }
}
