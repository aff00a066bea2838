package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.Test;

class ContainerClasspathTest {
  @Test
  void jarsComeFirstInTheirOrderAndDirectoriesLastSoThatTheJvmCanArchiveClassesForSharing() {
    Configuration conf = new Configuration(false);
    conf.setStrings(YarnConfiguration.YARN_APPLICATION_CLASSPATH, "$HADOOP_CONF_DIR",
        "$HADOOP_COMMON_HOME/share/hadoop/common/*", "/opt/extra/tools.JAR", "/opt/site-conf");
    // As bin/edl starts the client: its HADOOP_CONF_DIR first.
    conf.set(ContainerClasspath.LOCAL_CLASSPATH_KEY, "/cluster/conf:/repo/edl-am.jar:/repo/lib/*");

    List<String> entries = List.of(ContainerClasspath.of(conf).split(ApplicationConstants.CLASS_PATH_SEPARATOR));

    assertEquals(List.of("{{PWD}}/*", "$HADOOP_COMMON_HOME/share/hadoop/common/*", "/opt/extra/tools.JAR",
        "/repo/edl-am.jar", "/repo/lib/*", "{{PWD}}", "$HADOOP_CONF_DIR", "/opt/site-conf", "/cluster/conf"), entries);
  }

  @Test
  void withoutAClusterSettingTheDefaultClasspathIsUsed() {
    String cp = ContainerClasspath.of(new Configuration(false));
    assertTrue(cp.startsWith("{{PWD}}/*<CPS>{{HADOOP_COMMON_HOME}}/share/hadoop/common/*"), cp);
    assertTrue(cp.endsWith("<CPS>{{PWD}}<CPS>{{HADOOP_CONF_DIR}}"), cp);
  }
}
