package org.edl.am;

/** A container YARN gave us, as the fleet sees it: its id and the host it runs on. */
public record WorkerContainer(String id, String host) {}
