package org.edl.job;

/**
 * How a job changes its number of workers ({@code --mode}, {@code edl scale-out --mode}). The
 * protocol carries it as its own enum of the same names ({@code org.edl.thrift.ScaleMode},
 * converted by {@link org.edl.job.rpc.WireEnums}); the AM's fleet and the job API decide with this one.
 */
public enum ScaleMode {
  /** Stop-free: the running workers pause only while the newcomers receive the model. */
  EDL,
  /** The baseline: checkpoint, stop every worker, relaunch at the new size, restore. */
  STOP_RESUME
}
