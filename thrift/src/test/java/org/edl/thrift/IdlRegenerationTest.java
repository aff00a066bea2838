package org.edl.thrift;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The committed Java must be what thrift/generate.sh makes of the committed IDL. */
class IdlRegenerationTest {

  private static final Path IDL = Path.of("edl.thrift");
  private static final Path GENERATED = Path.of("src/main/java/org/edl/thrift");
  private static final Path GENERATED_PYTHON =
      Path.of("../container-worker/src/main/resources/org/edl/worker/script/python/edl_gen");

  @Test
  void recordedHashMatchesIdl() throws Exception {
    String recorded;
    try (InputStream in = getClass().getResourceAsStream("edl.thrift.sha256")) {
      assertNotNull(in, "edl.thrift.sha256 missing: run thrift/generate.sh");
      recorded = new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
    }
    assertEquals(recorded, sha256(Files.readAllBytes(IDL)),
        "thrift/edl.thrift changed without regeneration: run thrift/generate.sh and commit");
  }

  /** Where Debian's thrift-compiler is installed, regenerate and compare file by file. */
  @Test
  void generatedSourcesMatchCompilerOutput(@TempDir Path tmp) throws Exception {
    assumeTrue(onPath("thrift"), "thrift-compiler not installed; hash check above still runs");
    assertRegenerated("java:generated_annotations=suppress", tmp.resolve("java"), "org/edl/thrift", GENERATED, ".java");
  }

  /** The Python of the same IDL that script jobs' edl package carries. */
  @Test
  void generatedPythonMatchesCompilerOutput(@TempDir Path tmp) throws Exception {
    assumeTrue(onPath("thrift"), "thrift-compiler not installed; hash check above still runs");
    assertRegenerated("py", tmp.resolve("py"), "edl_gen", GENERATED_PYTHON, ".py");
  }

  private static void assertRegenerated(String generator, Path out, String sub, Path committed, String suffix)
      throws Exception {
    Files.createDirectories(out);
    Process p = new ProcessBuilder("thrift", "--gen", generator, "-out", out.toString(), IDL.toString())
        .redirectErrorStream(true).start();
    String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(true, p.waitFor(60, TimeUnit.SECONDS), "thrift compiler hung");
    assertEquals(0, p.exitValue(), log);
    Path fresh = out.resolve(sub);
    assertEquals(list(fresh, suffix), list(committed, suffix), "generated file set differs");
    for (String name : list(fresh, suffix)) {
      assertEquals(Files.readString(fresh.resolve(name)), Files.readString(committed.resolve(name)),
          name + " differs from the compiler's output: run thrift/generate.sh");
    }
  }

  private static List<String> list(Path dir, String suffix) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(suffix)).sorted().toList();
    }
  }

  private static boolean onPath(String exe) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, exe))) {
        return true;
      }
    }
    return false;
  }

  private static String sha256(byte[] data) throws NoSuchAlgorithmException {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
  }
}
