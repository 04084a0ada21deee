// Runs Kafka Streams' own standby step on clusters read from stdin and writes the placements it
// makes, in order, to the file named by the first argument (stdout is left to Kafka's logging).
//
// It sits in Kafka's package because the classes it drives are package-private, as Kafka's own
// tests do. Per cluster it does what HighAvailabilityTaskAssignor.assignStandbyReplicaTasks does:
// nothing when num.standby.replicas = 0 (unless the cluster asks for the unguarded call, quirk
// X04), else StandbyTaskAssignorFactory.create(configs, null) (tag-aware when tags are
// configured, else the default assignor) and assign(clients as a TreeMap, all tasks, stateful
// tasks as a TreeSet, configs). Clients are ClientStates built as Kafka's tests build them
// (process id, capacity, tags; actives and existing standbys assigned before the call); a
// subclass records every assignStandby the assignor makes, so the order of placements is kept.
//
// Input, one record per line, fields separated by one space, strings URL-encoded (UTF-8):
//   cluster <name> <numStandbys> <guard 0|1>
//   keys <key>...                       rack.aware.assignment.tags, in order (may be empty)
//   client <uuid> <capacity> <key>=<value>...
//   active <task>...                    the last client's actives (stateful and stateless)
//   standby <task>...                   the last client's existing standbys
//   tasks <task>...                     the stateful tasks
//   end
// With `time <runs>` before the first cluster, every cluster is also placed <runs> more times on
// fresh copies and the wall time of each run is written (first = cold, the rest JIT-warming).
// Output per cluster:
//   cluster <name> <assignor class or "none">
//   p <task> <uuid>                     one line per standby placed, in placement order
//   ms <run times...>                   only with `time`
//   end
// or `error <name> <message>` when Kafka's code throws.
package org.apache.kafka.streams.processor.internals.assignment;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.ProcessId;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

public final class StandbyOracle {
    private StandbyOracle() {
    }

    /** A ClientState that logs the standbys the assignor gives it. */
    static final class RecordingClientState extends ClientState {
        private final List<String> log;
        private final String id;
        boolean recording;

        RecordingClientState(final ProcessId pid, final int capacity, final Map<String, String> tags, final List<String> log) {
            super(pid, capacity, tags);
            this.log = log;
            this.id = pid.id().toString();
        }

        @Override
        public void assignStandby(final TaskId task) {
            super.assignStandby(task);
            if (recording) log.add("p " + task + " " + id);
        }
    }

    /** One client as read: enough to build a fresh ClientState for every run. */
    static final class ClientSpec {
        ProcessId pid;
        int capacity;
        final Map<String, String> tags = new HashMap<>();
        final List<TaskId> active = new ArrayList<>();
        final List<TaskId> standby = new ArrayList<>();
    }

    static final class ClusterSpec {
        String name;
        int numStandbys;
        boolean guard;
        final List<String> keys = new ArrayList<>();
        final List<ClientSpec> clients = new ArrayList<>();
        final Set<TaskId> stateful = new TreeSet<>();
    }

    private static String dec(final String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    private static List<TaskId> tasks(final String[] f) {
        final List<TaskId> out = new ArrayList<>();
        for (int i = 1; i < f.length; i++) out.add(TaskId.parse(f[i]));
        return out;
    }

    /** Places one cluster on fresh ClientStates; returns the assignor's simple name ("none" when guarded). */
    static String place(final ClusterSpec c, final List<String> log) {
        final TreeMap<ProcessId, ClientState> clients = new TreeMap<>();
        final List<RecordingClientState> states = new ArrayList<>();
        final Set<TaskId> all = new LinkedHashSet<>(c.stateful);
        for (final ClientSpec cs : c.clients) {
            final RecordingClientState s = new RecordingClientState(cs.pid, cs.capacity, cs.tags, log);
            for (final TaskId t : cs.active) {
                s.assignActive(t);
                all.add(t);
            }
            for (final TaskId t : cs.standby) s.assignStandby(t);
            s.recording = true;
            states.add(s);
            clients.put(cs.pid, s);
        }
        // HighAvailabilityTaskAssignor returns before the standby step when there is nothing to place.
        if (c.guard && c.numStandbys == 0) return "none";
        final AssignmentConfigs configs = new AssignmentConfigs(0L, 1, c.numStandbys, 60_000L, c.keys);
        final StandbyTaskAssignor assignor = StandbyTaskAssignorFactory.create(configs, null);
        assignor.assign(clients, all, new TreeSet<>(c.stateful), configs);
        return assignor.getClass().getSimpleName();
    }

    public static void main(final String[] args) throws Exception {
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 20);
        try (BufferedWriter out = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(args[0]), StandardCharsets.UTF_8), 1 << 20)) {
            int timedRuns = 0;
            ClusterSpec c = null;
            ClientSpec last = null;
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isEmpty()) continue;
                final String[] f = line.split(" ", -1);
                switch (f[0]) {
                    case "time":
                        timedRuns = Integer.parseInt(f[1]);
                        break;
                    case "cluster":
                        c = new ClusterSpec();
                        c.name = f[1];
                        c.numStandbys = Integer.parseInt(f[2]);
                        c.guard = f[3].equals("1");
                        break;
                    case "keys":
                        for (int i = 1; i < f.length; i++) c.keys.add(dec(f[i]));
                        break;
                    case "client":
                        last = new ClientSpec();
                        last.pid = new ProcessId(UUID.fromString(f[1]));
                        last.capacity = Integer.parseInt(f[2]);
                        for (int i = 3; i < f.length; i++) {
                            final int eq = f[i].indexOf('=');
                            last.tags.put(dec(f[i].substring(0, eq)), dec(f[i].substring(eq + 1)));
                        }
                        c.clients.add(last);
                        break;
                    case "active":
                        last.active.addAll(tasks(f));
                        break;
                    case "standby":
                        last.standby.addAll(tasks(f));
                        break;
                    case "tasks":
                        c.stateful.addAll(tasks(f));
                        break;
                    case "end":
                        run(c, timedRuns, out);
                        c = null;
                        last = null;
                        break;
                    default:
                        throw new IllegalArgumentException("unknown record: " + f[0]);
                }
            }
        }
    }

    private static void run(final ClusterSpec c, final int timedRuns, final BufferedWriter out) throws Exception {
        final List<String> log = new ArrayList<>();
        final String assignor;
        final long[] ms = new long[timedRuns];
        try {
            final long t0 = System.nanoTime();
            assignor = place(c, log);
            if (timedRuns > 0) ms[0] = System.nanoTime() - t0;
            for (int r = 1; r < timedRuns; r++) {
                final long t = System.nanoTime();
                place(c, new ArrayList<>());
                ms[r] = System.nanoTime() - t;
            }
        } catch (final RuntimeException e) {
            out.write("error " + c.name + " " + String.valueOf(e).replace('\n', ' ') + "\n");
            out.flush();
            return;
        }
        out.write("cluster " + c.name + " " + assignor + "\n");
        for (final String p : log) {
            out.write(p);
            out.write('\n');
        }
        if (timedRuns > 0) {
            final StringBuilder sb = new StringBuilder("ms");
            for (final long n : ms) sb.append(' ').append(n / 1e6);
            out.write(sb + "\n");
        }
        out.write("end\n");
        out.flush();
    }
}
