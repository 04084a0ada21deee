// Runs the 4.4.0 broker's own KIP-848 assignors (UniformAssignor, RangeAssignor from
// kafka-group-coordinator, Maven Central) on a batch of groups, in one JVM, through the GroupSpec
// the broker builds (GroupSpecImpl, MemberSubscriptionAndAssignmentImpl, TopicIds, Assignment).
//
// stdin: a JSON array of groups in assignor's group shape, each with "ids": { topic name -> topic id }.
// The broker's maps are filled in the canonical order of docs/group.md: members by id, each
// member's subscribed names into a HashSet by name, its current assignment put by topic name with
// a HashSet of its partitions (as Assignment.fromRecord builds it). Claims the broker could not
// hold are dropped first, as assignor does: topics without metadata or not subscribed by the
// claimant, partitions beyond the count, and the loser of a claim two members make (newest
// generation wins, then the first member by id).
//
// stdout: a JSON array, per group { "uniform": A, "range": A, "uniformOrderFree": bool } where A
// maps member id -> topic -> partitions ascending (every member present), and uniformOrderFree says
// whether uniform gave the same answer with the members' map filled in three other orders.
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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

public class ConsumerProtocolOracle {
    static final ObjectMapper JSON = new ObjectMapper();

    /** Topic names and ids both ways, and partition counts: the metadata image the broker would hold. */
    static final class Metadata implements TopicIds.TopicResolver, SubscribedTopicDescriber {
        final Map<String, Uuid> ids = new HashMap<>();
        final Map<Uuid, String> names = new HashMap<>();
        final Map<String, Integer> counts = new HashMap<>();

        Metadata(JsonNode group) {
            for (JsonNode t : group.get("topics")) {
                String name = t.get("name").asText();
                Uuid id = Uuid.fromString(group.get("ids").get(name).asText());
                ids.put(name, id);
                names.put(id, name);
                counts.put(name, t.get("partitions").asInt());
            }
        }

        public CoordinatorMetadataImage image() { return null; }
        public String name(Uuid id) { return names.get(id); }
        public Uuid id(String name) { return ids.get(name); }
        public void clear() {}
        public int numPartitions(Uuid id) { return names.containsKey(id) ? counts.get(names.get(id)) : -1; }
        public Set<String> racksForPartition(Uuid id, int partition) { return Set.of(); }
    }

    record Member(String id, String instanceId, String rack, List<String> topics, int generation, JsonNode owned) {}

    static List<Member> members(JsonNode group) {
        List<Member> out = new ArrayList<>();
        for (JsonNode m : group.get("members")) {
            List<String> topics = new ArrayList<>();
            for (JsonNode t : m.get("topics")) if (!topics.contains(t.asText())) topics.add(t.asText());
            String instanceId = m.hasNonNull("instanceId") ? m.get("instanceId").asText() : null;
            String rack = m.hasNonNull("rack") && !m.get("rack").asText().isEmpty() ? m.get("rack").asText() : null;
            int generation = m.has("generation") ? m.get("generation").asInt() : 0;
            out.add(new Member(m.get("id").asText(), instanceId, rack, topics, generation, m.get("owned")));
        }
        out.sort(Comparator.comparing(Member::id));
        return out;
    }

    /** Current owner per (topic, partition) after dropping what the broker could not hold. */
    static Map<String, Map<Integer, Member>> currentOwners(List<Member> members, Metadata md) {
        Map<String, Map<Integer, Member>> owners = new TreeMap<>();
        Map<String, Map<Integer, Integer>> generations = new HashMap<>();
        for (Member m : members) {
            if (m.owned() == null || m.owned().isNull()) continue;
            m.owned().fields().forEachRemaining(e -> {
                String topic = e.getKey();
                if (!md.counts.containsKey(topic) || !m.topics().contains(topic)) return;
                for (JsonNode p : e.getValue()) {
                    int partition = p.asInt();
                    if (partition >= md.counts.get(topic)) continue;
                    Map<Integer, Integer> gens = generations.computeIfAbsent(topic, k -> new HashMap<>());
                    Integer held = gens.get(partition);
                    if (held != null && held >= m.generation()) continue;
                    gens.put(partition, m.generation());
                    owners.computeIfAbsent(topic, k -> new TreeMap<>()).put(partition, m);
                }
            });
        }
        return owners;
    }

    static SubscriptionType subscriptionType(List<Member> members) {
        Map<String, Integer> subscribers = new HashMap<>();
        for (Member m : members) for (String t : m.topics()) subscribers.merge(t, 1, Integer::sum);
        for (int n : subscribers.values()) if (n != members.size()) return SubscriptionType.HETEROGENEOUS;
        return SubscriptionType.HOMOGENEOUS;
    }

    /** The broker's GroupSpec with its members' map filled in `order`: a HashMap, or (`linked`) a map that iterates in that order. */
    static GroupSpecImpl spec(List<Member> order, Map<String, Map<Integer, Member>> owners, Metadata md, boolean linked) {
        Map<String, MemberSubscriptionAndAssignmentImpl> specs = linked ? new LinkedHashMap<>() : new HashMap<>();
        Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
        for (Member m : order) {
            // Put by topic name, each partition set built from its ascending list, as Assignment.fromRecord does.
            Map<Uuid, Set<Integer>> current = new HashMap<>();
            for (Map.Entry<String, Map<Integer, Member>> e : owners.entrySet()) {
                List<Integer> parts = new ArrayList<>();
                e.getValue().forEach((p, owner) -> { if (owner == m) parts.add(p); });
                if (!parts.isEmpty()) current.put(md.id(e.getKey()), new HashSet<>(parts));
            }
            Set<String> names = new HashSet<>(new TreeSet<>(m.topics()));
            specs.put(m.id(), new MemberSubscriptionAndAssignmentImpl(Optional.ofNullable(m.rack()), Optional.ofNullable(m.instanceId()), new TopicIds(names, md), new Assignment(current)));
        }
        owners.forEach((topic, parts) -> {
            Map<Integer, String> byPartition = new HashMap<>();
            parts.forEach((p, owner) -> byPartition.put(p, owner.id()));
            inverted.put(md.id(topic), byPartition);
        });
        return new GroupSpecImpl(Collections.unmodifiableMap(specs), subscriptionType(order), inverted);
    }

    static ObjectNode plain(GroupAssignment result, List<Member> members, Metadata md) {
        ObjectNode out = JSON.createObjectNode();
        List<Member> byId = new ArrayList<>(members);
        byId.sort(Comparator.comparing(Member::id));
        for (Member m : byId) {
            TreeMap<String, List<Integer>> topics = new TreeMap<>();
            MemberAssignment a = result.members().get(m.id());
            if (a != null) a.partitions().forEach((id, parts) -> {
                List<Integer> sorted = new ArrayList<>(parts);
                Collections.sort(sorted);
                if (!sorted.isEmpty()) topics.put(md.name(id), sorted);
            });
            ObjectNode t = out.putObject(m.id());
            topics.forEach((name, parts) -> {
                ArrayNode list = t.putArray(name);
                parts.forEach(list::add);
            });
        }
        return out;
    }

    static ObjectNode run(ConsumerGroupPartitionAssignor assignor, List<Member> order, boolean linked, Map<String, Map<Integer, Member>> owners, Metadata md) {
        return plain(assignor.assign(spec(order, owners, md, linked), md), order, md);
    }

    public static void main(String[] args) throws Exception {
        JsonNode groups = JSON.readTree(System.in);
        ArrayNode out = JSON.createArrayNode();
        UniformAssignor uniform = new UniformAssignor();
        RangeAssignor range = new RangeAssignor();
        for (JsonNode group : groups) {
            Metadata md = new Metadata(group);
            List<Member> members = members(group);
            Map<String, Map<Integer, Member>> owners = currentOwners(members, md);
            ObjectNode answer = out.addObject();
            ObjectNode canonical = run(uniform, members, false, owners, md);
            answer.set("uniform", canonical);
            answer.set("range", run(range, members, false, owners, md));
            boolean orderFree = true;
            for (int k = 0; k < 3 && orderFree; k++) {
                List<Member> other = new ArrayList<>(members);
                if (k == 0) Collections.reverse(other);
                else Collections.shuffle(other, new java.util.Random(k));
                orderFree = canonical.equals(run(uniform, other, true, owners, md));
            }
            answer.put("uniformOrderFree", orderFree);
        }
        JSON.writeValue(System.out, out);
    }
}
