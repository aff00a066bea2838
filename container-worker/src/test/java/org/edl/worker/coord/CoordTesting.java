package org.edl.worker.coord;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.edl.job.BatchRule;
import org.edl.job.JobSpec;

/** What the coordinator's tests share: a small job, members, step reports and a leader at epoch 1. */
public final class CoordTesting {
  private CoordTesting() {}

  /** Softmax on 64 synthetic samples, global batch 12, {@code steps} steps. */
  public static JobSpec spec(int workers, int min, int max, long steps) {
    return JobSpec.builder().name("t").model("softmax")
        .data("synthetic:samples=64,features=4,classes=3,seed=1").format("auto").workers(workers)
        .minWorkers(min).maxWorkers(max).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(steps)
        .batchSize(12).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).hidden(8).seed(7).backend("cpu")
        .build();
  }

  public static Member member(String id, int port) {
    return new Member(id, "127.0.0.1", port);
  }

  /** {@code c<i>} at port 7000 + i. */
  public static Member member(int i) {
    return member("c" + i, 7000 + i);
  }

  /** A report without the optional fields (batch start, epoch size, compute time, leader epoch). */
  public static StepReport report(String id, long step, double loss, double batchSeconds, int samples) {
    return StepReport.of(id, step, loss, batchSeconds, samples).build();
  }

  /** A report whose batch started at {@code batchStart}. */
  public static StepReport report(String id, long step, double loss, double batchSeconds, int samples, long batchStart) {
    return StepReport.of(id, step, loss, batchSeconds, samples).batchStart(batchStart).build();
  }

  /** A leader ({@code leaderId}) of a job that has not formed yet, at leader epoch 1. */
  public static CoordinatorState leading(JobSpec spec, Ticker ticker, Duration allowance, String leaderId) {
    return CoordinatorState.forming(spec, ticker, CoordinatorSettings.DEFAULT.withSwitchAllowance(allowance),
        leaderId, 1, new Lifecycle(leaderId), Optional.empty());
  }

  /** The successor {@code leaderId} at {@code epoch}, from {@code record}, with {@code present} alive. */
  public static CoordinatorState successor(JobSpec spec, Ticker ticker, Duration allowance, String leaderId, long epoch,
      JobRecord record, java.util.Set<String> present) {
    return Succession.takeOver(spec, ticker, CoordinatorSettings.DEFAULT.withSwitchAllowance(allowance),
        leaderId, epoch, new Lifecycle(leaderId), record, present);
  }

  public static List<String> ids(MemberRing r) {
    return r.ids();
  }
}
