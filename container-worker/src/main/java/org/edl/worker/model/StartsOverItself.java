package org.edl.worker.model;

import java.io.IOException;

/**
 * A model whose state lives outside its parameter array (a script's): consistent recovery before
 * the first checkpoint asks it to go back to its start instead of copying starting parameters.
 */
public interface StartsOverItself {
  void startOver() throws IOException;
}
