// The 4.4.0 broker's KIP-848 assignors (UniformAssignor, RangeAssignor from kafka-group-coordinator,
// Maven Central) timed on the workloads of bench/group-consumer.ts, through the GroupSpec the broker
// builds (GroupSpecImpl, MemberSubscriptionAndAssignmentImpl, TopicIds, Assignment), its maps
// filled in the canonical order of docs/group.md (members by id, topics by name), as
// test/group/java/ConsumerProtocolOracle.java does, so assignor's answer can be checked against it.
//
// Usage:
//   java ConsumerAssignorTiming grid <uniform|range> <members> <topics> <partitionsPerTopic> <homogeneous|heterogeneous> <full|incremental> <warmups> <runs>
//     One cell of the grid of Kafka's jmh ServerSideAssignorBenchmark: members "member<i>", topics
//     "topic-<t>", racks "rack<i % 3>"; heterogeneous: 5 buckets, bucket b's members (ceil(N / 5)
//     each) subscribe to bucket b's topics (ceil(T / 5) each). incremental: N - 1 members get a full
//     assignment (untimed), then a member "newMember" joins with the subscription of the last
//     member, and the others hold what the first assignment gave them. Partition p's replicas sit
//     on racks p % 3 and (p + 1) % 3.
//   java ConsumerAssignorTiming sequence <uniform|range> <topics> <partitionsPerTopic> <members> <warmups> <runs>
//     The event sequence of bench/group-strategies.ts: first assignment, consumer-00000 leaves,
//     every tenth topic doubles, consumer-<M> joins; each step starts from the previous answer.
// stdin: one topic id per line, topic after topic (the ids assignor derives or is given).
// stdout per timed step: {"step":..., "ms":[cold, warm...]} (the first run in this JVM, untimed
// warm-ups dropped, then the measured runs), then "owners <step> i,i,..." with the owner (member
// index; "newMember" is N - 1) of every partition, topic after topic; incremental cells also print
// "owners initial ..." for the assignment the members start from.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.apache.kafka.coordinator.group.modern.TopicIds;

public class ConsumerAssignorTiming {
    /** Names, ids and partition counts: the metadata image the broker would hold. */
    static final class Metadata implements TopicIds.TopicResolver, SubscribedTopicDescriber {
        final List<String> topics;
        final Map<String, Uuid> ids = new HashMap<>();
        final Map<Uuid, String> names = new HashMap<>();
        final Map<Uuid, Integer> counts = new HashMap<>();
        final Map<Uuid, Integer> index = new HashMap<>();
        final boolean racks;
        static final Set<String>[] RACKS = racks();

        @SuppressWarnings("unchecked")
        static Set<String>[] racks() {
            Set<String>[] out = new Set[3];
            for (int r = 0; r < 3; r++) out[r] = Set.of("rack" + r, "rack" + (r + 1) % 3);
            return out;
        }

        Metadata(List<String> topics, List<Uuid> topicIds, int[] partitions, boolean racks) {
            this.topics = topics;
            this.racks = racks;
            for (int t = 0; t < topics.size(); t++) {
                ids.put(topics.get(t), topicIds.get(t));
                names.put(topicIds.get(t), topics.get(t));
                counts.put(topicIds.get(t), partitions[t]);
                index.put(topicIds.get(t), t);
            }
        }

        public CoordinatorMetadataImage image() { return null; }
        public String name(Uuid id) { return names.get(id); }
        public Uuid id(String name) { return ids.get(name); }
        public void clear() {}
        public int numPartitions(Uuid id) { Integer n = counts.get(id); return n == null ? -1 : n; }
        public Set<String> racksForPartition(Uuid id, int partition) { return racks ? RACKS[partition % 3] : Set.of(); }
    }

    record Member(String id, int index, String rack, Set<String> topics) {}

    /**
     * The broker's GroupSpec: a HashMap of members filled by id; each current assignment put by topic
     * name (a HashMap, so the order of puts decides the order inside a bucket), a HashSet per topic
     * built from its ascending list, as Assignment.fromRecord builds it; the inverted map likewise.
     */
    static GroupSpecImpl spec(List<Member> members, Metadata md, int[][] owners) {
        List<Member> byId = new ArrayList<>(members);
        byId.sort((a, b) -> a.id().compareTo(b.id()));
        Map<Integer, TreeMap<String, List<Integer>>> held = new HashMap<>();
        Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
        Map<Integer, String> idOf = new HashMap<>();
        for (Member m : members) idOf.put(m.index(), m.id());
        if (owners != null) {
            TreeMap<String, Integer> byName = new TreeMap<>();
            for (int t = 0; t < owners.length; t++) byName.put(md.topics.get(t), t);
            for (Map.Entry<String, Integer> e : byName.entrySet()) {
                int t = e.getValue();
                Map<Integer, String> byPartition = new HashMap<>();
                for (int p = 0; p < owners[t].length; p++) {
                    String owner = idOf.get(owners[t][p]);
                    if (owner == null) continue;
                    held.computeIfAbsent(owners[t][p], k -> new TreeMap<>()).computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(p);
                    byPartition.put(p, owner);
                }
                if (!byPartition.isEmpty()) inverted.put(md.id(e.getKey()), byPartition);
            }
        }
        Map<String, MemberSubscriptionAndAssignmentImpl> specs = new HashMap<>();
        Map<Set<String>, Set<String>> shared = new HashMap<>();
        Map<String, Integer> subscribers = new HashMap<>();
        for (Member m : byId) {
            Map<Uuid, Set<Integer>> current = new HashMap<>();
            TreeMap<String, List<Integer>> mine = held.get(m.index());
            if (mine != null) mine.forEach((name, parts) -> current.put(md.id(name), new HashSet<>(parts)));
            Set<String> names = shared.computeIfAbsent(m.topics(), k -> new HashSet<>(new java.util.TreeSet<>(k)));
            for (String t : names) subscribers.merge(t, 1, Integer::sum);
            specs.put(m.id(), new MemberSubscriptionAndAssignmentImpl(Optional.ofNullable(m.rack()), Optional.empty(), new TopicIds(names, md), new Assignment(current)));
        }
        SubscriptionType type = SubscriptionType.HOMOGENEOUS;
        for (int n : subscribers.values()) if (n != members.size()) type = SubscriptionType.HETEROGENEOUS;
        return new GroupSpecImpl(Collections.unmodifiableMap(specs), type, inverted);
    }

    static int[][] owners(GroupAssignment result, List<Member> members, Metadata md, int[] partitions) {
        int[][] out = new int[partitions.length][];
        for (int t = 0; t < partitions.length; t++) {
            out[t] = new int[partitions[t]];
            java.util.Arrays.fill(out[t], -1);
        }
        for (Member m : members) {
            MemberAssignment a = result.members().get(m.id());
            if (a == null) continue;
            a.partitions().forEach((id, parts) -> {
                int t = md.index.get(id);
                for (int p : parts) out[t][p] = m.index();
            });
        }
        return out;
    }

    static void print(String step, int[][] owners) {
        StringBuilder line = new StringBuilder(1 << 20).append("owners ").append(step).append(' ');
        boolean first = true;
        for (int[] topic : owners) for (int o : topic) {
            if (!first) line.append(',');
            line.append(o);
            first = false;
        }
        System.out.println(line);
    }

    /** Times the assignor on one spec: the first run in this JVM, untimed warm-ups, then the measured runs. */
    static GroupAssignment time(String step, ConsumerGroupPartitionAssignor assignor, GroupSpecImpl spec, Metadata md, int warmups, int runs) {
        StringBuilder ms = new StringBuilder();
        GroupAssignment result = null;
        for (int r = 0; r < 1 + warmups + runs; r++) {
            long t = System.nanoTime();
            result = assignor.assign(spec, md);
            double took = (System.nanoTime() - t) / 1e6;
            if (r == 0 || r > warmups) ms.append(r == 0 ? "" : ",").append(String.format("%.3f", took));
        }
        System.out.println("{\"step\":\"" + step + "\",\"ms\":[" + ms + "]}");
        return result;
    }

    static List<Uuid> readIds(int n) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        List<Uuid> ids = new ArrayList<>();
        for (int t = 0; t < n; t++) ids.add(Uuid.fromString(in.readLine().trim()));
        return ids;
    }

    public static void main(String[] args) throws Exception {
        ConsumerGroupPartitionAssignor assignor = args[1].equals("uniform") ? new UniformAssignor() : new RangeAssignor();
        if (args[0].equals("grid")) grid(assignor, args);
        else sequence(assignor, args);
    }

    static void grid(ConsumerGroupPartitionAssignor assignor, String[] args) throws Exception {
        int memberCount = Integer.parseInt(args[2]);
        int topicCount = Integer.parseInt(args[3]);
        int perTopic = Integer.parseInt(args[4]);
        boolean heterogeneous = args[5].equals("heterogeneous");
        boolean incremental = args[6].equals("incremental");
        int warmups = Integer.parseInt(args[7]);
        int runs = Integer.parseInt(args[8]);
        List<String> topics = new ArrayList<>();
        for (int t = 0; t < topicCount; t++) topics.add("topic-" + t);
        int[] partitions = new int[topicCount];
        java.util.Arrays.fill(partitions, perTopic);
        Metadata md = new Metadata(topics, readIds(topicCount), partitions, true);

        int n = incremental ? memberCount - 1 : memberCount;
        List<Member> members = new ArrayList<>();
        int buckets = Math.min(5, n);
        int topicsPerBucket = (int) Math.ceil((double) topicCount / buckets);
        int membersPerBucket = (int) Math.ceil((double) n / buckets);
        for (int i = 0; i < n; i++) {
            Set<String> subscribed;
            if (heterogeneous) {
                int b = i / membersPerBucket;
                subscribed = Set.copyOf(topics.subList(b * topicsPerBucket, Math.min((b + 1) * topicsPerBucket, topicCount)));
            } else {
                subscribed = Set.copyOf(topics);
            }
            members.add(new Member("member" + i, i, "rack" + i % 3, subscribed));
        }
        if (!incremental) {
            GroupAssignment result = time("full", assignor, spec(members, md, null), md, warmups, runs);
            print("full", owners(result, members, md, partitions));
            return;
        }
        int[][] initial = owners(assignor.assign(spec(members, md, null), md), members, md, partitions);
        print("initial", initial);
        List<Member> joined = new ArrayList<>(members);
        joined.add(new Member("newMember", memberCount - 1, "rack" + (memberCount - 1) % 3, members.get(n - 1).topics()));
        GroupAssignment result = time("incremental", assignor, spec(joined, md, initial), md, warmups, runs);
        print("incremental", owners(result, joined, md, partitions));
    }

    static void sequence(ConsumerGroupPartitionAssignor assignor, String[] args) throws Exception {
        int topicCount = Integer.parseInt(args[2]);
        int base = Integer.parseInt(args[3]);
        int memberCount = Integer.parseInt(args[4]);
        int warmups = Integer.parseInt(args[5]);
        int runs = Integer.parseInt(args[6]);
        List<String> topics = new ArrayList<>();
        for (int t = 0; t < topicCount; t++) topics.add(String.format("events-%04d", t));
        List<Uuid> ids = readIds(topicCount);
        int[] plain = new int[topicCount];
        int[] grown = new int[topicCount];
        for (int t = 0; t < topicCount; t++) {
            plain[t] = base;
            grown[t] = t % 10 == 0 ? 2 * base : base;
        }
        Metadata before = new Metadata(topics, ids, plain, false);
        Metadata after = new Metadata(topics, ids, grown, false);
        Set<String> all = Set.copyOf(topics);
        List<Member> everyone = new ArrayList<>();
        for (int m = 0; m <= memberCount; m++) everyone.add(new Member(String.format("consumer-%05d", m), m, null, all));
        List<Member> first = everyone.subList(0, memberCount);
        List<Member> left = everyone.subList(1, memberCount);
        List<Member> joined = everyone.subList(1, memberCount + 1);
        int[][] a = owners(time("first assignment", assignor, spec(first, before, null), before, warmups, runs), first, before, plain);
        print("first assignment", a);
        a = owners(time("one member leaves", assignor, spec(left, before, a), before, warmups, runs), left, before, plain);
        print("one member leaves", a);
        int[][] g = new int[topicCount][];
        for (int t = 0; t < topicCount; t++) {
            g[t] = java.util.Arrays.copyOf(a[t], grown[t]);
            java.util.Arrays.fill(g[t], a[t].length, grown[t], -1);
        }
        a = owners(time("10% of topics double", assignor, spec(left, after, g), after, warmups, runs), left, after, grown);
        print("10% of topics double", a);
        a = owners(time("one member joins", assignor, spec(joined, after, a), after, warmups, runs), joined, after, grown);
        print("one member joins", a);
    }
}
