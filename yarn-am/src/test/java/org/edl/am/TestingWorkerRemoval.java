package org.edl.am;

import java.util.ArrayList;
import java.util.List;

/** Records what the fleet asked the leader to remove; the test answers through {@link #answers}. */
final class TestingWorkerRemoval implements WorkerRemoval {
  final List<List<String>> asked = new ArrayList<>();
  WorkerRemoval.Answers answers;

  @Override
  public void leave(List<String> containerIds, Answers answers) {
    asked.add(List.copyOf(containerIds));
    this.answers = answers;
  }

  List<String> all() {
    return asked.stream().flatMap(List::stream).toList();
  }
}
