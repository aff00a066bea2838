package org.edl.worker.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.edl.job.InvalidInputException;
import org.edl.job.JobSpec;
import org.edl.job.BatchRule;
import org.edl.worker.data.Dataset;
import org.edl.worker.data.SyntheticData;
import org.junit.jupiter.api.Test;

class ModelFactoryTest {

  @Test
  void unknownModelNamesTheFieldTheValueAndTheChoices() {
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> ModelFactory.create("resnet", 4, 2, 8, 1));
    assertEquals("model", e.field());
    assertEquals("resnet", e.value());
    assertEquals("model=resnet: unknown model; choose one of mlp, softmax", e.getMessage());
  }

  @Test
  void jobSpecAndDataSetDecideTheShape() {
    Dataset data = SyntheticData.generate("synthetic:samples=50,features=6,classes=3,seed=1");
    JobSpec spec = JobSpec.builder().name("t").model("mlp").data("synthetic:").format("auto").workers(1)
        .minWorkers(1).maxWorkers(1).gpusPerWorker(0).workerMemoryMb(512).workerVcores(1).steps(10)
        .batchSize(8).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).hidden(11).seed(5).backend("cpu")
        .build();
    Mlp m = assertInstanceOf(Mlp.class, ModelFactory.create(spec, data));
    assertEquals(6, m.featureCount());
    assertEquals(11, m.hiddenCount());
    assertEquals(3, m.classCount());
    assertEquals(6 * 11 + 11 + 11 * 3 + 3, m.parameters().length);
  }

  @Test
  void softmaxHasWeightsAndBiases() {
    ClassifierModel m = ModelFactory.create("softmax", 6, 3, 0, 1);
    assertEquals(6 * 3 + 3, m.parameters().length);
    assertEquals("softmax", m.name());
  }
}
