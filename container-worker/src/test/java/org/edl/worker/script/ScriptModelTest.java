package org.edl.worker.script;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.edl.job.JobSecret;
import org.edl.job.Training;
import org.edl.testing.PythonTorch;
import org.edl.job.BatchRule;
import org.edl.worker.collective.RingTopology;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real PyTorch children (Debian's python3-torch, gloo) driven through the channel as the worker's
 * training loop drives them: the members' groups, their steps, a newcomer that takes the state.
 */
class ScriptModelTest {
  static final String PYTHON = PythonTorch.PYTHON;
  static final int SAMPLES = 64;
  static final int GLOBAL = 16;
  static final Training TRAINING = new Training("script", "cpu", 100, GLOBAL, BatchRule.FIXED_GLOBAL, 0.1, 0, 5, false);
  static final String SCRIPT = """
      import sys, torch, edl
      torch.manual_seed(int(sys.argv[1]))
      g = torch.Generator().manual_seed(7)
      x = torch.randn(%d, 6, generator=g)
      y = (x.sum(dim=1) > 0).long()
      job = edl.init(dataset_size=len(x))
      torch.manual_seed(job.seed)
      model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
      opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
      job.attach(model, opt)
      for step in job.steps():
          if sys.argv[2] == "fail" and step.number == 0:
              raise ValueError("no good at step 0")
          if sys.argv[2] == "break" and step.number == 1:
              break
          opt.zero_grad()
          loss = torch.nn.functional.cross_entropy(job.model(x[step.samples]), y[step.samples], reduction="sum")
          step.backward(loss)
          opt.step()
          step.done(loss.item())
      with open("params.txt", "w") as f:
          f.write(" ".join(repr(v) for v in torch.cat([p.detach().flatten() for p in model.parameters()]).tolist()))
      """.formatted(SAMPLES);
  static ExecutorService threads;

  @TempDir
  Path dir;

  @BeforeAll
  static void torch() throws Exception {
    PythonTorch.assumeInstalled();
    threads = Executors.newCachedThreadPool();
  }

  @AfterAll
  static void stop() {
    if (threads != null) {
      threads.shutdownNow();
    }
  }

  private ScriptModel start(String name, String seed, String mode) throws Exception {
    return start(dir, name, SCRIPT, List.of(seed, mode));
  }

  /** {@code text} as the script {@code train.py} of member {@code name}, in {@code dir/name}. */
  static ScriptModel start(Path dir, String name, String text, List<String> args) throws Exception {
    Path work = Files.createDirectories(dir.resolve(name));
    Path script = work.resolve("train.py");
    Files.writeString(script, text);
    return ScriptModel.start(PYTHON, script, args, work, SECRET, name, TRAINING, "gloo", java.util.Map.of());
  }

  static final JobSecret SECRET = JobSecret.generate();

  static int[] batch(int step) {
    int[] b = new int[GLOBAL];
    for (int i = 0; i < GLOBAL; i++) {
      b[i] = (step * GLOBAL + i) % SAMPLES;
    }
    return b;
  }

  static RingTopology ring(long version, ScriptModel... members) {
    List<RingTopology.Member> m = new ArrayList<>();
    for (ScriptModel s : members) {
      m.add(new RingTopology.Member(s.name() + m.size(), "127.0.0.1", 1, "n", s.storePort()));
    }
    return new RingTopology(version, m);
  }

  /** Every member trains its share of each step, concurrently, as the workers of one ring do. */
  static void train(int fromStep, int toStep, ScriptModel... ring) throws Exception {
    for (int step = fromStep; step < toStep; step++) {
      int[] b = batch(step);
      List<Future<Double>> done = new ArrayList<>();
      for (int r = 0; r < ring.length; r++) {
        int from = r * GLOBAL / ring.length;
        int to = (r + 1) * GLOBAL / ring.length;
        ScriptModel m = ring[r];
        long jobStep = step;
        done.add(threads.submit(() -> {
          m.stepStarting(jobStep);
          return m.accumulateGradients(null, b, from, to, new float[1]);
        }));
      }
      for (Future<Double> d : done) {
        assertTrue(Double.isFinite(d.get(120, TimeUnit.SECONDS)));
      }
    }
  }

  private double[] finish(ScriptModel m, String name) throws Exception {
    m.close();
    String[] text = Files.readString(dir.resolve(name).resolve("params.txt")).trim().split(" ");
    double[] v = new double[text.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = Double.parseDouble(text[i]);
    }
    return v;
  }

  static void assertClose(double[] expected, double[] actual, String what) {
    assertEquals(expected.length, actual.length, what);
    for (int i = 0; i < expected.length; i++) {
      assertEquals(expected[i], actual[i], 1e-5, what + ": parameter " + i);
    }
  }

  /**
   * One member alone, against two that start from different seeds and a third that joins at step
   * 4 from yet another: the group takes the first member's start and the newcomer the job's state,
   * so all end where the one alone did (same global batches, momentum state included).
   */
  @Test
  void twoMembersAndANewcomerEndWhereOneMemberAloneEnds() throws Exception {
    ScriptModel alone = start("alone", "1", "ok");
    alone.ringFormed(ring(1, alone), 0);
    train(0, 8, alone);
    double[] expected = finish(alone, "alone");

    ScriptModel a = start("a", "1", "ok");
    ScriptModel b = start("b", "2", "ok");
    assertEquals(SAMPLES, a.dataset().size());
    a.ringFormed(ring(1, a, b), 0);
    b.ringFormed(ring(1, a, b), 1);
    train(0, 4, a, b);
    ScriptModel c = start("c", "3", "ok");
    RingTopology three = ring(2, a, b, c);
    a.ringFormed(three, 0);
    b.ringFormed(three, 1);
    c.ringFormed(three, 2);
    train(4, 8, a, b, c);
    assertClose(expected, finish(a, "a"), "a");
    assertClose(expected, finish(b, "b"), "b");
    assertClose(expected, finish(c, "c"), "the newcomer");
  }

  /** The state the worker saves (a checkpoint's, the final model.bin) loads back into the script, and edl.read_state reads it. */
  @Test
  void itsSavedStateLoadsBackAndReadsWithoutAWorker() throws Exception {
    ScriptModel m = start("state", "1", "ok");
    m.ringFormed(ring(1, m), 0);
    train(0, 3, m);
    java.io.ByteArrayOutputStream saved = new java.io.ByteArrayOutputStream();
    m.writeState(new java.io.DataOutputStream(saved));
    train(3, 6, m);
    m.readState(new java.io.DataInputStream(new java.io.ByteArrayInputStream(saved.toByteArray())));
    train(3, 6, m);
    double[] again = finish(m, "state");

    ScriptModel reference = start("reference", "1", "ok");
    reference.ringFormed(ring(1, reference), 0);
    train(0, 6, reference);
    assertClose(finish(reference, "reference"), again, "steps 3-5 redone from the saved state");

    Path file = dir.resolve("model.bin");
    Files.write(file, saved.toByteArray());
    ProcessBuilder pb = new ProcessBuilder(PYTHON, "-c", "import sys, edl; s = edl.read_state(sys.argv[1]);"
        + " print(sorted(s), len(s['model']))", file.toString()).redirectErrorStream(true);
    pb.environment().put("PYTHONPATH", dir.resolve("state").resolve("edl-python").toString());
    Process p = pb.start();
    String printed = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
    assertEquals(0, p.waitFor(), printed);
    assertEquals("['model', 'optimizer', 'state'] 4", printed);
  }

  /**
   * A model whose state is larger than Thrift's default message (16 MB; a ResNet-18 with its
   * momentum is 90 MB): its checkpoint goes to the worker and back whole.
   */
  @Test
  void aStateLargerThanThriftsDefaultMessageIsSavedAndLoaded() throws Exception {
    ScriptModel m = start(dir, "large", SCRIPT.replace("torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)",
        "torch.nn.Linear(6, 3000), torch.nn.Linear(3000, 2000), torch.nn.ReLU(), torch.nn.Linear(2000, 2)"),
        List.of("1", "ok"));
    m.ringFormed(ring(1, m), 0);
    train(0, 2, m);
    java.io.ByteArrayOutputStream saved = new java.io.ByteArrayOutputStream();
    m.writeState(new java.io.DataOutputStream(saved));
    assertTrue(saved.size() > 40_000_000, "parameters and momentum: " + saved.size() + " bytes");
    m.readState(new java.io.DataInputStream(new java.io.ByteArrayInputStream(saved.toByteArray())));
    train(2, 3, m);
    m.close();
  }

  @Test
  void aScriptThatFailsAtItsFirstStepFailsTheStepWithItsOwnError() throws Exception {
    ScriptModel m = start("bad", "1", "fail");
    m.ringFormed(ring(1, m), 0);
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> m.accumulateGradients(null, batch(0), 0, GLOBAL, new float[1]));
    assertTrue(e.getMessage().contains("ValueError: no good at step 0"), e.getMessage());
    m.close();
  }

  @Test
  void aScriptThatLeavesItsStepsEarlyIsToldWhyNotTakenForFinished() throws Exception {
    ScriptModel m = start("break", "1", "break");
    m.ringFormed(ring(1, m), 0);
    m.accumulateGradients(null, batch(0), 0, GLOBAL, new float[1]);
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> m.accumulateGradients(null, batch(1), 0, GLOBAL, new float[1]));
    assertTrue(e.getMessage().contains("the script left job.steps() before its member's part of the job was over"),
        e.getMessage());
    m.close();
  }

  @Test
  void aScriptThatCannotStartFailsWithItsOwnErrorNotATimeout() throws Exception {
    Path work = Files.createDirectories(dir.resolve("syntax"));
    Path script = work.resolve("train.py");
    Files.writeString(script, "import edl\ndef broken(:\n");
    ScriptFailedException e = assertThrows(ScriptFailedException.class,
        () -> ScriptModel.start(PYTHON, script, List.of(), work, SECRET, "syntax", TRAINING, "gloo", java.util.Map.of()));
    assertTrue(e.getMessage().contains("SyntaxError"), e.getMessage());
    assertTrue(e.getMessage().contains("exited with status 1 before it called edl.init()"), e.getMessage());
  }

  /**
   * The port the worker registers is already served when the script's hello arrives, even where
   * the script is slow to build its model: the script bound it itself, so no other process on the
   * node (another worker's RPC server binding port 0, say) can have taken it in between.
   */
  @Test
  void itsRendezvousStoreIsServedFromItsHelloOnBeforeTheModelIsAttached() throws Exception {
    Path work = Files.createDirectories(dir.resolve("store"));
    Path script = work.resolve("train.py");
    Files.writeString(script, "import time, edl\njob = edl.init(dataset_size=4)\ntime.sleep(60)\n");
    try (ScriptModel m = ScriptModel.start(PYTHON, script, List.of(), work, SECRET, "store", TRAINING, "gloo",
        java.util.Map.of())) {
      assertTrue(m.storePort() > 0, "port " + m.storePort());
      try (java.net.Socket s = new java.net.Socket("127.0.0.1", m.storePort())) {
        assertTrue(s.isConnected());
      }
      assertThrows(java.net.BindException.class, () -> new java.net.ServerSocket(m.storePort()).close());
    }
  }

  /**
   * A paused script (SIGSTOP) gives no sign of life: its worker ends it after the liveness timeout
   * instead of waiting for its step, which its group's other members would wait for too.
   */
  @Test
  void aPausedScriptIsEndedAfterTheLivenessTimeoutWithAMessageSayingSo() throws Exception {
    ScriptModel m = start("paused", "1", "ok");
    m.ringFormed(ring(1, m), 0);
    train(0, 2, m);
    org.edl.testing.Await.until("the script's signs of life to begin", m::givesSignsOfLife);
    assertEquals(0, new ProcessBuilder("kill", "-STOP", Long.toString(m.pid())).start().waitFor());
    long paused = System.nanoTime();
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> m.accumulateGradients(null, batch(2), 0, GLOBAL, new float[1]));
    long ms = (System.nanoTime() - paused) / 1_000_000;
    assertTrue(e.getMessage().contains("the script gave no sign of life for 5 s: it is paused"), e.getMessage());
    java.util.Optional<ProcessHandle> left = ProcessHandle.of(m.pid());
    assertTrue(left.isEmpty() || left.get().onExit().get(10, TimeUnit.SECONDS) != null, "killed");
    org.slf4j.LoggerFactory.getLogger(ScriptModelTest.class).info("A paused script was ended {} ms after SIGSTOP", ms);
    m.close();
  }

  @Test
  void aScriptThatEndsWithoutInitFailsAtOnceSayingSo() throws Exception {
    Path work = Files.createDirectories(dir.resolve("noinit"));
    Path script = work.resolve("train.py");
    Files.writeString(script, "print('not an edl script')\n");
    ScriptFailedException e = assertThrows(ScriptFailedException.class,
        () -> ScriptModel.start(PYTHON, script, List.of(), work, SECRET, "noinit", TRAINING, "gloo", java.util.Map.of()));
    assertEquals("the script exited with status 0 before it called edl.init()", e.getMessage());
  }
}
