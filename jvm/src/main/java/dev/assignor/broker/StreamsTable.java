package dev.assignor.broker;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import org.apache.kafka.coordinator.group.api.streams.assignor.AssignmentConfigs;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentMetadata;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentState;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;

/**
 * A streams group and the broker's own answer for it, as the flat tables of the streams spread
 * kernel (SPREAD_HEADER in src/engine/abi.ts), in the canonical order src/streams/input.ts uses:
 * processes in ProcessId order (UUIDs as two signed longs, then other ids by String.compareTo),
 * members by id, subtopologies numerically when every id is a number, else by String.compareTo.
 * Glue only: it orders, numbers and counts; the kernel decides.
 */
final class StreamsTable {
    private static final Pattern UUID = Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Pattern NUMBER = Pattern.compile("0|[1-9][0-9]{0,9}");

    /** Members in canonical order, and each one's process index. */
    final List<String> members = new ArrayList<>();
    final int[] processStart;
    final int keys;
    final int[] processValues;
    final int width;
    final int[] memberLoad;
    /** The stateful tasks in order: subtopology id and partition. */
    final List<String> taskSubtopology = new ArrayList<>();
    final List<Integer> taskPartition = new ArrayList<>();
    final int[] activeMember;
    final int[] standbyMember;
    /** Where each stateful subtopology's task 0 is in the task order. */
    private final Map<String, Integer> firstTask = new HashMap<>();

    /** spec: from canonical(), so memberIds() lists the members grouped by process, in canonical order. */
    private StreamsTable(GroupSpec spec, TopologyDescriber topology, GroupAssignment baseline) {
        List<Integer> starts = new ArrayList<>(List.of(0));
        String last = null;
        for (String id : spec.memberIds()) {
            String process = spec.memberMetadata(id).processId();
            if (last != null && !process.equals(last)) starts.add(members.size());
            members.add(id);
            last = process;
        }
        if (!members.isEmpty()) starts.add(members.size());
        processStart = starts.stream().mapToInt(Integer::intValue).toArray();
        int processCount = processStart.length - 1;
        AssignmentConfigs configs = spec.configs();
        List<String> tagKeys = configs.rackAwareAssignmentTags();
        keys = tagKeys.size();
        processValues = new int[processCount * keys];
        List<Map<String, Integer>> valueIds = new ArrayList<>();
        for (int k = 0; k < keys; k++) valueIds.add(new HashMap<>());
        for (int q = 0; q < processCount; q++) {
            // A process's tags are its first member's (the members of one process share them).
            Map<String, String> tags = spec.memberMetadata(members.get(processStart[q])).clientTags();
            for (int k = 0; k < keys; k++) {
                String v = tags.get(tagKeys.get(k));
                Map<String, Integer> ids = valueIds.get(k);
                processValues[q * keys + k] = v == null ? -1 : ids.computeIfAbsent(v, x -> ids.size());
            }
        }

        width = Math.max(0, configs.numStandbyReplicas());
        List<String> subtopologies = new ArrayList<>(topology.subtopologies());
        boolean numeric = subtopologies.stream().allMatch(s -> NUMBER.matcher(s).matches() && Long.parseLong(s) <= Integer.MAX_VALUE);
        subtopologies.sort(numeric ? Comparator.comparingLong(Long::parseLong) : Comparator.<String>naturalOrder());
        for (String s : subtopologies) {
            if (!topology.isStateful(s)) continue;
            firstTask.put(s, taskSubtopology.size());
            for (int p = 0; p < topology.maxNumInputPartitions(s); p++) {
                taskSubtopology.add(s);
                taskPartition.add(p);
            }
        }
        int tasks = taskSubtopology.size();
        activeMember = new int[tasks];
        standbyMember = new int[tasks * width];
        java.util.Arrays.fill(activeMember, -1);
        java.util.Arrays.fill(standbyMember, -1);
        memberLoad = new int[members.size()];
        int[] filled = new int[tasks];
        for (int m = 0; m < members.size(); m++) {
            MemberAssignment a = baseline.members().get(members.get(m));
            if (a == null) continue;
            memberLoad[m] += count(a.activeTasks()) + count(a.standbyTasks());
            for (Map.Entry<String, Set<Integer>> e : a.activeTasks().entrySet()) {
                Integer first = firstTask.get(e.getKey());
                if (first != null) for (int p : e.getValue()) activeMember[first + p] = m;
            }
            // Members in canonical order, so each task's slots list its standby members ascending.
            for (Map.Entry<String, Set<Integer>> e : a.standbyTasks().entrySet()) {
                Integer first = firstTask.get(e.getKey());
                if (first == null) continue;
                for (int p : e.getValue()) if (filled[first + p] < width) standbyMember[(first + p) * width + filled[first + p]++] = m;
            }
        }
        for (int t = 0; t < tasks; t++) {
            if (activeMember[t] < 0) throw new IllegalStateException("the broker's answer runs no active for task " + taskSubtopology.get(t) + "_" + taskPartition.get(t));
        }
    }

    /** spec must come from canonical(). */
    static StreamsTable read(GroupSpec spec, TopologyDescriber topology, GroupAssignment baseline) {
        return new StreamsTable(spec, topology, baseline);
    }

    private static int count(Map<String, Set<Integer>> tasks) {
        int n = 0;
        for (Set<Integer> s : tasks.values()) n += s.size();
        return n;
    }

    /** ProcessId order: UUIDs first, as two signed longs; then other ids by String.compareTo. */
    static int compareProcessIds(String a, String b) {
        boolean ua = UUID.matcher(a).matches();
        boolean ub = UUID.matcher(b).matches();
        if (ua && ub) {
            long[] x = halves(a);
            long[] y = halves(b);
            int c = Long.compare(x[0], y[0]);
            return c != 0 ? c : Long.compare(x[1], y[1]);
        }
        if (ua != ub) return ua ? -1 : 1;
        return a.compareTo(b);
    }

    private static long[] halves(String uuid) {
        String hex = uuid.replace("-", "");
        return new long[] {Long.parseUnsignedLong(hex.substring(0, 16), 16), Long.parseUnsignedLong(hex.substring(16), 16)};
    }

    /** The members in canonical order, as the GroupSpec the broker's assignor is handed (memberIds() in that order). */
    static GroupSpec canonical(GroupSpec spec) {
        Map<String, List<String>> byProcess = new HashMap<>();
        for (String id : spec.memberIds()) byProcess.computeIfAbsent(spec.memberMetadata(id).processId(), k -> new ArrayList<>()).add(id);
        List<String> processes = new ArrayList<>(byProcess.keySet());
        processes.sort(StreamsTable::compareProcessIds);
        List<String> order = new ArrayList<>();
        for (String p : processes) {
            List<String> ms = byProcess.get(p);
            ms.sort(Comparator.naturalOrder());
            order.addAll(ms);
        }
        return new GroupSpec() {
            @Override public Collection<String> memberIds() { return order; }
            @Override public MemberAssignmentMetadata memberMetadata(String id) { return spec.memberMetadata(id); }
            @Override public MemberAssignmentState memberAssignmentState(String id) { return spec.memberAssignmentState(id); }
            @Override public AssignmentConfigs configs() { return spec.configs(); }
        };
    }

    /** The broker's actives with the kernel's standbys (standby member per task and slot). */
    GroupAssignment assignment(GroupAssignment baseline, int[] standbys) {
        Map<String, Map<String, Set<Integer>>> standby = new LinkedHashMap<>();
        for (String m : members) standby.put(m, new HashMap<>());
        for (int t = 0; t < activeMember.length; t++) {
            for (int j = 0; j < width; j++) {
                int m = standbys[t * width + j];
                if (m >= 0) standby.get(members.get(m)).computeIfAbsent(taskSubtopology.get(t), k -> new TreeSet<>()).add(taskPartition.get(t));
            }
        }
        Map<String, MemberAssignment> out = new HashMap<>();
        for (Map.Entry<String, MemberAssignment> e : baseline.members().entrySet()) {
            Map<String, Set<Integer>> mine = standby.getOrDefault(e.getKey(), new HashMap<>());
            // Standbys of stateless subtopologies (none in Kafka's answer) would be kept as they are.
            for (Map.Entry<String, Set<Integer>> s : e.getValue().standbyTasks().entrySet()) {
                if (!firstTask.containsKey(s.getKey())) mine.computeIfAbsent(s.getKey(), k -> new TreeSet<>()).addAll(s.getValue());
            }
            out.put(e.getKey(), new MemberAssignment(new HashMap<>(e.getValue().activeTasks()), mine));
        }
        return new GroupAssignment(out);
    }
}
