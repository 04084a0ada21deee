// Kafka's CooperativeStickyAssignor (kafka-clients from Maven Central) on the event sequence of
// bench/group-strategies.ts: T topics x P partitions, M members subscribed to every topic.
//   1. first assignment; 2. the first member leaves; 3. every tenth topic doubles; 4. a member joins.
// Each step starts from the previous step's full assignment, owned at the next generation. The
// cooperative protocol withholds a partition that changes owner until a follow-up rebalance; that
// follow-up is run too (untimed), so the assignment the next step starts from is the full target.
// Per step: one JSON line with the run times in ms (the first one cold), then one line
// "owners <step> i,i,..." with the owner (index into the member list, -1 none) of every partition,
// topic after topic.
// Usage: java GroupStrategiesTiming <topics> <partitions> <members> <runs>
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

public class GroupStrategiesTiming {
    static final Node NODE = new Node(0, "127.0.0.1", 9092);

    static Map<String, List<PartitionInfo>> partitions(List<String> topics, int base, boolean grow) {
        Map<String, List<PartitionInfo>> out = new HashMap<>();
        Node[] replicas = {NODE};
        for (int t = 0; t < topics.size(); t++) {
            int n = grow && t % 10 == 0 ? 2 * base : base;
            List<PartitionInfo> list = new ArrayList<>(n);
            for (int p = 0; p < n; p++) list.add(new PartitionInfo(topics.get(t), p, NODE, replicas, replicas));
            out.put(topics.get(t), list);
        }
        return out;
    }

    static String memberId(int m) {
        return String.format("consumer-%05d", m);
    }

    public static void main(String[] args) {
        int topicCount = Integer.parseInt(args[0]);
        int base = Integer.parseInt(args[1]);
        int memberCount = Integer.parseInt(args[2]);
        int runs = Integer.parseInt(args[3]);
        List<String> topics = new ArrayList<>();
        for (int t = 0; t < topicCount; t++) topics.add(String.format("events-%04d", t));
        Map<String, List<PartitionInfo>> plain = partitions(topics, base, false);
        Map<String, List<PartitionInfo>> grown = partitions(topics, base, true);

        List<Integer> all = new ArrayList<>();
        for (int m = 0; m < memberCount; m++) all.add(m);
        List<Integer> left = new ArrayList<>(all.subList(1, all.size()));
        List<Integer> joined = new ArrayList<>(left);
        joined.add(memberCount);

        Map<String, List<TopicPartition>> a = step("first assignment", plain, subs(all, topics, null, -1), runs, topics, memberCount + 1);
        a = step("one member leaves", plain, subs(left, topics, a, 1), runs, topics, memberCount + 1);
        a = step("10% of topics double", grown, subs(left, topics, a, 2), runs, topics, memberCount + 1);
        step("one member joins", grown, subs(joined, topics, a, 3), runs, topics, memberCount + 1);
    }

    static Map<String, Subscription> subs(List<Integer> members, List<String> topics, Map<String, List<TopicPartition>> owned, int generation) {
        Map<String, Subscription> out = new TreeMap<>();
        for (int m : members) {
            String id = memberId(m);
            List<TopicPartition> mine = owned == null ? new ArrayList<>() : owned.getOrDefault(id, new ArrayList<>());
            out.put(id, new Subscription(topics, null, mine, generation, Optional.empty()));
        }
        return out;
    }

    static Map<String, List<TopicPartition>> step(String name, Map<String, List<PartitionInfo>> partitions, Map<String, Subscription> subs, int runs, List<String> topics, int ids) {
        Map<String, List<TopicPartition>> result = null;
        StringBuilder ms = new StringBuilder();
        for (int r = 0; r < runs; r++) {
            CooperativeStickyAssignor assignor = new CooperativeStickyAssignor();
            long t = System.nanoTime();
            result = assignor.assignPartitions(partitions, subs);
            double took = (System.nanoTime() - t) / 1e6;
            ms.append(r == 0 ? "" : ",").append(String.format("%.3f", took));
        }
        System.out.println("{\"scenario\":\"" + name + "\",\"ms\":[" + ms + "]}");
        // The follow-up rebalance: members own what the cooperative answer gave them; the withheld partitions go out now.
        int generation = subs.values().iterator().next().generationId().orElse(-1) + 1;
        Map<String, Subscription> follow = new TreeMap<>();
        for (Map.Entry<String, Subscription> e : subs.entrySet()) follow.put(e.getKey(), new Subscription(topics, null, result.get(e.getKey()), generation, Optional.empty()));
        Map<String, List<TopicPartition>> full = new CooperativeStickyAssignor().assignPartitions(partitions, follow);
        Map<String, Integer> topicIndex = new HashMap<>();
        int[] start = new int[topics.size() + 1];
        for (int t = 0; t < topics.size(); t++) {
            topicIndex.put(topics.get(t), t);
            start[t + 1] = start[t] + partitions.get(topics.get(t)).size();
        }
        int[] owner = new int[start[topics.size()]];
        java.util.Arrays.fill(owner, -1);
        for (Map.Entry<String, List<TopicPartition>> e : full.entrySet()) {
            int m = Integer.parseInt(e.getKey().substring("consumer-".length()));
            for (TopicPartition tp : e.getValue()) owner[start[topicIndex.get(tp.topic())] + tp.partition()] = m;
        }
        StringBuilder line = new StringBuilder("owners ").append(name).append(' ');
        for (int i = 0; i < owner.length; i++) line.append(i == 0 ? "" : ",").append(owner[i]);
        System.out.println(line);
        return full;
    }
}
