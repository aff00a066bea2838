package org.edl.worker.script;

/** A script job's model: its scripts gather each process group at the store one of them serves. */
public interface ServesRendezvous {
  /** The port of the store the worker registers (its first script process's). */
  int storePort();
}
