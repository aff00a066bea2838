package org.edl.worker.collective;

import java.io.IOException;

/** A collective over the current ring: every member calls it with the same length. */
public interface AllReduce {

  int rank();

  int size();

  /** Replaces {@code data} on every member with the element-wise sum over all members. */
  void sum(float[] data) throws IOException;
}
