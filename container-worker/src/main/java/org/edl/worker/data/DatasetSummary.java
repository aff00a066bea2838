package org.edl.worker.data;

/**
 * The shape of a data set, found without keeping it in memory: what the client checks before it
 * submits a job, and what a model is sized from.
 *
 * @param rows     samples
 * @param features feature columns (LIBSVM: the largest index seen)
 * @param classes  distinct labels
 */
public record DatasetSummary(long rows, int features, int classes) {}
