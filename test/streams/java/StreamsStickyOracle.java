// Runs the Kafka 4.4.0 broker's streams-group assignor (StickyTaskAssignor, group-coordinator jar)
// on groups read from stdin and prints what it assigns. Members go in a HashMap keyed by member id,
// as the broker's target-assignment builder hands them over, so the answer is the broker's; with
// `order linked` before the first group, in a LinkedHashMap in input order instead (memberIds()
// then lists them as given).
//
// Input, one record per line, fields separated by one space, strings URL-encoded (UTF-8):
//   group <name> <numStandbys>
//   sub <id> <partitions> <stateful 0|1>          in the topology's order
//   member <memberId> <processId>
//   active <task>...                              the last member's active tasks, <sub>_<partition>
//   standby <task>...                             the last member's standby tasks
//   offset <task> <sum>                           one reported offset sum of the last member
//   end
// With `time <runs>` before the first group, each group is also assigned <runs> more times and
// the wall times are printed (first = cold).
// Output per group: `group <name>`, then `a <memberId> <task>...` and `s <memberId> <task>...` per
// member (tasks sorted), `ms <times...>` with `time`, and `end`; or `error <name> <message>`.
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentConfigsImpl;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberMetadataAndStateImpl;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

public class StreamsStickyOracle {
  static final class Member {
    final String id;
    final String process;
    final Map<String, Set<Integer>> active = new HashMap<>();
    final Map<String, Set<Integer>> standby = new HashMap<>();
    final Map<String, Map<Integer, Long>> offsets = new HashMap<>();
    Member(String id, String process) { this.id = id; this.process = process; }
  }

  static boolean linked = false;

  static String dec(String s) { return URLDecoder.decode(s, StandardCharsets.UTF_8); }

  static void addTask(Map<String, Set<Integer>> into, String task) {
    int cut = task.lastIndexOf('_');
    into.computeIfAbsent(task.substring(0, cut), k -> new TreeSet<>()).add(Integer.parseInt(task.substring(cut + 1)));
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    StringBuilder out = new StringBuilder();
    int runs = 0;
    String name = null;
    int numStandbys = 0;
    LinkedHashMap<String, int[]> subs = new LinkedHashMap<>();
    List<Member> members = new ArrayList<>();
    for (String line; (line = in.readLine()) != null; ) {
      String[] f = line.split(" ");
      switch (f[0]) {
        case "time": runs = Integer.parseInt(f[1]); break;
        case "order": linked = f[1].equals("linked"); break;
        case "group": name = dec(f[1]); numStandbys = Integer.parseInt(f[2]); subs.clear(); members.clear(); break;
        case "sub": subs.put(dec(f[1]), new int[] {Integer.parseInt(f[2]), Integer.parseInt(f[3])}); break;
        case "member": members.add(new Member(dec(f[1]), dec(f[2]))); break;
        case "active": for (int i = 1; i < f.length; i++) addTask(members.get(members.size() - 1).active, dec(f[i])); break;
        case "standby": for (int i = 1; i < f.length; i++) addTask(members.get(members.size() - 1).standby, dec(f[i])); break;
        case "offset": {
          String task = dec(f[1]);
          int cut = task.lastIndexOf('_');
          members.get(members.size() - 1).offsets.computeIfAbsent(task.substring(0, cut), k -> new HashMap<>()).put(Integer.parseInt(task.substring(cut + 1)), Long.parseLong(f[2]));
          break;
        }
        case "end": out.append(run(name, numStandbys, subs, members, runs)); break;
        default: throw new IllegalArgumentException("unknown record " + f[0]);
      }
    }
    System.out.print(out);
    System.out.flush();
  }

  static String run(String name, int numStandbys, Map<String, int[]> subs, List<Member> members, int runs) {
    TopologyDescriber topology = new TopologyDescriber() {
      public List<String> subtopologies() { return new ArrayList<>(subs.keySet()); }
      public int maxNumInputPartitions(String id) { return subs.get(id)[0]; }
      public boolean isStateful(String id) { return subs.get(id)[1] == 1; }
    };
    StringBuilder sb = new StringBuilder();
    try {
      GroupAssignment result = null;
      List<Double> ms = new ArrayList<>();
      for (int r = 0; r <= runs; r++) {
        Map<String, MemberMetadataAndStateImpl> spec = linked ? new LinkedHashMap<>() : new HashMap<>();
        for (Member m : members) {
          spec.put(m.id, new MemberMetadataAndStateImpl(Optional.empty(), Optional.empty(), m.process, Map.of(), m.active, m.standby, Map.of(), m.offsets, Map.of()));
        }
        GroupSpecImpl group = new GroupSpecImpl(spec, new AssignmentConfigsImpl(numStandbys, List.of()));
        long t0 = System.nanoTime();
        result = new StickyTaskAssignor().assign(group, topology);
        ms.add((System.nanoTime() - t0) / 1e6);
      }
      sb.append("group ").append(name).append('\n');
      for (Map.Entry<String, MemberAssignment> e : new java.util.TreeMap<>(result.members()).entrySet()) {
        sb.append("a ").append(e.getKey()).append(tasks(e.getValue().activeTasks())).append('\n');
        sb.append("s ").append(e.getKey()).append(tasks(e.getValue().standbyTasks())).append('\n');
      }
      if (runs > 0) {
        sb.append("ms");
        for (double t : ms) sb.append(' ').append(String.format("%.3f", t));
        sb.append('\n');
      }
      sb.append("end\n");
    } catch (Exception e) {
      sb.append("error ").append(name).append(' ').append(String.valueOf(e.getMessage()).replace('\n', ' ')).append('\n');
    }
    return sb.toString();
  }

  static String tasks(Map<String, Set<Integer>> m) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, Set<Integer>> e : new java.util.TreeMap<>(m).entrySet()) {
      for (int p : new TreeSet<>(e.getValue())) sb.append(' ').append(e.getKey()).append('_').append(p);
    }
    return sb.toString();
  }
}
