package org.edl.scheduler.core.fair;

/** A request placed on a node, by the allocator or in a preemption simulation. */
public record Placement(PendingRequest request, String node) {}
