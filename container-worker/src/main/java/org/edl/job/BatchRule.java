package org.edl.job;

/**
 * How the global batch and the learning rate follow the number of workers ({@code --batch-rule}).
 * The protocol carries it as its own enum of the same names ({@code org.edl.thrift.BatchRule},
 * converted by {@link org.edl.job.rpc.WireEnums}); the job API and what decides with it use this one.
 */
public enum BatchRule {
  /** The global batch is fixed and split over the workers. */
  FIXED_GLOBAL,
  /** The per-worker batch is fixed; the learning rate scales linearly with the worker count. */
  FIXED_PER_WORKER
}
