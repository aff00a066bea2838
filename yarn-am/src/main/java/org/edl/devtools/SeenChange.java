package org.edl.devtools;

/**
 * One change of the job's size as the demo saw it, polling the AM: what it was, when it was seen
 * (wall-clock ms), the ring's size before and after, and the pause where the story measured it
 * itself (a killed worker's recovery), else null.
 */
record SeenChange(String what, long seenMs, int from, int to, String pause) {
  SeenChange(String what, long seenMs, int from, int to) {
    this(what, seenMs, from, to, null);
  }
}
