package org.edl.worker.gpu;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A process of its own that claims one GPU index and holds it until it is killed: what another
 * job's worker on the node is to {@link GpuClaimsTest}. Prints {@code claimed <indices>} once it
 * holds them.
 */
final class GpuClaimHolder {
  private GpuClaimHolder() {}

  /** Arguments: the claim directory, the index to claim, the node's GPU count. */
  public static void main(String[] args) throws Exception {
    GpuClaim claim = new GpuClaims(Path.of(args[0]), "container_holder (pid " + ProcessHandle.current().pid() + ")")
        .claim(List.of(Integer.parseInt(args[1])), Integer.parseInt(args[2]), 1, Duration.ZERO);
    System.out.println("claimed " + claim.indices());
    System.out.flush();
    // Until it is killed, or its parent goes and its standard input closes.
    while (System.in.read() >= 0) {
      // input means nothing
    }
  }
}
