package org.edl.am;

/**
 * A stop-resume change under way: every worker stops with a checkpoint in {@code directory};
 * once the last has exited, {@code size} new ones start from it. {@code previousTarget} is what
 * the job goes back to when the leader refuses the stop.
 */
record StopResume(int size, int previousTarget, String directory) {}
