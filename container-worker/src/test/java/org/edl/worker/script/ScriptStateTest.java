package org.edl.worker.script;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.edl.worker.script.ScriptModelTest.PYTHON;
import static org.edl.worker.script.ScriptModelTest.assertClose;
import static org.edl.worker.script.ScriptModelTest.ring;
import static org.edl.worker.script.ScriptModelTest.train;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.edl.worker.collective.RingTopology;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a script trains with besides its model: its optimizer's own rate, an LR scheduler, a
 * scaler shaped like AMP's {@code GradScaler}, a dict of counters and the RNG ({@code
 * job.attach(model, opt, scheduler=..., scaler=..., counters=..., rng=edl.RngState())}). EDL never
 * sets the rate; the rest goes to a newcomer and comes back from a checkpoint, so every member
 * logs, step by step, what one member alone logs.
 */
class ScriptStateTest {
  /** Each step's rate, counter, scale and random draw, after the script's own updates. */
  static final String SCRIPT = """
      import sys, torch, edl
      g = torch.Generator().manual_seed(7)
      x = torch.randn(%d, 6, generator=g)
      y = (x.sum(dim=1) > 0).long()
      job = edl.init(dataset_size=len(x))
      torch.manual_seed(int(sys.argv[1]))
      model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
      opt = torch.optim.Adam(model.parameters(), lr=3e-3)
      sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=8)

      class Scaler:  # GradScaler's state, on a machine without CUDA
          def __init__(self):
              self.scale, self.tracker = 65536.0, 0
          def state_dict(self):
              return {"scale": self.scale, "_growth_tracker": self.tracker}
          def load_state_dict(self, s):
              self.scale, self.tracker = s["scale"], s["_growth_tracker"]
          def update(self):
              self.tracker += 1
              if self.tracker %% 3 == 0:
                  self.scale /= 2

      scaler, counters = Scaler(), {"steps": 0}
      if sys.argv[2] == "bad":
          job.attach(model, opt, scheduler=sched, epochs=3)
      if sys.argv[2] == "unsendable":
          job.attach(model, opt, seen={"ids": {1, 2}})
      job.attach(model, opt, scheduler=sched, scaler=scaler, counters=counters, rng=edl.RngState())
      with open("steps.txt", "a") as log:
          for step in job.steps():
              opt.zero_grad()
              loss = torch.nn.functional.cross_entropy(job.model(x[step.samples]), y[step.samples], reduction="sum")
              step.backward(loss)
              lr = opt.param_groups[0]["lr"]
              opt.step()
              sched.step()
              scaler.update()
              counters["steps"] += 1
              step.done(loss.item())
              log.write("%%d %%r %%d %%r %%r\\n" %% (step.number, lr, counters["steps"], scaler.scale, torch.rand(1).item()))
              log.flush()
      with open("params.txt", "w") as f:
          f.write(" ".join(repr(v) for v in torch.cat([p.detach().flatten() for p in model.parameters()]).tolist()))
      """.formatted(ScriptModelTest.SAMPLES);

  @TempDir
  Path dir;

  @BeforeAll
  static void torch() throws Exception {
    ScriptModelTest.torch();
  }

  @AfterAll
  static void stop() {
    ScriptModelTest.stop();
  }

  private ScriptModel start(String name, String seed, String mode) throws Exception {
    return ScriptModelTest.start(dir, name, SCRIPT, List.of(seed, mode));
  }

  /** Step -> what the script logged for it last (a step trained again after a load replaces it). */
  private Map<Long, String[]> log(String name) throws Exception {
    Map<Long, String[]> byStep = new TreeMap<>();
    for (String line : Files.readAllLines(dir.resolve(name).resolve("steps.txt"))) {
      String[] f = line.trim().split(" ");
      byStep.put(Long.parseLong(f[0]), f);
    }
    return byStep;
  }

  private double[] params(ScriptModel m, String name) throws Exception {
    m.close();
    String[] text = Files.readString(dir.resolve(name).resolve("params.txt")).trim().split(" ");
    double[] v = new double[text.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = Double.parseDouble(text[i]);
    }
    return v;
  }

  /**
   * Alone for 8 steps, against: two members from different seeds, a newcomer from a third at step
   * 4, a checkpoint at step 6, two more steps, then every member back to the checkpoint (a
   * consistent recovery) and steps 6 and 7 again. The cosine's rates, the counter and the scale
   * follow the one alone at every step on every member; the draws do from where a member took
   * the job's RNG (the first member always; the newcomer from its join; the second from the load).
   */
  @Test
  void aCosineScheduleAndEveryAttachedStateFollowANewcomerAndACheckpointAsOneMemberAloneLogsThem() throws Exception {
    ScriptModel alone = start("alone", "1", "ok");
    alone.ringFormed(ring(1, alone), 0);
    train(0, 8, alone);
    double[] expectedParams = params(alone, "alone");
    Map<Long, String[]> expected = log("alone");
    for (long step = 0; step < 8; step++) {
      // The optimizer's own rate on the cosine, never the job's --learning-rate (0.1).
      assertEquals(0.003 * (1 + Math.cos(step * Math.PI / 8)) / 2, Double.parseDouble(expected.get(step)[1]), 1e-12,
          "the rate at step " + step);
    }

    ScriptModel a = start("a", "1", "ok");
    ScriptModel b = start("b", "2", "ok");
    a.ringFormed(ring(1, a, b), 0);
    b.ringFormed(ring(1, a, b), 1);
    train(0, 4, a, b);
    ScriptModel c = start("c", "3", "ok");
    RingTopology three = ring(2, a, b, c);
    a.ringFormed(three, 0);
    b.ringFormed(three, 1);
    c.ringFormed(three, 2);
    train(4, 6, a, b, c);
    ByteArrayOutputStream checkpoint = new ByteArrayOutputStream();
    a.writeState(new DataOutputStream(checkpoint));
    train(6, 8, a, b, c);
    for (ScriptModel m : List.of(a, b, c)) {
      m.readState(new DataInputStream(new ByteArrayInputStream(checkpoint.toByteArray())));
    }
    train(6, 8, a, b, c);

    Map<String, Long> tookTheRng = Map.of("a", 0L, "b", 6L, "c", 4L);
    Map<String, ScriptModel> members = Map.of("a", a, "b", b, "c", c);
    for (String name : List.of("a", "b", "c")) {
      ScriptModel m = members.get(name);
      Map<Long, String[]> got = log(name);
      long first = name.equals("c") ? 4 : 0;
      for (long step = first; step < 8; step++) {
        String[] want = expected.get(step);
        String[] was = got.get(step);
        String at = name + " at step " + step;
        assertEquals(want[1], was[1], at + ": the rate");
        assertEquals(Long.toString(step + 1), was[2], at + ": the counter");
        assertEquals(want[3], was[3], at + ": the scale");
        if (step >= tookTheRng.get(name)) {
          assertEquals(want[4], was[4], at + ": the random draw");
        }
      }
      assertClose(expectedParams, params(m, name), name);
    }
  }

  /** A checkpoint of a script job written before EDL kept anything but the model and optimizer. */
  @Test
  void aCheckpointWithOnlyTheModelAndOptimizerStillLoadsAndLeavesTheRestAsItIs() throws Exception {
    ScriptModel m = start("old", "1", "ok");
    m.ringFormed(ring(1, m), 0);
    train(0, 3, m);
    ByteArrayOutputStream saved = new ByteArrayOutputStream();
    m.writeState(new DataOutputStream(saved));
    byte[] old = withoutState(saved.toByteArray());
    train(3, 5, m);
    m.readState(new DataInputStream(new ByteArrayInputStream(old)));
    train(5, 6, m);
    Map<Long, String[]> got = log("old");
    // The model and optimizer went back to step 3; the counter, kept by the script, went on.
    assertEquals("6", got.get(5L)[2]);
    m.close();
  }

  @Test
  void somethingAttachedWithoutStateDictIsRefusedNamingItsKeyword() throws Exception {
    ScriptModel m = start("bad", "1", "bad");
    m.ringFormed(ring(1, m), 0);
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> m.accumulateGradients(null, ScriptModelTest.batch(0), 0, ScriptModelTest.GLOBAL, new float[1]));
    assertTrue(e.getMessage().contains("job.attach(epochs=...): a int has no state_dict() and load_state_dict()"),
        e.getMessage());
    m.close();
  }

  /** What newcomers could not receive as tensors and plain values is refused where the script attaches it. */
  @Test
  void stateThatCannotBeSentAsTensorsAndPlainValuesIsRefusedAtAttachNamingWhere() throws Exception {
    ScriptModel m = start("unsendable", "1", "unsendable");
    m.ringFormed(ring(1, m), 0);
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> m.accumulateGradients(null, ScriptModelTest.batch(0), 0, ScriptModelTest.GLOBAL, new float[1]));
    assertTrue(e.getMessage().contains("job.attach(seen=...)['ids'] is a set, which cannot be sent to other members"),
        e.getMessage());
    m.close();
  }

  /** The same frame with the state's {@code "state"} entry taken out, as EDL wrote it before. */
  private byte[] withoutState(byte[] framed) throws Exception {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(framed));
    String name = in.readUTF();
    byte[] state = new byte[in.readInt()];
    in.readFully(state);
    Path file = dir.resolve("state.pt");
    Files.write(file, state);
    Process p = new ProcessBuilder(PYTHON, "-c", "import sys, torch; s = torch.load(sys.argv[1]); del s['state'];"
        + " torch.save(s, sys.argv[1]); print(sorted(s))", file.toString()).redirectErrorStream(true).start();
    String printed = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertEquals(0, p.waitFor(), printed);
    assertEquals("['model', 'optimizer']", printed);
    byte[] stripped = Files.readAllBytes(file);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(out);
    d.writeUTF(name);
    d.writeInt(stripped.length);
    d.write(stripped);
    return out.toByteArray();
  }
}
