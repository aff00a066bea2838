package org.edl.worker.script;

import java.io.IOException;

/** The user's script failed or exited: the message is the script's own error where it gave one. */
public final class ScriptFailedException extends IOException {
  public ScriptFailedException(String message) {
    super(message);
  }
}
