package org.edl.worker.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.edl.job.InvalidInputException;
import org.junit.jupiter.api.Test;

class SyntheticDataTest {

  @Test
  void everyKeyIsOptional() {
    assertEquals(new SyntheticSpec(4096, 20, 4, 7), SyntheticSpec.parse("synthetic:"));
    assertEquals(new SyntheticSpec(100, 20, 4, 7), SyntheticSpec.parse("synthetic:samples=100"));
    assertEquals(new SyntheticSpec(10, 3, 2, -5),
        SyntheticSpec.parse("synthetic: seed=-5, classes=2,features=3,samples=10"));
  }

  @Test
  void badSpecsNameTheDataValue() {
    String spec = "synthetic:samples=10,colour=red";
    InvalidInputException e = assertThrows(InvalidInputException.class, () -> SyntheticSpec.parse(spec));
    assertEquals("data", e.field());
    assertEquals(spec, e.value());
    assertEquals("data=" + spec + ": unknown key 'colour'; use samples, features, classes, seed", e.getMessage());
    assertEquals("data=synthetic:samples=ten: samples 'ten' is not a whole number",
        assertThrows(InvalidInputException.class, () -> SyntheticSpec.parse("synthetic:samples=ten")).getMessage());
    assertEquals("data=synthetic:features=0: features must be at least 1",
        assertThrows(InvalidInputException.class, () -> SyntheticSpec.parse("synthetic:features=0")).getMessage());
    assertEquals("data=synthetic:classes=1: classes must be at least 2",
        assertThrows(InvalidInputException.class, () -> SyntheticSpec.parse("synthetic:classes=1")).getMessage());
    assertEquals("data=synthetic:seed: 'seed' is not key=value",
        assertThrows(InvalidInputException.class, () -> SyntheticSpec.parse("synthetic:seed")).getMessage());
  }

  @Test
  void theSameSpecGivesTheSameRowsAndAnotherSeedOthers() {
    Dataset a = SyntheticData.generate("synthetic:samples=300,features=5,classes=3,seed=1");
    Dataset b = SyntheticData.generate("synthetic:samples=300,features=5,classes=3,seed=1");
    Dataset c = SyntheticData.generate("synthetic:samples=300,features=5,classes=3,seed=2");
    assertArrayEquals(a.features(), b.features());
    assertArrayEquals(a.labels(), b.labels());
    assertFalse(Arrays.equals(a.features(), c.features()));
    assertEquals(300, a.size());
    assertEquals(5, a.featureCount());
    assertEquals(3, a.classCount());
  }

  @Test
  void everyClassIsPresentAndItsRowsClusterAroundACentre() {
    Dataset d = SyntheticData.generate("synthetic:samples=3000,features=8,classes=3,seed=3");
    double[][] mean = new double[3][8];
    int[] count = new int[3];
    for (int r = 0; r < d.size(); r++) {
      count[d.label(r)]++;
      for (int j = 0; j < 8; j++) {
        mean[d.label(r)][j] += d.feature(r, j);
      }
    }
    for (int k = 0; k < 3; k++) {
      assertTrue(count[k] > 800, "class " + k + " has " + count[k] + " rows");
    }
    // Class means differ by far more than the noise of a mean over ~1000 unit-variance rows.
    for (int a = 0; a < 3; a++) {
      for (int b = a + 1; b < 3; b++) {
        double dist = 0;
        for (int j = 0; j < 8; j++) {
          double diff = mean[a][j] / count[a] - mean[b][j] / count[b];
          dist += diff * diff;
        }
        assertTrue(Math.sqrt(dist) > 0.5, "classes " + a + " and " + b + " are " + Math.sqrt(dist) + " apart");
      }
    }
  }

  @Test
  void theLibsvmTextReadsBackBitForBit() throws IOException {
    String spec = "synthetic:samples=200,features=6,classes=4,seed=9";
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SyntheticData.writeLibsvm(spec, out);
    Dataset read = LibsvmReader.read(new StringReader(out.toString(StandardCharsets.UTF_8)), "mem");
    Dataset generated = SyntheticData.generate(spec);
    assertArrayEquals(generated.features(), read.features());
    assertArrayEquals(generated.labels(), read.labels());
  }
}
