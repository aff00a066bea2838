package org.edl.am;

/** What one worker container asks YARN for; {@code gpus} is the {@code yarn.io/gpu} count, 0 allowed. */
public record WorkerResource(int memoryMb, int vcores, int gpus) {
  public WorkerResource {
    if (memoryMb < 1 || vcores < 1 || gpus < 0) {
      throw new IllegalArgumentException("bad worker resource: " + memoryMb + " MB, "
          + vcores + " vcores, " + gpus + " GPUs");
    }
  }
}
