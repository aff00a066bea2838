package org.edl.am;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** A {@link FleetJournal} in memory: what a fleet journaled, for the next attempt of a test to take over. */
final class TestingFleetJournal implements FleetJournal {
  final List<FleetIntent> recorded = new ArrayList<>();

  @Override
  public void record(FleetIntent intent) {
    recorded.add(intent);
  }

  @Override
  public Optional<FleetIntent> last() {
    return recorded.isEmpty() ? Optional.empty() : Optional.of(recorded.get(recorded.size() - 1));
  }
}
