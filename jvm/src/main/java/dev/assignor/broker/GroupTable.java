package dev.assignor.broker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.modern.MemberAssignmentImpl;

/**
 * The broker's group as flat integer tables in fixed index spaces, so that the answer depends on
 * the group and not on the order the broker's maps iterate in:
 * members are numbered by id (String.compareTo, code units), topics by Uuid.toString() (code
 * units), partitions flat, topic after topic (topic t's partition p is at topicStart[t] + p).
 * Input the broker should never send is cleaned here, once, for the kernel and the fallback alike:
 * subscribed topics missing from the metadata are dropped; claims of unknown topics, of topics the
 * member does not subscribe or of partitions beyond the count are dropped; a partition two members claim stays with the first by id.
 */
final class GroupTable {
    /** Indexed by member number: its id, its rack index (-1: none), its topics (ascending topic numbers). */
    final String[] memberIds;
    final int[] memberRack;
    final int[][] memberTopics;
    /** Indexed by topic number: its id, partition count, first flat partition (topics + 1 entries). */
    final Uuid[] topicIds;
    final int[] counts;
    final int[] topicStart;
    final Map<Uuid, Integer> topicIndex;
    /** The subscribers of every topic, as the kernel's lists. */
    final SubscriberLists lists;
    /** The cleaned current assignment: claims.owner[flat partition] is its owner (member number) or -1. */
    final Claims claims;
    /** Distinct member racks in code-unit order; partition i's replica racks that some member is in: racks[rackStart[i] .. rackStart[i + 1]). */
    final String[] rackNames;
    final int[] rackStart;
    final int[] racks;

    private GroupTable(String[] memberIds, int[] memberRack, int[][] memberTopics, Uuid[] topicIds, int[] counts,
                       Map<Uuid, Integer> topicIndex, Claims claims, String[] rackNames, int[] rackStart, int[] racks) {
        this.memberIds = memberIds;
        this.memberRack = memberRack;
        this.memberTopics = memberTopics;
        this.topicIds = topicIds;
        this.counts = counts;
        this.topicIndex = topicIndex;
        this.topicStart = new int[counts.length + 1];
        for (int t = 0; t < counts.length; t++) topicStart[t + 1] = Math.addExact(topicStart[t], counts[t]);
        this.claims = claims;
        this.rackNames = rackNames;
        this.rackStart = rackStart;
        this.racks = racks;
        this.lists = SubscriberLists.of(memberTopics, counts.length);
    }

    /**
     * The subscribers of every topic as lists (the planner's ABI): list l is
     * listMembers[listStart[l] .. listStart[l + 1]), ascending member numbers; topic t's is list
     * topicList[t]. Members with equal subscriptions mostly share one topic array (read(),
     * shareEqualSets: best effort). When no topic is in two arrays (a homogeneous group, or
     * disjoint subscriptions), the members of each array are one list that all its topics share:
     * 10,000 members on 1,000 topics write 10,000 entries, not 10 million. Else each topic has a
     * list of its own (the planner finds equal lists itself; only the saving is lost).
     */
    static final class SubscriberLists {
        final int[] listStart;
        final int[] listMembers;
        final int[] topicList;

        private SubscriberLists(int[] listStart, int[] listMembers, int[] topicList) {
            this.listStart = listStart;
            this.listMembers = listMembers;
            this.topicList = topicList;
        }

        static SubscriberLists of(int[][] memberTopics, int topics) {
            Map<int[], List<Integer>> byArray = new LinkedHashMap<>(); // arrays hash by identity
            for (int m = 0; m < memberTopics.length; m++) byArray.computeIfAbsent(memberTopics[m], k -> new ArrayList<>()).add(m);
            int[] arrays = new int[topics];
            for (int[] array : byArray.keySet()) for (int t : array) arrays[t]++;
            boolean disjoint = true;
            for (int c : arrays) disjoint &= c <= 1;
            return disjoint ? shared(byArray, topics) : perTopic(memberTopics, topics);
        }

        /** One list per subscription array, in order of its first member. */
        private static SubscriberLists shared(Map<int[], List<Integer>> byArray, int topics) {
            int[] listStart = new int[byArray.size() + 1];
            int[] topicList = new int[topics];
            int[] listMembers = new int[byArray.values().stream().mapToInt(List::size).sum()];
            int l = 0;
            for (Map.Entry<int[], List<Integer>> e : byArray.entrySet()) {
                int at = listStart[l];
                for (int m : e.getValue()) listMembers[at++] = m;
                listStart[l + 1] = at;
                for (int t : e.getKey()) topicList[t] = l;
                l++;
            }
            return new SubscriberLists(listStart, listMembers, topicList);
        }

        /** Topic t's subscribers are list t. */
        private static SubscriberLists perTopic(int[][] memberTopics, int topics) {
            int[] listStart = new int[topics + 1];
            for (int[] ts : memberTopics) for (int t : ts) listStart[t + 1]++;
            for (int t = 0; t < topics; t++) listStart[t + 1] += listStart[t];
            int[] listMembers = new int[listStart[topics]];
            int[] at = Arrays.copyOf(listStart, topics);
            for (int m = 0; m < memberTopics.length; m++) for (int t : memberTopics[m]) listMembers[at[t]++] = m;
            int[] topicList = new int[topics];
            for (int t = 0; t < topics; t++) topicList[t] = t;
            return new SubscriberLists(listStart, listMembers, topicList);
        }
    }

    int members() { return memberIds.length; }
    int topics() { return counts.length; }
    int partitions() { return topicStart[counts.length]; }

    /** Reads the broker's group: the steps below, each in the index spaces named above. */
    static GroupTable read(GroupSpec spec, SubscribedTopicDescriber describer) {
        String[] ids = spec.memberIds().toArray(new String[0]);
        Arrays.sort(ids);
        MemberSubscription[] subscriptions = new MemberSubscription[ids.length];
        for (int m = 0; m < ids.length; m++) subscriptions[m] = spec.memberSubscription(ids[m]);

        // Each member's topic set, read once per distinct set: with a homogeneous group (the broker
        // says so, and every set has the first one's size) every member shares the first member's set,
        // as the broker's own UniformAssignor assumes. 10,000 members x 1,000 topics made reading
        // every set 0.5-2 s of a rebalance; the same set object is also read only once.
        Set<Uuid>[] sets = topicSets(spec, subscriptions);
        Map<Set<Uuid>, int[]> distinct = new IdentityHashMap<>();
        for (Set<Uuid> set : sets) distinct.put(set, null);

        // Topics: every subscribed id the metadata knows (count > 0), by Uuid.toString().
        Map<Uuid, Integer> counted = new HashMap<>();
        for (Set<Uuid> set : distinct.keySet()) {
            for (Uuid id : set) {
                if (counted.containsKey(id)) continue;
                counted.put(id, Math.max(0, describer.numPartitions(id)));
            }
        }
        TreeMap<String, Uuid> byText = new TreeMap<>();
        counted.forEach((id, n) -> { if (n > 0) byText.put(id.toString(), id); });
        Uuid[] topicIds = byText.values().toArray(new Uuid[0]);
        int[] counts = new int[topicIds.length];
        Map<Uuid, Integer> topicIndex = new HashMap<>(topicIds.length * 2);
        for (int t = 0; t < topicIds.length; t++) {
            counts[t] = counted.get(topicIds[t]);
            topicIndex.put(topicIds[t], t);
        }

        // Subscriptions as ascending topic numbers; racks interned in code-unit order.
        int[][] memberTopics = new int[ids.length][];
        TreeMap<String, Integer> rackIndex = new TreeMap<>();
        String[] rackOf = new String[ids.length];
        for (int m = 0; m < ids.length; m++) {
            int[] topics = distinct.get(sets[m]);
            if (topics == null) distinct.put(sets[m], topics = subscribed(sets[m], topicIndex));
            memberTopics[m] = topics;
            Optional<String> rack = subscriptions[m].rackId();
            if (rack != null && rack.isPresent() && !rack.get().isEmpty()) {
                rackOf[m] = rack.get();
                rackIndex.put(rackOf[m], 0);
            }
        }
        String[] rackNames = rackIndex.keySet().toArray(new String[0]);
        for (int r = 0; r < rackNames.length; r++) rackIndex.put(rackNames[r], r);
        int[] memberRack = new int[ids.length];
        for (int m = 0; m < ids.length; m++) memberRack[m] = rackOf[m] == null ? -1 : rackIndex.get(rackOf[m]);

        int total = 0;
        for (int c : counts) total = Math.addExact(total, c);
        Claims claims = Claims.read(spec, ids, memberTopics, topicIndex, counts);

        int[] rackStart = new int[rackNames.length == 0 ? 1 : total + 1];
        int[] racks = rackNames.length == 0 ? new int[0] : partitionRacks(describer, topicIds, counts, rackIndex, rackStart);
        return new GroupTable(ids, memberRack, memberTopics, topicIds, counts, topicIndex, claims, rackNames, rackStart, racks);
    }

    /** Per member (id order), the set of topic ids it subscribes; one shared set when the group is homogeneous. */
    @SuppressWarnings("unchecked")
    private static Set<Uuid>[] topicSets(GroupSpec spec, MemberSubscription[] subscriptions) {
        Set<Uuid>[] sets = new Set[subscriptions.length];
        for (int m = 0; m < subscriptions.length; m++) {
            Set<Uuid> set = subscriptions[m].subscribedTopicIds();
            sets[m] = set == null ? Set.of() : set;
        }
        if (sets.length > 1 && spec.subscriptionType() == SubscriptionType.HOMOGENEOUS) {
            int size = sets[0].size();
            boolean same = true;
            for (Set<Uuid> set : sets) same &= set.size() == size;
            if (same) Arrays.fill(sets, sets[0]);
        }
        shareEqualSets(sets);
        return sets;
    }

    /**
     * Members whose sets are equal share one set object, so each distinct set is read once (the
     * broker hands every member its own TopicIds, whose equals compares topic names, cheaper than
     * resolving every id). Each set is compared with at most 16 earlier ones of its size.
     */
    private static void shareEqualSets(Set<Uuid>[] sets) {
        Map<Integer, List<Set<Uuid>>> bySize = new HashMap<>();
        for (int m = 0; m < sets.length; m++) {
            List<Set<Uuid>> seen = bySize.computeIfAbsent(sets[m].size(), k -> new ArrayList<>());
            Set<Uuid> equal = null;
            for (Set<Uuid> s : seen) {
                if (s == sets[m] || s.equals(sets[m])) {
                    equal = s;
                    break;
                }
            }
            if (equal != null) sets[m] = equal;
            else if (seen.size() < 16) seen.add(sets[m]);
        }
    }

    private static int[] subscribed(Set<Uuid> ids, Map<Uuid, Integer> topicIndex) {
        int[] out = new int[ids.size()];
        int n = 0;
        for (Uuid id : ids) {
            Integer t = topicIndex.get(id);
            if (t != null) out[n++] = t;
        }
        out = Arrays.copyOf(out, n);
        Arrays.sort(out);
        return out;
    }

    /**
     * The members' current assignments, cleaned, members in id order. owner: per flat partition, its
     * owner (the first claim wins) or -1; per member, the broker's map (maps) and how many partitions
     * it claims (claimed), -1 when cleaning dropped any of its claims (its map cannot be handed back).
     * A claim of a topic the member no longer subscribes is dropped, as the Node preview
     * (src/group/consumer/assign.ts) drops it: that partition has to move anyway.
     */
    static final class Claims {
        final int[] owner;
        final int[] claimed;
        final Map<Uuid, Set<Integer>>[] maps;

        @SuppressWarnings("unchecked")
        private Claims(int partitions, int members) {
            owner = new int[partitions];
            Arrays.fill(owner, -1);
            claimed = new int[members];
            maps = new Map[members];
        }

        static Claims read(GroupSpec spec, String[] ids, int[][] memberTopics, Map<Uuid, Integer> topicIndex, int[] counts) {
            int[] start = new int[counts.length + 1];
            for (int t = 0; t < counts.length; t++) start[t + 1] = Math.addExact(start[t], counts[t]);
            Claims c = new Claims(start[counts.length], ids.length);
            int[] subscribedBy = new int[counts.length];
            Arrays.fill(subscribedBy, -1);
            for (int m = 0; m < ids.length; m++) {
                MemberAssignment current = spec.memberAssignment(ids[m]);
                c.maps[m] = current == null ? null : current.partitions();
                if (c.maps[m] == null) continue;
                for (int t : memberTopics[m]) subscribedBy[t] = m;
                final int member = m;
                // Half a million one-partition sets cost a few cache misses each, however they are
                // walked (forEach and iterator loops measured alike): about 100 ms at 10k x 500k.
                c.maps[m].forEach((id, parts) -> {
                    Integer t = topicIndex.get(id);
                    if (t == null || subscribedBy[t] != member || parts == null || parts.isEmpty()) {
                        c.claimed[member] = -1;
                        return;
                    }
                    parts.forEach(p -> c.claim(member, p == null ? -1 : p, counts[t], start[t]));
                });
            }
            return c;
        }

        /** Member m's claim of partition p of a topic of `count` partitions starting at flat `at`. */
        private void claim(int m, int p, int count, int at) {
            if (p >= 0 && p < count && owner[at + p] < 0) {
                owner[at + p] = m;
                if (claimed[m] >= 0) claimed[m]++;
            } else {
                claimed[m] = -1;
            }
        }

        /**
         * Per member, whether `owners` gives it exactly the partitions it claims, all kept: then
         * its answer is the broker's own map, as the broker's UniformAssignor hands back unchanged
         * assignments (no copy, and the broker's comparison of old and new is one identity check).
         */
        boolean[] unchanged(int[] owners) {
            int[] stay = new int[claimed.length];
            int[] now = new int[claimed.length];
            for (int i = 0; i < owners.length; i++) {
                int o = owners[i];
                if (o < 0) continue;
                now[o]++;
                if (owner[i] == o) stay[o]++;
            }
            boolean[] same = new boolean[claimed.length];
            for (int m = 0; m < same.length; m++) same[m] = claimed[m] > 0 && stay[m] == claimed[m] && now[m] == claimed[m];
            return same;
        }
    }

    /** Per flat partition, the member-rack numbers of its replica racks, distinct and ascending. */
    private static int[] partitionRacks(SubscribedTopicDescriber describer, Uuid[] topicIds, int[] counts, Map<String, Integer> rackOrder, int[] rackStart) {
        Map<String, Integer> rackIndex = new HashMap<>(rackOrder); // hashed lookups, not compareTo
        int[] racks = new int[16];
        int n = 0;
        int at = 0;
        int[] seen = new int[rackIndex.size()];
        int stamp = 0;
        for (int t = 0; t < topicIds.length; t++) {
            for (int p = 0; p < counts[t]; p++, at++) {
                Set<String> replicas = describer.racksForPartition(topicIds[t], p);
                int from = n;
                stamp++;
                if (replicas != null) {
                    for (String rack : replicas) {
                        Integer r = rack == null ? null : rackIndex.get(rack);
                        if (r == null || seen[r] == stamp) continue;
                        seen[r] = stamp;
                        if (n == racks.length) racks = Arrays.copyOf(racks, racks.length * 2);
                        racks[n++] = r;
                    }
                }
                Arrays.sort(racks, from, n);
                rackStart[at + 1] = n;
            }
        }
        return Arrays.copyOf(racks, n);
    }

    /** The planner's answer: {@link #assignment(int[], boolean[])}, members whose claims it keeps exactly answered with their own map. */
    GroupAssignment assignment(int[] owners) {
        return assignment(owners, claims.unchanged(owners));
    }

    /** The members' current assignments after cleaning, all built afresh (unmodifiable maps): what the fallback hands to uniform, or back. */
    GroupAssignment current() {
        return assignment(claims.owner, new boolean[memberIds.length]);
    }

    /**
     * The assignment a flat owner table gives: every member present, each topic's partitions
     * ascending; a member marked in `reuse` gets the broker's current map instead of a copy.
     */
    private GroupAssignment assignment(int[] owners, boolean[] reuse) {
        List<Map<Uuid, Set<Integer>>> byMember = new ArrayList<>(memberIds.length);
        for (int m = 0; m < memberIds.length; m++) byMember.add(reuse[m] ? null : new HashMap<>());
        int[] held = new int[memberIds.length];
        int[] touched = new int[memberIds.length];
        int[][] parts = new int[memberIds.length][];
        for (int t = 0; t < counts.length; t++) {
            int s = topicStart[t];
            int touchedCount = 0;
            for (int p = 0; p < counts[t]; p++) {
                int o = owners[s + p];
                if (o < 0) continue;
                if (o >= memberIds.length) throw new IllegalStateException("owner " + o + " out of range");
                if (reuse[o]) continue;
                if (held[o]++ == 0) touched[touchedCount++] = o;
            }
            for (int i = 0; i < touchedCount; i++) {
                int o = touched[i];
                parts[o] = new int[held[o]];
                held[o] = 0;
            }
            for (int p = 0; p < counts[t]; p++) {
                int o = owners[s + p];
                if (o >= 0 && !reuse[o]) parts[o][held[o]++] = p;
            }
            for (int i = 0; i < touchedCount; i++) {
                int o = touched[i];
                byMember.get(o).put(topicIds[t], new PartitionSet(parts[o]));
                held[o] = 0;
                parts[o] = null;
            }
        }
        Map<String, MemberAssignment> members = new HashMap<>(memberIds.length * 2);
        // Unmodifiable maps: the broker's UniformAssignor refuses a current assignment in any other map
        // (AssignorHelpers.isImmutableMap), and the fallback hands this back to it as the current one.
        for (int m = 0; m < memberIds.length; m++) {
            Map<Uuid, Set<Integer>> map = reuse[m] ? claims.maps[m] : Collections.unmodifiableMap(byMember.get(m));
            members.put(memberIds[m], new MemberAssignmentImpl(map));
        }
        return new GroupAssignment(members);
    }

    /** The cleaned group as the broker's own types, for the broker's UniformAssignor. */
    CleanGroup clean(GroupSpec original, SubscribedTopicDescriber describer) {
        return new CleanGroup(this, current(), original, describer);
    }

    /** Member numbers by id, for lookups from the cleaned spec. */
    Map<String, Integer> memberIndex() {
        Map<String, Integer> out = new HashMap<>(memberIds.length * 2);
        for (int m = 0; m < memberIds.length; m++) out.put(memberIds[m], m);
        return Collections.unmodifiableMap(out);
    }
}
