package org.edl.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.edl.client.JobControlConnection;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.job.JobSpec;
import org.edl.job.Script;
import org.edl.job.BatchRule;
import org.edl.thrift.JobControl;
import org.edl.thrift.ScaleMode;

/**
 * {@code edl bench pytorch}: one PyTorch script (an MLP, the same data and global batch) changed
 * 4 -> 5 -> 4 workers under EDL on the embedded cluster and under torchrun's elastic agents
 * ({@code --nnodes=4:5}, c10d rendezvous, one process per agent, all on this machine), each
 * change measured from the processes' own step logs ({@link PytorchAnalysis}).
 */
public final class PytorchBench {
  /** The figures of one operation under one system. */
  public record Row(String operation, String system, double stopSeconds, double lossWorkerSeconds) {}

  /**
   * @param python the interpreter (with torch and thrift)
   * @param steady steps each size trains before the next change
   */
  public record Options(String python, int hidden, int globalBatch, int steady, Duration timeout) {}

  private final Options options;
  private final PrintWriter out;

  public PytorchBench(Options options, PrintWriter out) {
    this.options = options;
    this.out = out;
  }

  public List<Row> run() throws Exception {
    Path dir = Files.createTempDirectory("edl-bench-pytorch");
    Path script = copy("elastic_pytorch.py", dir);
    Path agent = copy("torchrun_agent.py", dir);
    List<Row> rows = new ArrayList<>();
    rows.addAll(torchrun(script, agent, Files.createDirectories(dir.resolve("torchrun"))));
    rows.addAll(edl(script, Files.createDirectories(dir.resolve("edl"))));
    return rows;
  }

  private static Path copy(String resource, Path dir) throws IOException {
    Path target = dir.resolve(resource);
    try (InputStream in = PytorchBench.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IOException("org/edl/bench/" + resource + " is missing from the class path");
      }
      Files.copy(in, target);
    }
    return target;
  }

  private List<String> scriptArgs(String mode, Path log) {
    return List.of("--mode", mode, "--log", log.toString(), "--hidden", Integer.toString(options.hidden()),
        "--batch", Integer.toString(options.globalBatch()));
  }

  private List<Row> edl(Path script, Path log) throws Exception {
    out.println("[edl] 4 workers on the embedded cluster, then 5, then 4");
    out.flush();
    return BenchJob.onEmbeddedCluster("synthetic:samples=16,features=2,classes=2,seed=1", "unused.libsvm", out,
        (conf, yarn, zk, unused) -> {
          JobSpec spec = JobSpec.builder().name("bench-pytorch")
              .script(new Script(script.toString(), scriptArgs("edl", log), options.python()))
              .workers(4).minWorkers(4).maxWorkers(5).gpusPerWorker(1).workerMemoryMb(1024).workerVcores(1)
              .steps(100_000_000L).batchSize(options.globalBatch()).batchRule(BatchRule.FIXED_GLOBAL)
              .learningRate(0.05).seed(1).backend("cpu").checkpoints(0, 0, 1).build();
          SubmittedJob job = new JobSubmitter(conf, yarn).submit(spec);
          try (JobControlConnection c = BenchJob.connect(conf, yarn, job)) {
            JobControl.Iface control = c.control();
            BenchJob.awaitSize(control, options.timeout(), 4, options.steady(), "edl");
            double out4 = now();
            control.scaleOut(1, ScaleMode.EDL);
            BenchJob.awaitSize(control, options.timeout(), 5, options.steady(), "edl");
            double in5 = now();
            control.scaleIn(1, List.of(), ScaleMode.EDL);
            BenchJob.awaitSize(control, options.timeout(), 4, options.steady(), "edl");
            return rows("edl", PytorchAnalysis.read(log), out4, in5);
          } finally {
            yarn.killApplication(job.appId());
          }
        });
  }

  private List<Row> torchrun(Path script, Path agent, Path log) throws Exception {
    out.println("[torchrun] 4 elastic agents (--nnodes=4:5, c10d), then a fifth, then it leaves");
    out.flush();
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    List<String> command = new ArrayList<>(List.of(options.python(), agent.toString(), "4", "5",
        "127.0.0.1:" + port, script.toString()));
    command.addAll(scriptArgs("torchrun", log));
    command.addAll(List.of("--snapshot", log.resolve("snapshot.pt").toString()));
    List<Process> agents = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        agents.add(start(command, log.resolve("agent-" + i + ".log")));
      }
      awaitSteps(log, 4, 0, "torchrun");
      double out4 = now();
      Process fifth = start(command, log.resolve("agent-4.log"));
      agents.add(fifth);
      awaitSteps(log, 5, out4, "torchrun");
      double in5 = now();
      fifth.destroy(); // SIGTERM: the agent stops its worker and leaves; the others restart at 4
      awaitSteps(log, 4, in5, "torchrun");
      return rows("torchrun", PytorchAnalysis.read(log), out4, in5);
    } finally {
      for (Process p : agents) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      }
    }
  }

  private static Process start(List<String> command, Path output) throws IOException {
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
  }

  private void awaitSteps(Path log, int workers, double since, String name) throws Exception {
    long deadline = System.nanoTime() + options.timeout().toNanos();
    while (System.nanoTime() < deadline) {
      if (PytorchAnalysis.read(log).stepsAt(workers, since) >= options.steady()) {
        return;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("[" + name + "] no " + options.steady() + " steps at " + workers
        + " workers within " + options.timeout() + "; see " + log);
  }

  private List<Row> rows(String system, PytorchAnalysis a, double out4, double in5) {
    PytorchAnalysis.Cost scaleOut = a.change(out4, 4, 5);
    PytorchAnalysis.Cost scaleIn = a.change(in5, 5, 4);
    List<Row> rows = List.of(new Row("scale-out 4->5", system, scaleOut.stopSeconds(), scaleOut.lossWorkerSeconds()),
        new Row("scale-in 5->4", system, scaleIn.stopSeconds(), scaleIn.lossWorkerSeconds()));
    rows.forEach(r -> out.printf("[%s] %s: stop %.2f s, loss %.2f worker-s%n", system, r.operation(),
        r.stopSeconds(), r.lossWorkerSeconds()));
    out.flush();
    return rows;
  }

  private static double now() {
    return System.currentTimeMillis() / 1000.0;
  }

  /** The CSV the issue asks for: {@code operation,system,stop_s,loss_worker_s}. */
  public static void writeCsv(List<Row> rows, Path file) throws IOException {
    StringBuilder b = new StringBuilder("operation,system,stop_s,loss_worker_s\n");
    for (Row r : rows) {
      b.append(String.format(java.util.Locale.ROOT, "%s,%s,%.3f,%.3f%n", r.operation(), r.system(), r.stopSeconds(),
          r.lossWorkerSeconds()));
    }
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, b.toString());
  }

  /** A Markdown table with EDL's figures over torchrun's. */
  public static String table(List<Row> rows) {
    StringBuilder b = new StringBuilder("| operation | system | stop (s) | loss (worker-s) |\n|---|---|---:|---:|\n");
    for (Row r : rows) {
      b.append(String.format(java.util.Locale.ROOT, "| %s | %s | %.2f | %.2f |%n", r.operation(), r.system(),
          r.stopSeconds(), r.lossWorkerSeconds()));
    }
    for (String op : rows.stream().map(Row::operation).distinct().toList()) {
      Row e = rows.stream().filter(r -> r.operation().equals(op) && r.system().equals("edl")).findFirst().orElse(null);
      Row t = rows.stream().filter(r -> r.operation().equals(op) && r.system().equals("torchrun")).findFirst()
          .orElse(null);
      if (e != null && t != null) {
        b.append(String.format(java.util.Locale.ROOT, "| %s | **edl / torchrun** | %.3f | %.3f |%n", op,
            e.stopSeconds() / t.stopSeconds(), e.lossWorkerSeconds() / t.lossWorkerSeconds()));
      }
    }
    return b.toString();
  }
}
