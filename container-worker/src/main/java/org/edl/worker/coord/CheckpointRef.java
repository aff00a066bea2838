package org.edl.worker.coord;

/** A complete checkpoint and the job position it holds. */
public record CheckpointRef(String path, JobPosition at) {}
