package org.edl.am;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Scale-in of a {@code --torchrun} job: torch's agents have no graceful leave, so a leaver's
 * container is given back to YARN, and the other agents restart their processes in a rendezvous
 * round without it (as when {@code torchrun} loses a node). A migration is refused: it would be a
 * scale-out and a scale-in, each restarting every process.
 */
final class ReleasingRemoval implements WorkerRemoval {
  private final Executor mainThread;
  private Consumer<String> giveBack = id -> {
    throw new IllegalStateException("no fleet to give " + id + " back through");
  };

  /** @param mainThread the AM's main thread: the answers are delivered there, after the call returns */
  public ReleasingRemoval(Executor mainThread) {
    this.mainThread = mainThread;
  }

  /**
   * Where a leaver is given back ({@code WorkerFleet#leaverGivenBack}, which counts it as left, not
   * failed); set once, before the fleet starts.
   */
  public void givingBackThrough(Consumer<String> fleet) {
    this.giveBack = fleet;
  }

  @Override
  public void leave(List<String> containerIds, Answers answers) {
    List<String> leavers = List.copyOf(containerIds);
    mainThread.execute(() -> {
      for (String id : leavers) {
        answers.accepted(id, -1);
        giveBack.accept(id);
      }
    });
  }

  @Override
  public void replace(List<String> leavers, int joiners, ReplacementAnswer answer) {
    mainThread.execute(() -> answer.refused(new UnsupportedOperationException("a --torchrun job restarts every"
        + " process at each change; scale out on the new host's capacity and scale in the old workers instead")));
  }
}
