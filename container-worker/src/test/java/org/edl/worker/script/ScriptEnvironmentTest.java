package org.edl.worker.script;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.edl.worker.script.ScriptModelTest.ring;
import static org.edl.worker.script.ScriptModelTest.train;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.edl.worker.collective.RingTopology;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * torchrun's variables in a script's environment, for its current group: library code that
 * reads RANK or WORLD_SIZE sees the ring it trains in, also after a newcomer joined.
 */
class ScriptEnvironmentTest {
  private static final String SCRIPT = """
      import os, torch, edl
      x = torch.randn(%d, 6)
      y = (x.sum(dim=1) > 0).long()
      job = edl.init(dataset_size=len(x))
      model = torch.nn.Linear(6, 2)
      opt = torch.optim.SGD(model.parameters(), lr=0.1)
      job.attach(model, opt)
      names = ["RANK", "WORLD_SIZE", "GROUP_RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"]
      with open("env.txt", "a") as log:
          for step in job.steps():
              opt.zero_grad()
              loss = torch.nn.functional.cross_entropy(job.model(x[step.samples]), y[step.samples], reduction="sum")
              step.backward(loss)
              opt.step()
              step.done(loss.item())
              log.write("%%d %%s\\n" %% (step.number, " ".join(os.environ.get(n, "-") for n in names)))
              log.flush()
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

  private ScriptModel start(String name) throws Exception {
    return ScriptModelTest.start(dir, name, SCRIPT, List.of());
  }

  /** Step -> the variables as the script read them in that step. */
  private String at(String name, long step) throws Exception {
    List<String> lines = Files.readAllLines(dir.resolve(name).resolve("env.txt"));
    return lines.stream().filter(l -> l.startsWith(step + " ")).findFirst()
        .orElseThrow(() -> new AssertionError(name + " logged no step " + step + ": " + lines))
        .substring(Long.toString(step).length() + 1);
  }

  @Test
  void everyMemberSeesTorchrunsVariablesForItsCurrentGroup() throws Exception {
    ScriptModel a = start("a");
    ScriptModel b = start("b");
    RingTopology two = ring(1, a, b);
    a.ringFormed(two, 0);
    b.ringFormed(two, 1);
    train(0, 2, a, b);
    ScriptModel c = start("c");
    RingTopology three = ring(2, a, b, c);
    a.ringFormed(three, 0);
    b.ringFormed(three, 1);
    c.ringFormed(three, 2);
    train(2, 4, a, b, c);
    String store = "127.0.0.1 " + a.storePort();
    try (a; b; c) {
      assertEquals("0 2 0 0 1 " + store, at("a", 1));
      assertEquals("1 2 1 0 1 " + store, at("b", 1));
      assertEquals("1 3 1 0 1 " + store, at("b", 3));
      assertEquals("2 3 2 0 1 " + store, at("c", 2));
    }
  }
}
