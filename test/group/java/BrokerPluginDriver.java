// Runs the broker plugin (build/assignor-broker.jar, dev.assignor.broker.StickyAssignor) on a batch
// of groups, in one JVM, through the GroupSpec the 4.4.0 broker builds (GroupSpecImpl,
// MemberSubscriptionAndAssignmentImpl, Assignment), for test/group/broker-plugin.test.ts.
//
// stdin: a JSON array of cases, each
//   { "topics": [{ "id": uuid, "partitions": n, "racks"?: [[rack...] per partition] }],   the metadata
//     "members": [{ "id", "rack"?, "topics": [uuid...], "owned"?: { uuid: [p...] } }],     in memberIds() order
//     "mode": "kernel" | "fallback" | "interpreter" | "uniform" }
// "uniform" runs the broker's own UniformAssignor on the same spec, as it stands (no cleaning).
// The spec is built as given, dirt included: subscriptions may name topics the metadata lacks,
// claims may name unknown topics, partitions beyond the count, or a partition two members hold.
//
// stdout: a JSON array, per case { "assignment": { member: { topic: [p ascending] } } (ids sorted),
// "reused": ids of members whose answer is the spec's own map object, "fallbacks": how many calls
// fell back, "error": null or the exception assign() threw }.
import java.io.InputStream;
import java.util.ArrayList;
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
import dev.assignor.broker.StickyAssignor;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;

public class BrokerPluginDriver {
    static final ObjectMapper JSON = new ObjectMapper();

    /** The metadata image: partition counts and replica racks by topic id. */
    record Metadata(Map<Uuid, Integer> counts, Map<Uuid, List<Set<String>>> racks) implements SubscribedTopicDescriber {
        public int numPartitions(Uuid id) {
            return counts.getOrDefault(id, -1);
        }

        public Set<String> racksForPartition(Uuid id, int partition) {
            List<Set<String>> r = racks.get(id);
            return r == null || partition >= r.size() ? Set.of() : r.get(partition);
        }
    }

    static Metadata metadata(JsonNode group) {
        Map<Uuid, Integer> counts = new HashMap<>();
        Map<Uuid, List<Set<String>>> racks = new HashMap<>();
        for (JsonNode t : group.get("topics")) {
            Uuid id = Uuid.fromString(t.get("id").asText());
            counts.put(id, t.get("partitions").asInt());
            if (t.hasNonNull("racks")) {
                List<Set<String>> perPartition = new ArrayList<>();
                for (JsonNode p : t.get("racks")) {
                    Set<String> s = new HashSet<>();
                    for (JsonNode r : p) s.add(r.asText());
                    perPartition.add(s);
                }
                racks.put(id, perPartition);
            }
        }
        return new Metadata(counts, racks);
    }

    /** The broker's GroupSpec with memberIds() in the order the case lists them. */
    static GroupSpecImpl spec(JsonNode group) {
        Map<String, MemberSubscriptionAndAssignmentImpl> members = new LinkedHashMap<>();
        Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
        Set<Set<Uuid>> shapes = new HashSet<>();
        for (JsonNode m : group.get("members")) {
            String id = m.get("id").asText();
            Set<Uuid> topics = new HashSet<>();
            for (JsonNode t : m.get("topics")) topics.add(Uuid.fromString(t.asText()));
            shapes.add(topics);
            Map<Uuid, Set<Integer>> owned = new HashMap<>();
            if (m.hasNonNull("owned")) {
                m.get("owned").fields().forEachRemaining(e -> {
                    Uuid topic = Uuid.fromString(e.getKey());
                    Set<Integer> parts = new HashSet<>();
                    for (JsonNode p : e.getValue()) {
                        parts.add(p.asInt());
                        inverted.computeIfAbsent(topic, k -> new HashMap<>()).put(p.asInt(), id);
                    }
                    owned.put(topic, parts);
                });
            }
            String rack = m.hasNonNull("rack") ? m.get("rack").asText() : null;
            members.put(id, new MemberSubscriptionAndAssignmentImpl(Optional.ofNullable(rack), Optional.empty(), topics, new Assignment(owned)));
        }
        SubscriptionType type = shapes.size() <= 1 ? SubscriptionType.HOMOGENEOUS : SubscriptionType.HETEROGENEOUS;
        return new GroupSpecImpl(members, type, inverted);
    }

    static ObjectNode plain(GroupAssignment result) {
        ObjectNode out = JSON.createObjectNode();
        for (Map.Entry<String, MemberAssignment> m : new TreeMap<>(result.members()).entrySet()) {
            ObjectNode topics = out.putObject(m.getKey());
            TreeMap<String, TreeSet<Integer>> sorted = new TreeMap<>();
            m.getValue().partitions().forEach((id, parts) -> sorted.put(id.toString(), new TreeSet<>(parts)));
            sorted.forEach((id, parts) -> {
                ArrayNode a = topics.putArray(id);
                parts.forEach(a::add);
            });
        }
        return out;
    }

    public static void main(String[] args) throws Exception {
        JsonNode cases;
        try (InputStream in = System.in) {
            cases = JSON.readTree(in);
        }
        StickyAssignor compiled = new StickyAssignor(false);
        StickyAssignor interpreted = new StickyAssignor(true);
        ConsumerGroupPartitionAssignor uniform = new UniformAssignor();
        ArrayNode out = JSON.createArrayNode();
        for (JsonNode group : cases) {
            String mode = group.get("mode").asText();
            ConsumerGroupPartitionAssignor assignor = switch (mode) {
                case "uniform" -> uniform;
                case "interpreter" -> interpreted;
                default -> compiled;
            };
            System.setProperty(StickyAssignor.FORCE_FALLBACK_PROPERTY, String.valueOf(mode.equals("fallback")));
            ObjectNode answer = out.addObject();
            long before = StickyAssignor.fallbackCount();
            try {
                GroupSpecImpl spec = spec(group);
                GroupAssignment result = assignor.assign(spec, metadata(group));
                answer.set("assignment", plain(result));
                answer.putNull("error");
                // Members answered with the very map the spec holds for them (not a copy).
                ArrayNode reused = answer.putArray("reused");
                for (String id : new TreeSet<>(spec.memberIds())) {
                    MemberAssignment a = result.members().get(id);
                    if (a != null && a.partitions() == spec.memberAssignment(id).partitions()) reused.add(id);
                }
            } catch (Throwable e) {
                answer.putNull("assignment");
                answer.put("error", e.toString());
            }
            answer.put("fallbacks", StickyAssignor.fallbackCount() - before);
        }
        System.out.println(JSON.writeValueAsString(out));
    }
}
