package org.edl.worker.coord;

/** The answer to a member waiting at the end: the output is written, or recover, or neither yet. */
public record FinishAnswer(boolean done, boolean recover, JobOutput output) {}
