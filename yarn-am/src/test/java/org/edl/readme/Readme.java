package org.edl.readme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The README's shell blocks, so that a test runs exactly what the README tells users to type. */
final class Readme {
  private final Path file;
  private final List<List<String>> blocks;

  private Readme(Path file, List<List<String>> blocks) {
    this.file = file;
    this.blocks = blocks;
  }

  static Readme of(Path root) throws IOException {
    Path file = root.resolve("README.md");
    List<List<String>> blocks = new ArrayList<>();
    List<String> open = null;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (line.startsWith("```")) {
        if (open == null) {
          open = new ArrayList<>();
        } else {
          blocks.add(List.copyOf(open));
          open = null;
        }
      } else if (open != null) {
        open.add(line);
      }
    }
    return new Readme(file, blocks);
  }

  /**
   * The command lines of the fenced block whose first line starts with {@code firstLine} (a
   * trailing backslash joins a line to the next, as the shell does), after checking that they are
   * {@code expected}: a README whose commands change fails here until its test changes with it.
   */
  List<String> commands(String firstLine, List<String> expected) {
    for (List<String> block : blocks) {
      if (!block.isEmpty() && block.get(0).startsWith(firstLine)) {
        List<String> commands = joinContinuations(block);
        assertEquals(expected, commands, file + ": the block starting `" + firstLine + "` changed");
        return commands;
      }
    }
    return fail(file + " has no shell block starting `" + firstLine + "`");
  }

  private static List<String> joinContinuations(List<String> block) {
    List<String> commands = new ArrayList<>();
    StringBuilder pending = new StringBuilder();
    for (String line : block) {
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("#")) {
        continue;
      }
      if (trimmed.endsWith("\\")) {
        pending.append(trimmed, 0, trimmed.length() - 1).append(' ');
        continue;
      }
      commands.add(pending.append(trimmed).toString().replaceAll("\\s+", " "));
      pending.setLength(0);
    }
    return commands;
  }
}
