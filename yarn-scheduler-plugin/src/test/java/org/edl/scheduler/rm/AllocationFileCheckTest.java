package org.edl.scheduler.rm;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.AllocationConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AllocationFileCheckTest {
  @TempDir Path dir;

  static String users(String aliceFields) {
    return """
        <?xml version="1.0"?>
        <allocations>
          <queue name="root">
            <schedulingPolicy>drf</schedulingPolicy>
            <queue name="users" type="parent">
              <schedulingPolicy>org.edl.scheduler.rm.UserFairPolicy</schedulingPolicy>
              <queue name="alice">%s</queue>
            </queue>
          </queue>
        </allocations>
        """.formatted(aliceFields);
  }

  private File write(String content) throws IOException {
    Path f = dir.resolve("fair-scheduler.xml");
    Files.writeString(f, content);
    return f.toFile();
  }

  private String refused(String content) throws IOException {
    File f = write(content);
    var e = assertThrows(AllocationConfigurationException.class, () -> AllocationFileCheck.check(f));
    assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
    return e.getMessage();
  }

  @Test
  void theShippedFileAndTheEdlPoliciesPass() throws IOException {
    File f = write(users("<weight>2.5</weight>"
        + "<schedulingPolicy>org.edl.scheduler.rm.AppOrderPolicy</schedulingPolicy>"));
    assertDoesNotThrow(() -> AllocationFileCheck.check(f));
    File conf = Path.of("..", "conf", "fair-scheduler.xml").toFile();
    assertDoesNotThrow(() -> AllocationFileCheck.check(conf), "conf/fair-scheduler.xml");
  }

  @Test
  void negativeWeightNamesQueueAndValue() throws IOException {
    String m = refused(users("<weight>-1</weight>"));
    assertTrue(m.contains("root.users.alice") && m.contains("weight -1"), m);
  }

  @Test
  void weightThatIsNoNumberNamesQueueAndValue() throws IOException {
    String m = refused(users("<weight>heavy</weight>"));
    assertTrue(m.contains("root.users.alice") && m.contains("'heavy'"), m);
  }

  @Test
  void unknownPolicyClassNamesQueueAndClass() throws IOException {
    String m = refused(users("<schedulingPolicy>org.edl.NoSuchPolicy</schedulingPolicy>"));
    assertTrue(m.contains("root.users.alice") && m.contains("org.edl.NoSuchPolicy"), m);
  }

  @Test
  void aClassThatIsNoPolicyIsRefused() throws IOException {
    String m = refused(users("<schedulingPolicy>java.lang.String</schedulingPolicy>"));
    assertTrue(m.contains("java.lang.String") && m.contains("does not extend"), m);
  }

  @Test
  void malformedXmlNamesTheLine() throws IOException {
    String m = refused("<?xml version=\"1.0\"?>\n<allocations>\n  <queue name=\"a\">\n</allocations>\n");
    assertTrue(m.contains("line"), m);
  }

  @Test
  void aFairParentOverAnEdlChildIsRefused() throws IOException {
    String m = refused("""
        <?xml version="1.0"?>
        <allocations>
          <queue name="users" type="parent">
            <schedulingPolicy>fair</schedulingPolicy>
            <queue name="alice">
              <schedulingPolicy>org.edl.scheduler.rm.AppOrderPolicy</schedulingPolicy>
            </queue>
          </queue>
        </allocations>
        """);
    assertTrue(m.contains("root.users.alice") && m.contains("not allowed"), m);
  }
}
