package org.edl.scheduler.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The policy core and the simulator must run without Hadoop, Thrift or the worker. */
class NoHadoopImportsTest {
  private static final List<String> FORBIDDEN = List.of("org.apache.hadoop", "org.apache.thrift", "org.edl.worker");

  @Test
  void coreAndSimImportNoHadoopThriftOrWorkerClass() throws Exception {
    Path src = Path.of("src/main/java/org/edl/scheduler");
    List<Path> files = new ArrayList<>();
    for (String pkg : List.of("core", "sim")) {
      try (Stream<Path> s = Files.walk(src.resolve(pkg))) {
        s.filter(p -> p.toString().endsWith(".java")).forEach(files::add);
      }
    }
    assertTrue(files.size() > 5, "found " + files);
    List<String> bad = new ArrayList<>();
    for (Path f : files) {
      for (String line : Files.readAllLines(f)) {
        for (String pkg : FORBIDDEN) {
          if (line.contains(pkg + ".")) {
            bad.add(f + ": " + line.trim());
          }
        }
      }
    }
    assertEquals(List.of(), bad);
  }
}
