package org.edl.worker.coord;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * One change of the ring ({@link ChangeSchedule}'s pending or queued one):
 * its newcomers, leavers, a replacement's wait, and its order once scheduled. Immutable.
 */
record RingChange(Map<String, Member> joiners, Set<String> leavers, Set<String> replacing, int awaited,
    SwitchPlan order) {
  static final RingChange EMPTY = new RingChange(Map.of(), Set.of(), Set.of(), 0, null);

  RingChange {
    joiners = Collections.unmodifiableMap(new LinkedHashMap<>(joiners));
    leavers = Collections.unmodifiableSet(new LinkedHashSet<>(leavers));
    replacing = Collections.unmodifiableSet(new LinkedHashSet<>(replacing));
  }

  boolean scheduled() {
    return order != null;
  }

  boolean isEmpty() {
    return joiners.isEmpty() && leavers.isEmpty() && awaited == 0;
  }

  RingChange withJoiner(Member m) {
    Map<String, Member> j = new LinkedHashMap<>(joiners);
    j.put(m.id(), m);
    return new RingChange(j, leavers, replacing, awaited, order);
  }

  RingChange withoutJoiner(String id) {
    Map<String, Member> j = new LinkedHashMap<>(joiners);
    j.remove(id);
    return new RingChange(j, leavers, replacing, awaited, order);
  }

  RingChange withLeavers(Set<String> more) {
    Set<String> l = new LinkedHashSet<>(leavers);
    l.addAll(more);
    return new RingChange(joiners, l, replacing, awaited, order);
  }

  RingChange keepingLeavers(java.util.function.Predicate<String> keep) {
    Set<String> l = new LinkedHashSet<>();
    leavers.stream().filter(keep).forEach(l::add);
    Set<String> r = new LinkedHashSet<>();
    replacing.stream().filter(keep).forEach(r::add);
    return new RingChange(joiners, l, r, awaited, order);
  }

  RingChange replacing(Set<String> replaced, int awaitedJoiners) {
    Set<String> r = new LinkedHashSet<>(replacing);
    r.addAll(replaced);
    return new RingChange(joiners, leavers, r, awaitedJoiners, order);
  }

  RingChange withdrawn() {
    Set<String> l = new LinkedHashSet<>(leavers);
    l.removeAll(replacing);
    return new RingChange(joiners, l, Set.of(), 0, order);
  }

  RingChange scheduledAs(SwitchPlan plan) {
    return new RingChange(joiners, leavers, replacing, awaited, plan);
  }

  RingChange unscheduled() {
    return new RingChange(joiners, leavers, replacing, awaited, null);
  }
}
