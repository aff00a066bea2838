package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.PreemptionContainer;
import org.apache.hadoop.yarn.api.records.PreemptionContract;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;
import org.apache.hadoop.yarn.api.records.PreemptionResourceRequest;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.StrictPreemptionContract;
import org.apache.hadoop.yarn.util.Records;
import org.junit.jupiter.api.Test;

/** {@link YarnContainerDriver#requestOf}: YARN's preemption message in the fleet's terms. */
class PreemptionMessageTest {
  private static final ApplicationAttemptId ATTEMPT =
      ApplicationAttemptId.newInstance(ApplicationId.newInstance(1, 1), 1);

  private static PreemptionContainer container(long n) {
    PreemptionContainer c = Records.newRecord(PreemptionContainer.class);
    c.setId(ContainerId.newContainerId(ATTEMPT, n));
    return c;
  }

  @Test
  void fairSchedulersEmptyStrictContractAsksNothing() {
    PreemptionMessage m = Records.newRecord(PreemptionMessage.class);
    StrictPreemptionContract strict = Records.newRecord(StrictPreemptionContract.class);
    strict.setContainers(Set.of());
    m.setStrictContract(strict);
    assertTrue(PreemptionMessages.requestOf(m).isEmpty());
  }

  @Test
  void strictContainersAreNamedAndAResourceAskCountsContainers() {
    PreemptionMessage m = Records.newRecord(PreemptionMessage.class);
    StrictPreemptionContract strict = Records.newRecord(StrictPreemptionContract.class);
    strict.setContainers(Set.of(container(2), container(3)));
    m.setStrictContract(strict);
    PreemptionContract contract = Records.newRecord(PreemptionContract.class);
    PreemptionResourceRequest ask = Records.newRecord(PreemptionResourceRequest.class);
    ask.setResourceRequest(ResourceRequest.newInstance(Priority.newInstance(1), "*",
        Resource.newInstance(1024, 1), 3));
    contract.setResourceRequest(List.of(ask));
    contract.setContainers(Set.of());
    m.setContract(contract);

    PreemptionRequest r = PreemptionMessages.requestOf(m);
    assertEquals(Set.of(ContainerId.newContainerId(ATTEMPT, 2).toString(),
        ContainerId.newContainerId(ATTEMPT, 3).toString()), r.containers());
    assertEquals(3, r.askedContainers());
    assertEquals(0, r.askedGpus(), "no GPU type in this capability");
  }
}
