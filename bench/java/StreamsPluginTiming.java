// Times the streams broker plugin (dev.assignor.broker.StreamsAssignor, assignor-streams) against the
// 4.4.0 broker's StickyTaskAssignor in one JVM, on bench/streams.ts's first group: TASKS tasks in 10
// subtopologies (the even ones stateful), MEMBERS members, 4 per process, processes over 3 zones x 3
// clusters, one standby, no previous assignment; members in a HashMap as the broker hands them.
// Prints one line per assignor: name, then every run's ms (the first cold), and the tasks whose
// standby is in another zone and another cluster than the active.
//
//   java -cp <jar>:<coordinator classpath>:<out> StreamsPluginTiming TASKS MEMBERS RUNS [interpreter]
import dev.assignor.broker.StreamsAssignor;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignor;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentConfigsImpl;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberMetadataAndStateImpl;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

public class StreamsPluginTiming {
    public static void main(String[] args) {
        int tasks = Integer.parseInt(args[0]);
        int members = Integer.parseInt(args[1]);
        int runs = Integer.parseInt(args[2]);
        String[] zones = {"z1", "z2", "z3"};
        String[] clusters = {"c1", "c2", "c3"};
        Map<String, MemberMetadataAndStateImpl> spec = new HashMap<>();
        Map<String, Map<String, String>> tagsOf = new HashMap<>();
        for (int m = 0; m < members; m++) {
            int q = m / 4;
            String process = String.format("00000000-0000-4000-8000-%012x", q);
            Map<String, String> tags = Map.of("zone", zones[q % 3], "cluster", clusters[(q / 3) % 3]);
            tagsOf.put("m-" + q + "-" + (m % 4), tags);
            spec.put("m-" + q + "-" + (m % 4), new MemberMetadataAndStateImpl(Optional.empty(), Optional.empty(), process, tags, Map.of(), Map.of(), Map.of(), Map.of(), Map.of()));
        }
        GroupSpecImpl group = new GroupSpecImpl(spec, new AssignmentConfigsImpl(1, List.of("zone", "cluster")));
        int perSub = (tasks + 9) / 10;
        TopologyDescriber topology = new TopologyDescriber() {
            public List<String> subtopologies() {
                List<String> out = new ArrayList<>();
                for (int s = 0; s < 10; s++) out.add(String.valueOf(s));
                return out;
            }
            public int maxNumInputPartitions(String id) { return perSub; }
            public boolean isStateful(String id) { return Integer.parseInt(id) % 2 == 0; }
        };
        boolean interpreted = args.length > 3 && args[3].equals("interpreter");
        TaskAssignor[] assignors = {new StickyTaskAssignor(), new StreamsAssignor(interpreted)};
        for (TaskAssignor a : assignors) {
            StringBuilder line = new StringBuilder(a.name());
            GroupAssignment result = null;
            for (int r = 0; r <= runs; r++) {
                long t0 = System.nanoTime();
                result = a.assign(group, topology);
                line.append(' ').append(String.format("%.1f", (System.nanoTime() - t0) / 1e6));
            }
            line.append(" spread ").append(spread(result, tagsOf));
            System.out.println(line);
        }
        System.out.println("fallbacks " + StreamsAssignor.fallbackCount());
    }

    static int spread(GroupAssignment a, Map<String, Map<String, String>> tagsOf) {
        Map<String, String> active = new HashMap<>();
        Map<String, String> standby = new HashMap<>();
        for (Map.Entry<String, MemberAssignment> e : a.members().entrySet()) {
            for (Map.Entry<String, Set<Integer>> t : e.getValue().activeTasks().entrySet()) for (int p : t.getValue()) active.put(t.getKey() + "_" + p, e.getKey());
            for (Map.Entry<String, Set<Integer>> t : e.getValue().standbyTasks().entrySet()) for (int p : t.getValue()) standby.put(t.getKey() + "_" + p, e.getKey());
        }
        int n = 0;
        for (Map.Entry<String, String> e : standby.entrySet()) {
            Map<String, String> x = tagsOf.get(active.get(e.getKey()));
            Map<String, String> y = tagsOf.get(e.getValue());
            if (!x.get("zone").equals(y.get("zone")) && !x.get("cluster").equals(y.get("cluster"))) n++;
        }
        return n;
    }
}
