package org.edl.worker.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.edl.job.InvalidInputException;
import org.junit.jupiter.api.Test;

class DataFormatTest {

  @Test
  void autoChoosesByExtension() {
    assertEquals(DataFormat.LIBSVM, DataFormat.resolve("auto", "hdfs://nn/a/train.libsvm"));
    assertEquals(DataFormat.LIBSVM, DataFormat.resolve("auto", "/a/b.SVM"));
    assertEquals(DataFormat.LIBSVM, DataFormat.resolve("auto", "b.txt"));
    assertEquals(DataFormat.CSV, DataFormat.resolve("auto", "file:/x/y.csv"));
    assertEquals(DataFormat.CSV, DataFormat.resolve("csv", "whatever.libsvm"));
  }

  @Test
  void anUnknownExtensionAsksForTheFormat() {
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> DataFormat.resolve("auto", "hdfs://nn/a.csv/train.dat"));
    assertEquals("data=hdfs://nn/a.csv/train.dat: cannot tell the format from the file name; "
        + "give --format libsvm or --format csv", e.getMessage());
    assertEquals("format", assertThrows(InvalidInputException.class,
        () -> DataFormat.resolve("parquet", "a.csv")).field());
  }
}
