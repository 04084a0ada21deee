// Times Kafka's own CooperativeStickyAssignor (kafka-clients from Maven Central) on the inputs of
// bench/group.bench.ts: T topics x P partitions, M members subscribed to every topic.
//   1. first assignment (nobody owns anything);
//   2. one member leaves (the others own what scenario 1 gave them, generation 1);
//   3. 10% of the topics double (every member owns what scenario 1 gave it).
// Per scenario it prints one JSON line: the run times in ms (the first one cold), and the
// partitions the assignor took from an owner still in the group (revoked: the cooperative
// protocol assigns them in a follow-up rebalance) and those it gave out that nobody owned.
// Usage: java CooperativeStickyTiming <topics> <partitions> <members> <runs>
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

public class CooperativeStickyTiming {
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

    public static void main(String[] args) {
        int topicCount = Integer.parseInt(args[0]);
        int base = Integer.parseInt(args[1]);
        int memberCount = Integer.parseInt(args[2]);
        int runs = Integer.parseInt(args[3]);
        List<String> topics = new ArrayList<>();
        for (int t = 0; t < topicCount; t++) topics.add(String.format("events-%04d", t));
        List<String> members = new ArrayList<>();
        for (int m = 0; m < memberCount; m++) members.add(String.format("consumer-%05d", m));
        Map<String, List<PartitionInfo>> plain = partitions(topics, base, false);
        Map<String, List<PartitionInfo>> grown = partitions(topics, base, true);

        Map<String, Subscription> fresh = new TreeMap<>();
        for (String m : members) fresh.put(m, new Subscription(topics, null, new ArrayList<>(), -1, Optional.empty()));
        Map<String, List<TopicPartition>> first = run("first assignment", plain, fresh, runs);

        Map<String, Subscription> left = new TreeMap<>();
        Map<String, Subscription> stayed = new TreeMap<>();
        for (String m : members) {
            Subscription s = new Subscription(topics, null, first.get(m), 1, Optional.empty());
            stayed.put(m, s);
            if (!m.equals(members.get(0))) left.put(m, s);
        }
        run("one member leaves", plain, left, runs);
        run("10% of topics double", grown, stayed, runs);
    }

    static Map<String, List<TopicPartition>> run(String name, Map<String, List<PartitionInfo>> partitions, Map<String, Subscription> subs, int runs) {
        Map<String, List<TopicPartition>> result = null;
        StringBuilder ms = new StringBuilder();
        for (int r = 0; r < runs; r++) {
            // A fresh assignor per run, as a new leader would have (it keeps no state that matters here).
            CooperativeStickyAssignor assignor = new CooperativeStickyAssignor();
            long t = System.nanoTime();
            result = assignor.assignPartitions(partitions, subs);
            double took = (System.nanoTime() - t) / 1e6;
            ms.append(r == 0 ? "" : ",").append(String.format("%.3f", took));
        }
        // Previous owner of each partition (only members still present count).
        Map<TopicPartition, String> before = new HashMap<>();
        for (Map.Entry<String, Subscription> e : subs.entrySet()) for (TopicPartition tp : e.getValue().ownedPartitions()) before.put(tp, e.getKey());
        long moved = 0;
        long placed = 0;
        long assigned = 0;
        Map<TopicPartition, String> after = new HashMap<>();
        for (Map.Entry<String, List<TopicPartition>> e : result.entrySet()) for (TopicPartition tp : e.getValue()) after.put(tp, e.getKey());
        for (Map.Entry<TopicPartition, String> e : before.entrySet()) if (!e.getValue().equals(after.get(e.getKey()))) moved++;
        for (Map.Entry<TopicPartition, String> e : after.entrySet()) {
            assigned++;
            if (!before.containsKey(e.getKey())) placed++;
        }
        System.out.println("{\"scenario\":\"" + name + "\",\"ms\":[" + ms + "],\"moved\":" + moved + ",\"placed\":" + placed + ",\"assigned\":" + assigned + "}");
        return result;
    }
}
