// Runs Kafka's own RangeAssignor and RoundRobinAssignor (kafka-clients from Maven Central) on a
// batch of groups, through the leader's entry point assign(Cluster, GroupSubscription), in one JVM.
// stdin: a JSON array of groups in assignor's group shape (docs/group.md: topics with names,
// partition counts and optional replica racks; members with ids, subscriptions, optional racks
// and instance ids). stdout: a JSON array, per group { "range": A, "round-robin": A } where A maps
// member id -> topic -> partitions ascending (every member present).
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

public class GroupOracle {
    static final ObjectMapper JSON = new ObjectMapper();

    /** The metadata: one broker per rack (plus one without a rack); a partition's replicas are the brokers of its racks. */
    static Cluster cluster(JsonNode topics) {
        Map<String, Node> byRack = new HashMap<>();
        Node rackless = new Node(0, "127.0.0.1", 9092);
        List<PartitionInfo> partitions = new ArrayList<>();
        for (JsonNode t : topics) {
            String name = t.get("name").asText();
            int n = t.get("partitions").asInt();
            JsonNode racks = t.get("racks");
            for (int p = 0; p < n; p++) {
                Node[] replicas;
                if (racks == null) replicas = new Node[] {rackless};
                else {
                    JsonNode rs = racks.get(p);
                    replicas = new Node[rs.size()];
                    for (int i = 0; i < rs.size(); i++) {
                        String rack = rs.get(i).asText();
                        replicas[i] = byRack.computeIfAbsent(rack, r -> new Node(byRack.size() + 1, "127.0.0.1", 9093 + byRack.size(), r));
                    }
                }
                Node leader = replicas.length > 0 ? replicas[0] : null;
                partitions.add(new PartitionInfo(name, p, leader, replicas, replicas));
            }
        }
        List<Node> nodes = new ArrayList<>(byRack.values());
        nodes.add(rackless);
        return new Cluster("oracle", nodes, partitions, new HashSet<>(), new HashSet<>());
    }

    static GroupSubscription subscriptions(JsonNode members) {
        Map<String, Subscription> subs = new HashMap<>();
        for (JsonNode m : members) {
            List<String> topics = new ArrayList<>();
            for (JsonNode t : m.get("topics")) topics.add(t.asText());
            JsonNode rack = m.get("rack");
            Optional<String> rackId = rack == null || rack.isNull() ? Optional.empty() : Optional.of(rack.asText());
            Subscription s = new Subscription(topics, null, new ArrayList<>(), -1, rackId);
            JsonNode instance = m.get("instanceId");
            if (instance != null && !instance.isNull()) s.setGroupInstanceId(Optional.of(instance.asText()));
            subs.put(m.get("id").asText(), s);
        }
        return new GroupSubscription(subs);
    }

    static ObjectNode run(ConsumerPartitionAssignor assignor, Cluster cluster, GroupSubscription subs) {
        Map<String, ConsumerPartitionAssignor.Assignment> out = assignor.assign(cluster, subs).groupAssignment();
        ObjectNode result = JSON.createObjectNode();
        for (String member : new java.util.TreeSet<>(subs.groupSubscription().keySet())) {
            Map<String, List<Integer>> byTopic = new TreeMap<>();
            ConsumerPartitionAssignor.Assignment a = out.get(member);
            if (a != null) for (TopicPartition tp : a.partitions()) byTopic.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(tp.partition());
            ObjectNode topics = result.putObject(member);
            for (Map.Entry<String, List<Integer>> e : byTopic.entrySet()) {
                ArrayNode list = topics.putArray(e.getKey());
                e.getValue().stream().sorted().forEach(list::add);
            }
        }
        return result;
    }

    public static void main(String[] args) throws Exception {
        // Escaped output: member ids and topics with any character travel escaped, surrogates included.
        JSON.getFactory().configure(JsonGenerator.Feature.ESCAPE_NON_ASCII, true);
        JsonNode groups = JSON.readTree(System.in);
        ArrayNode answers = JSON.createArrayNode();
        for (JsonNode g : groups) {
            Cluster cluster = cluster(g.get("topics"));
            GroupSubscription subs = subscriptions(g.get("members"));
            ObjectNode answer = answers.addObject();
            answer.set("range", run(new RangeAssignor(), cluster, subs));
            answer.set("round-robin", run(new RoundRobinAssignor(), cluster, subs));
        }
        JSON.writeValue(System.out, answers);
    }
}
