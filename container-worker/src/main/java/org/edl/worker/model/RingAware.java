package org.edl.worker.model;

import org.edl.worker.collective.RingTopology;

/**
 * A model that computes with its own group of the ring's members (a script's torch.distributed
 * process group). The runtime tells it after forming every ring, on the thread that trains; it
 * must not wait for the other members there: a switch's broadcast to newcomers comes after.
 */
public interface RingAware {
  void ringFormed(RingTopology ring, int rank);
}
