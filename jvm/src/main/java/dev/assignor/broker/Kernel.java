package dev.assignor.broker;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.util.List;
import java.util.function.Function;

import com.dylibso.chicory.compiler.MachineFactoryCompiler;
import com.dylibso.chicory.runtime.ByteArrayMemory;
import com.dylibso.chicory.runtime.ExportFunction;
import com.dylibso.chicory.runtime.HostFunction;
import com.dylibso.chicory.runtime.ImportValues;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.runtime.Machine;
import com.dylibso.chicory.runtime.Memory;
import com.dylibso.chicory.wasm.Parser;
import com.dylibso.chicory.wasm.WasmModule;
import com.dylibso.chicory.wasm.types.FunctionType;
import com.dylibso.chicory.wasm.types.ValType;

/**
 * The npm package's planner (build/release.wasm, inside this jar) run through Chicory: the module is
 * parsed and compiled to JVM bytecode once per class loader; every call gets a new Instance, so its
 * linear memory lives exactly as long as the call (nothing is kept between calls, and calls from
 * several threads never share memory).
 *
 * A problem goes in as a header of src/engine/abi.ts: PLAN_HEADER (PLAN_HEADER_BYTES = 96) for the
 * group planner, SPREAD_HEADER (36) for the streams spread kernel. i32 slots; pointers are byte
 * addresses of little-endian i32 arrays; the planner's growthSkew is an f64 at byte 80.
 */
final class Kernel {
    static final String RESOURCE = "release.wasm";
    /** assignor's default: a member may hold up to twice its share of a grown topic to keep every key. */
    static final double GROWTH_SKEW = 2.0;

    // PLAN_HEADER (src/engine/abi.ts): byte offsets of the header's slots.
    private static final int H_MEMBERS = 0, H_TOPICS = 4, H_RACK_COUNT = 8, H_CO_SETS = 12, H_INFER_GROWTH = 16;
    private static final int H_COUNTS = 20, H_FROM = 24, H_LIST_START = 28, H_LIST_MEMBERS = 32, H_OWNER = 36;
    private static final int H_MEMBER_RACK = 40, H_RACK_START = 44, H_RACKS = 48, H_CO_START = 52, H_CO_TOPICS = 56;
    private static final int H_OUT_OWNER = 60, H_OUT_GROWTH = 64, H_OUT_GROWTH_COUNT = 68, H_OUT_FROM = 72, H_OUT_CO_STATUS = 76;
    private static final int H_GROWTH_SKEW = 80, H_TOPIC_LIST = 88, H_LISTS = 92;
    private static final int HEADER_BYTES = 96;

    /** Loaded once: the parsed module and its compiled machine factory, or why they could not be had. */
    private static final class Loaded {
        static final WasmModule MODULE;
        static final Throwable MODULE_ERROR;
        static {
            WasmModule module = null;
            Throwable error = null;
            try (InputStream in = Kernel.class.getResourceAsStream(RESOURCE)) {
                if (in == null) throw new IllegalStateException(RESOURCE + " is missing from the jar (run npm run build:jvm)");
                module = Parser.parse(in);
            } catch (Throwable e) {
                error = e;
            }
            MODULE = module;
            MODULE_ERROR = error;
        }
    }

    /** Compiled on first use by the compiled mode only, so the interpreter never pays for it. */
    private static final class Compiled {
        static final Function<Instance, Machine> FACTORY;
        static final Throwable ERROR;
        static {
            Function<Instance, Machine> factory = null;
            Throwable error = Loaded.MODULE_ERROR;
            if (error == null) {
                try {
                    factory = MachineFactoryCompiler.compile(Loaded.MODULE);
                } catch (Throwable e) {
                    error = e;
                }
            }
            FACTORY = factory;
            ERROR = error;
        }
    }

    private static final HostFunction ABORT = new HostFunction("env", "abort",
        FunctionType.of(List.of(ValType.I32, ValType.I32, ValType.I32, ValType.I32), List.of()),
        (instance, args) -> {
            throw new IllegalStateException("the planner aborted (message at " + args[0] + ", file at " + args[1] + ", line " + args[2] + ":" + args[3] + ")");
        });

    private final boolean interpreted;

    Kernel(boolean interpreted) {
        this.interpreted = interpreted;
    }

    /**
     * A kernel loaded (and compiled) now, while the broker starts, rather than in the first
     * rebalance. A failure is only remembered: the broker must start, and the plugin's first call
     * reports it and falls back.
     */
    static Kernel preloaded(boolean interpreted) {
        Kernel k = new Kernel(interpreted);
        try {
            k.load();
        } catch (RuntimeException e) {
            // reported by the first call
        }
        return k;
    }

    /** Loads (and, in compiled mode, compiles) the module now; throws why it cannot be had. */
    void load() {
        if (Loaded.MODULE_ERROR != null) throw new IllegalStateException("cannot load " + RESOURCE, Loaded.MODULE_ERROR);
        if (!interpreted && Compiled.ERROR != null) throw new IllegalStateException("cannot compile " + RESOURCE, Compiled.ERROR);
    }

    private Instance instance() {
        load();
        Instance.Builder b = Instance.builder(Loaded.MODULE).withImportValues(ImportValues.builder().addFunction(ABORT).build());
        if (!interpreted) b.withMachineFactory(Compiled.FACTORY);
        // A byte[] with VarHandle access: fewer bounds checks per load than the ByteBuffer default.
        b.withMemoryFactory(ByteArrayMemory::new);
        return b.build();
    }

    /** One call's memory: allocations from the module's arena, writes and reads of i32 arrays. */
    private static final class Arena {
        final Instance instance;
        final ExportFunction alloc;

        Arena(Instance instance) {
            this.instance = instance;
            this.alloc = instance.export("alloc");
            instance.export("reset").apply();
        }

        /** Room for n i32 (at least one, so every pointer is a real allocation). */
        int room(int n) {
            long bytes = 4L * Math.max(n, 1);
            if (bytes > Integer.MAX_VALUE) throw new IllegalStateException("problem too large: " + n + " entries");
            return (int) alloc.apply(bytes)[0];
        }

        int put(int[] values) {
            int p = room(values.length);
            ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
            b.asIntBuffer().put(values);
            memory().write(p, b.array());
            return p;
        }

        int[] get(int p, int n) {
            int[] out = new int[n];
            IntBuffer in = ByteBuffer.wrap(memory().readBytes(p, 4 * n)).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer();
            in.get(out);
            return out;
        }

        /** Memory may have grown with any allocation or call; read it afresh each time (Chicory's Memory object stays the same, this is cheap). */
        Memory memory() {
            return instance.memory();
        }
    }

    // SPREAD_HEADER (src/engine/abi.ts): byte offsets of the streams spread kernel's header slots.
    private static final int S_PROCESSES = 0, S_KEYS = 4, S_TASKS = 8, S_WIDTH = 12, S_PROCESS_START = 16, S_PROCESS_VALUES = 20;
    private static final int S_MEMBER_LOAD = 24, S_ACTIVE_MEMBER = 28, S_STANDBY_MEMBER = 32;
    private static final int SPREAD_HEADER_BYTES = 36;

    /** Runs streamsSpread on the table and returns the standby member of every (task, slot), as StreamsTable.standbyMember. */
    int[] spread(StreamsTable t) {
        Arena a = new Arena(instance());
        int header = a.room(SPREAD_HEADER_BYTES / 4);
        int processStart = a.put(t.processStart);
        int processValues = a.put(t.processValues);
        int memberLoad = a.put(t.memberLoad);
        int activeMember = a.put(t.activeMember);
        int standbyMember = a.put(t.standbyMember);
        Memory m = a.memory();
        m.writeI32(header + S_PROCESSES, t.processStart.length - 1);
        m.writeI32(header + S_KEYS, t.keys);
        m.writeI32(header + S_TASKS, t.activeMember.length);
        m.writeI32(header + S_WIDTH, t.width);
        m.writeI32(header + S_PROCESS_START, processStart);
        m.writeI32(header + S_PROCESS_VALUES, processValues);
        m.writeI32(header + S_MEMBER_LOAD, memberLoad);
        m.writeI32(header + S_ACTIVE_MEMBER, activeMember);
        m.writeI32(header + S_STANDBY_MEMBER, standbyMember);
        long status = a.instance.export("streamsSpread").apply(header)[0];
        if (status != 0) throw new IllegalStateException("streamsSpread returned " + status);
        return a.get(standbyMember, t.standbyMember.length);
    }

    /**
     * Runs groupPlan on the table and returns the new owner of every flat partition (-1: topic
     * without subscribers). Throws on a non-zero status, a trap or an abort.
     */
    int[] plan(GroupTable g) {
        Arena a = new Arena(instance());
        int members = g.members();
        int topics = g.topics();
        int partitions = g.partitions();
        int header = a.room(HEADER_BYTES / 4);
        int counts = a.put(g.counts);
        int from = a.put(new int[topics]);
        int listStart = a.put(g.lists.listStart);
        int listMembers = a.put(g.lists.listMembers);
        int topicList = a.put(g.lists.topicList);
        int owner = a.put(g.claims.owner);
        boolean racks = g.rackNames.length > 0;
        int memberRack = a.put(racks ? g.memberRack : new int[0]);
        int rackStart = a.put(racks ? g.rackStart : new int[0]);
        int rackList = a.put(racks ? g.racks : new int[0]);
        int coStart = a.put(new int[] {0});
        int coTopics = a.room(0);
        int outOwner = a.room(partitions);
        int outGrowth = a.room(3 * topics);
        int outFrom = a.room(topics);
        int outCoStatus = a.room(0);

        Memory m = a.memory();
        m.writeI32(header + H_MEMBERS, members);
        m.writeI32(header + H_TOPICS, topics);
        m.writeI32(header + H_RACK_COUNT, racks ? g.rackNames.length : 0);
        m.writeI32(header + H_CO_SETS, 0);
        m.writeI32(header + H_INFER_GROWTH, 1);
        m.writeI32(header + H_COUNTS, counts);
        m.writeI32(header + H_FROM, from);
        m.writeI32(header + H_LIST_START, listStart);
        m.writeI32(header + H_LIST_MEMBERS, listMembers);
        m.writeI32(header + H_TOPIC_LIST, topicList);
        m.writeI32(header + H_LISTS, g.lists.listStart.length - 1);
        m.writeI32(header + H_OWNER, owner);
        m.writeI32(header + H_MEMBER_RACK, memberRack);
        m.writeI32(header + H_RACK_START, rackStart);
        m.writeI32(header + H_RACKS, rackList);
        m.writeI32(header + H_CO_START, coStart);
        m.writeI32(header + H_CO_TOPICS, coTopics);
        m.writeI32(header + H_OUT_OWNER, outOwner);
        m.writeI32(header + H_OUT_GROWTH, outGrowth);
        m.writeI32(header + H_OUT_GROWTH_COUNT, 0);
        m.writeI32(header + H_OUT_FROM, outFrom);
        m.writeI32(header + H_OUT_CO_STATUS, outCoStatus);
        m.writeF64(header + H_GROWTH_SKEW, GROWTH_SKEW);

        long status = a.instance.export("groupPlan").apply(header)[0];
        if (status != 0) throw new IllegalStateException("groupPlan returned " + status);
        return a.get(outOwner, partitions);
    }
}
