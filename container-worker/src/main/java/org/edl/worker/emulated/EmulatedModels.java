package org.edl.worker.emulated;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSpec;

/**
 * The profiled models the {@code emulated} backend can stand in for, with the parameter counts of
 * the networks their profiles were measured on (published sizes). deepspeech2 and ncf are
 * profiled too, but their sizes depend on configurations the profiles do not record, so they are
 * not offered rather than guessed.
 */
public final class EmulatedModels {
  /** Profile name -> parameters of the network it measured. */
  public static final Map<String, Integer> PARAMETERS = Map.of(
      "imagenet", 25_557_032,   // ResNet-50
      "cifar10", 11_173_962,    // ResNet-18, CIFAR-10 variant
      "yolov3", 61_949_149,     // YOLOv3 (Darknet-53), 80 classes
      "bert", 109_482_240);     // BERT-base, uncased

  /** The placements file of {@code model} under the profiles directory. */
  public static Path placementsFile(Path profilesDir, String model) {
    return profilesDir.resolve(model).resolve("placements.csv");
  }

  /** The job's emulated model, its profile read from {@code profilesDir/<model>/placements.csv}. */
  public static EmulatedModel create(JobSpec spec, Path profilesDir, EmulatedModel.Sleeper sleeper)
      throws IOException {
    Integer parameters = PARAMETERS.get(spec.training().model());
    if (parameters == null) {
      throw new InvalidInputException("model", spec.training().model(), "no emulation; choose one of "
          + String.join(", ", new TreeMap<>(PARAMETERS).keySet()));
    }
    Path file = placementsFile(profilesDir, spec.training().model());
    if (!Files.isRegularFile(file)) {
      throw new InvalidInputException("profile", file.toString(), "no measured profile for the emulated "
          + spec.training().model() + " (the worker reads profiles from EDL_PROFILES_DIR)");
    }
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return new EmulatedModel(StepProfile.read(spec.training().model(), file.toString(), in), parameters,
          spec.resources().gpusPerWorker(), sleeper);
    }
  }

  private EmulatedModels() {}
}
