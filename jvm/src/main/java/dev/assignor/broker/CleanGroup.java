package dev.assignor.broker;

import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.modern.MemberAssignmentImpl;

/**
 * The group after GroupTable's cleaning, shown to the broker's own UniformAssignor (the fallback):
 * members in id order, subscriptions without topics the metadata lacks, current assignments without
 * unknown topics, out-of-range partitions or a second claimant. The 4.4.0 UniformAssignor throws or
 * assigns a partition twice on each of those three inputs as the broker would hand them over.
 */
final class CleanGroup implements GroupSpec, SubscribedTopicDescriber {
    private final GroupTable table;
    private final GroupAssignment current;
    private final GroupSpec original;
    private final SubscribedTopicDescriber describer;
    private final List<String> memberIds;
    private final Map<String, Integer> memberIndex;
    private final MemberSubscription[] subscriptions;
    private final SubscriptionType type;

    CleanGroup(GroupTable table, GroupAssignment current, GroupSpec original, SubscribedTopicDescriber describer) {
        this.table = table;
        this.current = current;
        this.original = original;
        this.describer = describer;
        this.memberIds = Collections.unmodifiableList(Arrays.asList(table.memberIds));
        this.memberIndex = table.memberIndex();
        this.subscriptions = new MemberSubscription[table.members()];
        boolean homogeneous = true;
        Map<int[], Set<Uuid>> shared = new IdentityHashMap<>();
        for (int m = 0; m < table.members(); m++) {
            Set<Uuid> topics = shared.computeIfAbsent(table.memberTopics[m], list -> {
                Set<Uuid> set = new HashSet<>();
                for (int t : list) set.add(table.topicIds[t]);
                return Collections.unmodifiableSet(set);
            });
            Optional<String> rack = table.memberRack[m] < 0 ? Optional.empty() : Optional.of(table.rackNames[table.memberRack[m]]);
            subscriptions[m] = new Subscription(rack, instanceId(table.memberIds[m]), topics);
            homogeneous &= Arrays.equals(table.memberTopics[m], table.memberTopics[0]);
        }
        this.type = homogeneous ? SubscriptionType.HOMOGENEOUS : SubscriptionType.HETEROGENEOUS;
    }

    private Optional<String> instanceId(String memberId) {
        try {
            Optional<String> id = original.memberSubscription(memberId).instanceId();
            return id == null ? Optional.empty() : id;
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private record Subscription(Optional<String> rackId, Optional<String> instanceId, Set<Uuid> subscribedTopicIds) implements MemberSubscription {}

    private int member(String memberId) {
        Integer m = memberIndex.get(memberId);
        if (m == null) throw new IllegalArgumentException("Member " + memberId + " not found.");
        return m;
    }

    @Override
    public Collection<String> memberIds() {
        return memberIds;
    }

    @Override
    public SubscriptionType subscriptionType() {
        return type;
    }

    @Override
    public boolean isPartitionAssigned(Uuid topicId, int partitionId) {
        Integer t = table.topicIndex.get(topicId);
        return t != null && partitionId >= 0 && partitionId < table.counts[t] && table.claims.owner[table.topicStart[t] + partitionId] >= 0;
    }

    @Override
    public boolean isPartitionAssignable(Uuid topicId, int partitionId) {
        try {
            return original.isPartitionAssignable(topicId, partitionId);
        } catch (RuntimeException e) {
            return true;
        }
    }

    @Override
    public MemberSubscription memberSubscription(String memberId) {
        return subscriptions[member(memberId)];
    }

    @Override
    public MemberAssignment memberAssignment(String memberId) {
        MemberAssignment a = current.members().get(memberId);
        return a == null ? new MemberAssignmentImpl(Collections.emptyMap()) : a;
    }

    @Override
    public int numPartitions(Uuid topicId) {
        Integer t = table.topicIndex.get(topicId);
        return t == null ? -1 : table.counts[t];
    }

    @Override
    public Set<String> racksForPartition(Uuid topicId, int partition) {
        try {
            Set<String> racks = describer.racksForPartition(topicId, partition);
            return racks == null ? Set.of() : racks;
        } catch (RuntimeException e) {
            return Set.of();
        }
    }
}
