package org.edl.worker.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ModelStateTest {

  private static byte[] stateOf(TrainableModel m) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      m.writeState(out);
    }
    return bytes.toByteArray();
  }

  private static void load(TrainableModel m, byte[] state) throws IOException {
    m.readState(new DataInputStream(new ByteArrayInputStream(state)));
  }

  @Test
  void mlpStateRoundTripsIntoAModelWithOtherParameters() throws IOException {
    // Larger than one write chunk, so the chunked copy is exercised across a boundary.
    Mlp saved = new Mlp(300, 70, 4, 1);
    Mlp restored = new Mlp(300, 70, 4, 2);
    assertFalse(Arrays.equals(saved.parameters(), restored.parameters()));
    load(restored, stateOf(saved));
    assertArrayEquals(saved.parameters(), restored.parameters());
  }

  @Test
  void softmaxStateRoundTrips() throws IOException {
    SoftmaxRegression saved = new SoftmaxRegression(7, 3, 1);
    saved.parameters()[saved.parameters().length - 1] = 2.5f;
    SoftmaxRegression restored = new SoftmaxRegression(7, 3, 9);
    load(restored, stateOf(saved));
    assertArrayEquals(saved.parameters(), restored.parameters());
  }

  @Test
  void anotherShapeIsRefusedNamingBothShapes() throws IOException {
    byte[] state = stateOf(new Mlp(20, 64, 4, 1));
    Mlp other = new Mlp(20, 32, 4, 1);
    float[] before = other.parameters().clone();
    IncompatibleStateException e = assertThrows(IncompatibleStateException.class, () -> load(other, state));
    assertTrue(e.getMessage().contains("mlp(features=20, hidden=64, classes=4)"), e.getMessage());
    assertTrue(e.getMessage().contains("mlp(features=20, hidden=32, classes=4)"), e.getMessage());
    assertArrayEquals(before, other.parameters(), "a refused state must not change the model");
  }

  @Test
  void anotherModelIsRefused() throws IOException {
    byte[] state = stateOf(new SoftmaxRegression(20, 4, 1));
    IncompatibleStateException e = assertThrows(IncompatibleStateException.class,
        () -> load(new Mlp(20, 8, 4, 1), state));
    assertTrue(e.getMessage().contains("softmax(features=20, classes=4)"), e.getMessage());
  }

  @Test
  void aTruncatedStateFailsAndLeavesTheParametersAlone() throws IOException {
    byte[] state = stateOf(new SoftmaxRegression(50, 3, 1));
    SoftmaxRegression target = new SoftmaxRegression(50, 3, 2);
    float[] before = target.parameters().clone();
    assertThrows(java.io.EOFException.class, () -> load(target, Arrays.copyOf(state, state.length - 10)));
    assertArrayEquals(before, target.parameters());
  }

  @Test
  void somethingElseIsNotTakenForState() {
    byte[] junk = "hello, this is not a model".getBytes();
    IOException e = assertThrows(IOException.class, () -> load(new SoftmaxRegression(2, 2, 1), junk));
    assertTrue(e.getMessage().contains("not EDL model state"), e.getMessage());
  }
}
