package org.edl.am;

import java.util.ArrayList;
import java.util.List;

/**
 * Records what the fleet asked the leader to remove or replace; the test answers through
 * {@link #answers} and {@link #replacementAnswer}.
 */
final class TestingWorkerRemoval implements WorkerRemoval {
  /** A {@link #replace} call: who leaves, for how many newcomers. */
  record Replacement(List<String> leavers, int joiners) {}

  final List<List<String>> asked = new ArrayList<>();
  final List<Replacement> replacements = new ArrayList<>();
  WorkerRemoval.Answers answers;
  WorkerRemoval.ReplacementAnswer replacementAnswer;

  @Override
  public void replace(List<String> leavers, int joiners, ReplacementAnswer answer) {
    replacements.add(new Replacement(List.copyOf(leavers), joiners));
    this.replacementAnswer = answer;
  }

  @Override
  public void leave(List<String> containerIds, Answers answers) {
    asked.add(List.copyOf(containerIds));
    this.answers = answers;
  }

  List<String> all() {
    return asked.stream().flatMap(List::stream).toList();
  }
}
