package org.edl.worker.emulated;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
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

  /** Where the worker jar carries the measured profiles, as class-path resources. */
  public static final String RESOURCES = "org/edl/worker/emulated/profiles/";

  /** The placements file of {@code model} under the profiles directory. */
  public static Path placementsFile(Path profilesDir, String model) {
    return profilesDir.resolve(model).resolve("placements.csv");
  }

  /** Where {@code model}'s profile is read from, for messages: the file, or the jar's resource. */
  public static String sourceOf(Path profilesDir, String model) {
    return profilesDir == null ? "classpath:" + RESOURCES + model + "/placements.csv"
        : placementsFile(profilesDir, model).toString();
  }

  /**
   * The measured profile of {@code model}: from {@code profilesDir/<model>/placements.csv}, or,
   * with {@code profilesDir} null, the one the worker jar carries.
   */
  public static StepProfile profile(String model, Path profilesDir) throws IOException {
    String source = sourceOf(profilesDir, model);
    if (profilesDir == null) {
      InputStream in = EmulatedModels.class.getClassLoader().getResourceAsStream(RESOURCES + model + "/placements.csv");
      if (in == null) {
        throw new InvalidInputException("profile", source, "no measured profile for the emulated " + model
            + " in the worker jar");
      }
      try (Reader r = new InputStreamReader(in, StandardCharsets.UTF_8)) {
        return StepProfile.read(model, source, r);
      }
    }
    Path file = placementsFile(profilesDir, model);
    if (!Files.isRegularFile(file)) {
      throw new InvalidInputException("profile", file.toString(), "no measured profile for the emulated "
          + model + " (the worker reads profiles from EDL_PROFILES_DIR, or without it from its jar)");
    }
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return StepProfile.read(model, source, in);
    }
  }

  /**
   * The job's emulated model, its profile read from {@code profilesDir/<model>/placements.csv}
   * (null: the worker jar's own).
   */
  public static EmulatedModel create(JobSpec spec, Path profilesDir, EmulatedModel.Sleeper sleeper)
      throws IOException {
    Integer parameters = PARAMETERS.get(spec.training().model());
    if (parameters == null) {
      throw new InvalidInputException("model", spec.training().model(), "no emulation; choose one of "
          + String.join(", ", new TreeMap<>(PARAMETERS).keySet()));
    }
    return new EmulatedModel(profile(spec.training().model(), profilesDir), parameters,
        spec.resources().gpusPerWorker(), sleeper, spec.training().profileSync());
  }

  private EmulatedModels() {}
}
