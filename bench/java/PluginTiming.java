// The broker plugin (build/assignor-broker.jar, dev.assignor.broker.StickyAssignor) against the
// 4.4.0 broker's own UniformAssignor, in one JVM, on one cell of the grid of
// bench/group-consumer.ts (Kafka's jmh ServerSideAssignorBenchmark): the group and the GroupSpec are
// built by ConsumerAssignorTiming (compiled alongside), so members, racks, subscriptions and topic
// ids are the same as there. The plugin runs its planner compiled to bytecode by Chicory
// ("compiled") or in Chicory's interpreter ("interpreted").
//
// Usage: java PluginTiming <members> <topics> <partitionsPerTopic> <homogeneous|heterogeneous>
//          <full|join|leave> <warmups> <runs> <assignor,...> [<interpreterWarmups> <interpreterRuns>]
//   assignors: uniform, compiled, interpreted.
//   full: every member assigned from nothing. join: N - 1 members hold their first answer from this
//   assignor (untimed), "newMember" joins with the last member's subscription. leave: N members
//   hold their first answer, member<N/2> leaves.
// stdin: one topic id per line, topic after topic.
// stdout per assignor: {"assignor", "step", "ms": [cold, measured...], "moved", "spread", "fallbacks"}
//   moved: partitions whose owner changed though that owner is still in the group; spread: max - min
//   partitions per member; fallbacks: plugin calls that fell back to uniform (must be 0).
// Every answer is checked: each partition once, to a member that subscribes its topic.
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.assignor.broker.StickyAssignor;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;

public class PluginTiming {
    record Timed(GroupAssignment result, String ms) {}

    static Timed time(ConsumerGroupPartitionAssignor assignor, GroupSpecImpl spec, ConsumerAssignorTiming.Metadata md, int warmups, int runs) {
        StringBuilder ms = new StringBuilder();
        GroupAssignment result = null;
        for (int r = 0; r < 1 + warmups + runs; r++) {
            long t = System.nanoTime();
            result = assignor.assign(spec, md);
            double took = (System.nanoTime() - t) / 1e6;
            if (r == 0 || r > warmups) ms.append(r == 0 ? "" : ",").append(String.format("%.3f", took));
        }
        return new Timed(result, ms.toString());
    }

    /** Throws unless every partition has exactly one owner, a member that subscribes its topic. */
    static void check(GroupAssignment result, List<ConsumerAssignorTiming.Member> members, ConsumerAssignorTiming.Metadata md, int[][] owners) {
        long total = 0;
        for (ConsumerAssignorTiming.Member m : members) {
            var a = result.members().get(m.id());
            if (a == null) throw new IllegalStateException("member " + m.id() + " missing");
            for (var e : a.partitions().entrySet()) {
                if (!m.topics().contains(md.name(e.getKey()))) throw new IllegalStateException(m.id() + " holds an unsubscribed topic");
                total += e.getValue().size();
            }
        }
        long expected = 0;
        for (int[] topic : owners) {
            for (int o : topic) if (o < 0) throw new IllegalStateException("a partition has no owner");
            expected += topic.length;
        }
        if (total != expected) throw new IllegalStateException("partitions assigned " + total + " times, " + expected + " exist");
    }

    public static void main(String[] args) throws Exception {
        int memberCount = Integer.parseInt(args[0]);
        int topicCount = Integer.parseInt(args[1]);
        int perTopic = Integer.parseInt(args[2]);
        boolean heterogeneous = args[3].equals("heterogeneous");
        String kind = args[4];
        int warmups = Integer.parseInt(args[5]);
        int runs = Integer.parseInt(args[6]);
        String[] assignors = args[7].split(",");
        int iWarmups = args.length > 8 ? Integer.parseInt(args[8]) : warmups;
        int iRuns = args.length > 9 ? Integer.parseInt(args[9]) : runs;

        List<String> topics = new ArrayList<>();
        for (int t = 0; t < topicCount; t++) topics.add("topic-" + t);
        int[] partitions = new int[topicCount];
        java.util.Arrays.fill(partitions, perTopic);
        ConsumerAssignorTiming.Metadata md = new ConsumerAssignorTiming.Metadata(topics, ConsumerAssignorTiming.readIds(topicCount), partitions, true);

        int n = kind.equals("join") ? memberCount - 1 : memberCount;
        int buckets = Math.min(5, n);
        int topicsPerBucket = (int) Math.ceil((double) topicCount / buckets);
        int membersPerBucket = (int) Math.ceil((double) n / buckets);
        List<ConsumerAssignorTiming.Member> members = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Set<String> subscribed;
            if (heterogeneous) {
                int b = i / membersPerBucket;
                subscribed = Set.copyOf(topics.subList(b * topicsPerBucket, Math.min((b + 1) * topicsPerBucket, topicCount)));
            } else {
                subscribed = Set.copyOf(topics);
            }
            members.add(new ConsumerAssignorTiming.Member("member" + i, i, "rack" + i % 3, subscribed));
        }
        List<ConsumerAssignorTiming.Member> timedMembers = members;
        if (kind.equals("join")) {
            timedMembers = new ArrayList<>(members);
            timedMembers.add(new ConsumerAssignorTiming.Member("newMember", memberCount - 1, "rack" + (memberCount - 1) % 3, members.get(n - 1).topics()));
        } else if (kind.equals("leave")) {
            timedMembers = new ArrayList<>(members);
            timedMembers.remove(n / 2);
        }

        for (String name : assignors) {
            ConsumerGroupPartitionAssignor assignor = switch (name) {
                case "uniform" -> new UniformAssignor();
                case "compiled" -> new StickyAssignor(false);
                case "interpreted" -> new StickyAssignor(true);
                default -> throw new IllegalArgumentException(name);
            };
            boolean slow = name.equals("interpreted");
            long fallbacks = StickyAssignor.fallbackCount();
            int[][] initial = null;
            if (!kind.equals("full")) initial = ConsumerAssignorTiming.owners(assignor.assign(ConsumerAssignorTiming.spec(members, md, null), md), members, md, partitions);
            GroupSpecImpl spec = ConsumerAssignorTiming.spec(timedMembers, md, initial);
            Timed t = time(assignor, spec, md, slow ? iWarmups : warmups, slow ? iRuns : runs);
            int[][] owners = ConsumerAssignorTiming.owners(t.result(), timedMembers, md, partitions);
            check(t.result(), timedMembers, md, owners);
            Set<Integer> present = new HashSet<>();
            for (ConsumerAssignorTiming.Member m : timedMembers) present.add(m.index());
            long moved = 0;
            int[] held = new int[memberCount];
            for (int tp = 0; tp < owners.length; tp++) {
                for (int p = 0; p < owners[tp].length; p++) {
                    held[owners[tp][p]]++;
                    if (initial != null && initial[tp][p] >= 0 && present.contains(initial[tp][p]) && initial[tp][p] != owners[tp][p]) moved++;
                }
            }
            int max = 0, min = Integer.MAX_VALUE;
            for (ConsumerAssignorTiming.Member m : timedMembers) {
                max = Math.max(max, held[m.index()]);
                min = Math.min(min, held[m.index()]);
            }
            System.out.println("{\"assignor\":\"" + name + "\",\"step\":\"" + kind + "\",\"ms\":[" + t.ms() + "],\"moved\":" + (initial == null ? "null" : moved)
                + ",\"spread\":" + (max - min) + ",\"fallbacks\":" + (StickyAssignor.fallbackCount() - fallbacks) + "}");
        }
    }
}
