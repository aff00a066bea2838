package org.edl.worker.model;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.edl.worker.data.Floats;

/**
 * The state layout shared by the built-in models: a magic number, a version, the model name, its
 * shape (named dimensions) and the flat parameters (big-endian floats). The header lets a reader refuse the state of
 * another model with a message that shows both shapes.
 */
final class ModelState {
  static final int MAGIC = 0x45444C4D; // "EDLM"
  static final int VERSION = 1;

  private ModelState() {}

  static void write(DataOutputStream out, String name, String[] dimNames, int[] dims, float[] params)
      throws IOException {
    out.writeInt(MAGIC);
    out.writeInt(VERSION);
    out.writeUTF(name);
    out.writeInt(dims.length);
    for (int i = 0; i < dims.length; i++) {
      out.writeUTF(dimNames[i]);
      out.writeInt(dims[i]);
    }
    out.writeInt(params.length);
    Floats.write(out, params);
  }

  static void read(DataInputStream in, String name, String[] dimNames, int[] dims, float[] params)
      throws IOException {
    int magic = in.readInt();
    if (magic != MAGIC) {
      throw new IOException("not EDL model state (magic " + Integer.toHexString(magic) + ")");
    }
    int version = in.readInt();
    if (version != VERSION) {
      throw new IOException("model state version " + version + " is not supported (expected " + VERSION + ")");
    }
    String savedName = in.readUTF();
    int dimCount = in.readInt();
    if (dimCount < 0 || dimCount > 64) {
      throw new IOException("model state has a damaged header (" + dimCount + " dimensions)");
    }
    String[] savedDimNames = new String[dimCount];
    int[] savedDims = new int[dimCount];
    for (int i = 0; i < dimCount; i++) {
      savedDimNames[i] = in.readUTF();
      savedDims[i] = in.readInt();
    }
    if (!savedName.equals(name) || !Arrays.equals(savedDimNames, dimNames) || !Arrays.equals(savedDims, dims)) {
      throw new IncompatibleStateException("model state is for " + describe(savedName, savedDimNames, savedDims)
          + " but this job's model is " + describe(name, dimNames, dims));
    }
    int count = in.readInt();
    if (count != params.length) {
      throw new IOException("model state has " + count + " parameters, expected " + params.length);
    }
    // Read aside first: a truncated stream must leave the live parameters as they were.
    System.arraycopy(Floats.read(in, count), 0, params, 0, count);
  }

  static String describe(String name, String[] dimNames, int[] dims) {
    StringBuilder sb = new StringBuilder(name).append('(');
    for (int i = 0; i < dims.length; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(i < dimNames.length ? dimNames[i] : "dim" + i).append('=').append(dims[i]);
    }
    return sb.append(')').toString();
  }
}
