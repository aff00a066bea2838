package org.edl.worker.coord;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * An ordered ring of members with its version. Version 0 is "no ring yet"; every change of the
 * members (a switch or a recovery) makes a new version one higher.
 */
public record MemberRing(long version, List<Member> members) {
  public static final MemberRing NONE = new MemberRing(0, List.of());

  public MemberRing {
    members = List.copyOf(members);
  }

  public int size() {
    return members.size();
  }

  public boolean contains(String id) {
    return find(id).isPresent();
  }

  public Optional<Member> find(String id) {
    return members.stream().filter(m -> m.id().equals(id)).findFirst();
  }

  public List<String> ids() {
    return members.stream().map(Member::id).toList();
  }

  /** The members not in {@code gone}, in ring order, as the next version. */
  MemberRing without(Collection<String> gone) {
    List<Member> kept = new ArrayList<>();
    for (Member m : members) {
      if (!gone.contains(m.id())) {
        kept.add(m);
      }
    }
    return new MemberRing(version + 1, kept);
  }

  /** {@code [0=id@host:port, ...]} for the log. */
  public String describe() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < members.size(); i++) {
      Member m = members.get(i);
      b.append(i == 0 ? "" : ", ").append(i).append('=').append(m.id()).append('@').append(m.address());
    }
    return "v" + version + " [" + b + "]";
  }
}
