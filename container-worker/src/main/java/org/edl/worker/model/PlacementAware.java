package org.edl.worker.model;

/**
 * A model whose cost depends on where the ring's workers run (the emulated backend's step time
 * is measured per placement). The runtime tells it after forming every ring.
 */
public interface PlacementAware {

  /**
   * @param placement GPUs per node of the current ring, as the profiles write it: one digit per
   *                  node, ascending ({@code "4"}, {@code "22"}, {@code "1133"})
   */
  void placedOn(String placement);
}
