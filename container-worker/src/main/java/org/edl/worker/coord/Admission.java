package org.edl.worker.coord;

/** A registration's outcome: the ring, whether the worker waits for a switch, or ask again (ms > 0). */
public record Admission(MemberRing ring, boolean pending, JobPosition position, int retryAfterMs) {}
