// Runs the broker plugin for streams groups (dev.assignor.broker.StreamsAssignor, from
// build/assignor-broker.jar) on groups read from stdin as JSON, the way the 4.4 broker calls it: a
// GroupSpecImpl of MemberMetadataAndStateImpl (members in input order), AssignmentConfigsImpl with
// the standby count and the tag keys, and a TopologyDescriber of the subtopologies.
//
// Input: a JSON array of cases { numStandbys, tagKeys, subtopologies: [{ id, partitions, stateful }],
// processes: [{ id, tags, members: [{ id, active, standby, offsets }] }], mode }, where mode is
// "plugin", "interpreter" (Chicory's interpreter) or "fallback" (-Dassignor.broker.forceFallback).
// Output: a JSON array of { members: { id: { active: [task], standby: [task] } }, fallbacks, error }.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.assignor.broker.StreamsAssignor;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentConfigsImpl;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberMetadataAndStateImpl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

public class StreamsPluginDriver {
    public static void main(String[] args) throws Exception {
        ObjectMapper json = new ObjectMapper();
        JsonNode cases = json.readTree(System.in);
        ArrayNode out = json.createArrayNode();
        StreamsAssignor compiled = new StreamsAssignor(false);
        StreamsAssignor interpreted = new StreamsAssignor(true);
        for (JsonNode c : cases) {
            ObjectNode answer = out.addObject();
            String mode = c.get("mode").asText();
            System.setProperty("assignor.broker.forceFallback", String.valueOf(mode.equals("fallback")));
            long before = StreamsAssignor.fallbackCount();
            try {
                GroupAssignment a = (mode.equals("interpreter") ? interpreted : compiled).assign(spec(c), topology(c));
                ObjectNode members = answer.putObject("members");
                for (Map.Entry<String, MemberAssignment> e : new TreeMap<>(a.members()).entrySet()) {
                    ObjectNode m = members.putObject(e.getKey());
                    tasks(m.putArray("active"), e.getValue().activeTasks());
                    tasks(m.putArray("standby"), e.getValue().standbyTasks());
                }
            } catch (Exception e) {
                answer.put("error", String.valueOf(e.getMessage()));
            }
            answer.put("fallbacks", StreamsAssignor.fallbackCount() - before);
        }
        System.out.print(json.writeValueAsString(out));
    }

    static void tasks(ArrayNode into, Map<String, Set<Integer>> tasks) {
        for (Map.Entry<String, Set<Integer>> e : new TreeMap<>(tasks).entrySet()) {
            for (int p : new TreeSet<>(e.getValue())) into.add(e.getKey() + "_" + p);
        }
    }

    static Map<String, Set<Integer>> taskMap(JsonNode list) {
        Map<String, Set<Integer>> out = new HashMap<>();
        if (list == null) return out;
        for (JsonNode t : list) {
            String id = t.asText();
            int cut = id.lastIndexOf('_');
            out.computeIfAbsent(id.substring(0, cut), k -> new TreeSet<>()).add(Integer.parseInt(id.substring(cut + 1)));
        }
        return out;
    }

    static GroupSpecImpl spec(JsonNode c) {
        Map<String, MemberMetadataAndStateImpl> members = new LinkedHashMap<>();
        for (JsonNode p : c.get("processes")) {
            Map<String, String> tags = new HashMap<>();
            if (p.has("tags")) p.get("tags").fields().forEachRemaining(e -> tags.put(e.getKey(), e.getValue().asText()));
            for (JsonNode m : p.get("members")) {
                Map<String, Map<Integer, Long>> offsets = new HashMap<>();
                if (m.has("offsets")) {
                    m.get("offsets").fields().forEachRemaining(e -> {
                        int cut = e.getKey().lastIndexOf('_');
                        offsets.computeIfAbsent(e.getKey().substring(0, cut), k -> new HashMap<>()).put(Integer.parseInt(e.getKey().substring(cut + 1)), e.getValue().asLong());
                    });
                }
                members.put(m.get("id").asText(), new MemberMetadataAndStateImpl(Optional.empty(), Optional.empty(), p.get("id").asText(), tags,
                    taskMap(m.get("active")), taskMap(m.get("standby")), Map.of(), offsets, Map.of()));
            }
        }
        List<String> keys = new ArrayList<>();
        if (c.has("tagKeys")) for (JsonNode k : c.get("tagKeys")) keys.add(k.asText());
        return new GroupSpecImpl(members, new AssignmentConfigsImpl(c.has("numStandbys") ? c.get("numStandbys").asInt() : 0, keys));
    }

    static TopologyDescriber topology(JsonNode c) {
        Map<String, JsonNode> subs = new LinkedHashMap<>();
        for (JsonNode s : c.get("subtopologies")) subs.put(s.get("id").asText(), s);
        return new TopologyDescriber() {
            public List<String> subtopologies() { return new ArrayList<>(subs.keySet()); }
            public int maxNumInputPartitions(String id) { return subs.get(id).get("partitions").asInt(); }
            public boolean isStateful(String id) { return subs.get(id).has("stateful") && subs.get(id).get("stateful").asBoolean(); }
        };
    }
}
