package org.edl.worker.runtime;

import java.time.Duration;
import java.util.HexFormat;
import org.apache.hadoop.conf.Configuration;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.job.Recovery;
import org.edl.job.WorkerEnv;

/**
 * A worker of {@link FailureRecoveryTest}'s job in a JVM of its own, for real signals: SIGKILL
 * (a death), SIGSTOP and SIGCONT (a pause). It trains like the others; before step
 * {@code holdAt} (-1: never) it prints {@link #HOLDING} and waits there to be killed. It prints
 * {@link #LEADING} when it is elected, and exits as a worker container does: 0 finished, 3 left,
 * 4 fenced (declared failed while alive), 1 anything else.
 *
 * <p>Arguments: appId workerId zkConnect output secretHex mode holdAt zkSessionMs.
 */
public final class ChildWorkerMain {
  static final String HOLDING = "EDL-TEST about to begin step ";
  static final String LEADING = "EDL-TEST leading with epoch ";

  private ChildWorkerMain() {}

  public static void main(String[] args) {
    int status;
    try {
      status = run(args);
    } catch (FencedException e) {
      System.out.println("EDL-TEST fenced: " + e.getMessage());
      status = WorkerEnv.EXIT_FENCED;
    } catch (Throwable t) {
      System.out.println("EDL-TEST failed: " + t);
      t.printStackTrace(System.out);
      status = WorkerEnv.EXIT_FAILED;
    }
    System.out.flush();
    System.exit(status);
  }

  private static int run(String[] args) throws Exception {
    String appId = args[0];
    long holdAt = Long.parseLong(args[6]);
    JobSpec spec = FailureRecoveryTest.spec(args[3], Recovery.modeOf(args[5]));
    WorkerConfig config = WorkerConfig.of(appId, args[1], "127.0.0.1", args[2], null, spec,
        JobSecret.of(HexFormat.of().parseHex(args[4])), new Configuration())
        .withStartupTimeout(ElasticJob.WAIT)
        .withSwitchAllowance(Duration.ofMillis(5))
        .withRpcTimeout(FailureRecoveryTest.RPC_TIMEOUT)
        .withZkSessionTimeout(Duration.ofMillis(Long.parseLong(args[7])));
    WorkerListener listener = new WorkerListener() {
      @Override
      public void beforeBatch(String workerId, long step) throws InterruptedException {
        if (step == holdAt) {
          System.out.println(HOLDING + step);
          System.out.flush();
          Thread.sleep(ElasticJob.WAIT.toMillis());
        }
      }

      @Override
      public void leading(String workerId, long leaderEpoch) {
        System.out.println(LEADING + leaderEpoch);
        System.out.flush();
      }
    };
    try (Worker w = new Worker(config, ExecutionContext.FROM_SPEC, listener)) {
      return w.run().left() ? WorkerEnv.EXIT_LEFT : WorkerEnv.EXIT_OK;
    }
  }
}
