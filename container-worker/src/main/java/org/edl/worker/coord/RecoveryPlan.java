package org.edl.worker.coord;

import java.util.List;

/**
 * How the survivors of a failure carry on: the ring {@code ring} from step {@code nextStep} on,
 * its batch starting at sample {@code batchStart}. {@link Mode#CONSISTENT}: every survivor loads
 * {@code checkpoint} (null: the job's initial state); {@link Mode#APPROXIMATE}: {@code sourceId}
 * sends its model to the others, or, with no source, every survivor holds the same step and keeps
 * its own model (synchronous training leaves them bit-identical); {@link Mode#RESUME}: only
 * newcomers that never trained were lost, every survivor keeps its model.
 */
public record RecoveryPlan(MemberRing ring, Mode mode, List<String> failed, long nextStep, long batchStart,
    String checkpoint, String sourceId, long leaderEpoch) {

  public enum Mode { CONSISTENT, APPROXIMATE, RESUME }

  public RecoveryPlan {
    failed = List.copyOf(failed);
  }

  public long version() {
    return ring.version();
  }

  public String describe() {
    String from = switch (mode) {
      case APPROXIMATE -> sourceId == null ? " (every survivor at the same step keeps its model)"
          : " (model from " + sourceId + ")";
      case RESUME -> " (every survivor keeps its model)";
      case CONSISTENT -> checkpoint == null ? " (initial state)" : " (checkpoint " + checkpoint + ")";
    };
    return mode.name().toLowerCase() + " recovery to topology v" + ring.version() + " with " + ring.size()
        + " workers from step " + nextStep + from;
  }
}
