package dev.assignor.broker;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignorException;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.MemberAssignmentImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * assignor's sticky planner as a Kafka 4.4 broker-side assignor (KIP-848): the broker lists this
 * class in group.consumer.assignors, and consumers that set group.remote.assignor=assignor-sticky
 * get their group's target assignment from it.
 *
 * Glue only: the group goes into flat tables (GroupTable), the npm package's WebAssembly planner
 * decides (Kernel, run through Chicory), and its owners come back as a GroupAssignment. It never
 * throws: when the planner fails in any way, the first failure is logged and the group gets the
 * broker's own UniformAssignor's answer on the cleaned group, or, should that fail too, the cleaned
 * current assignment.
 *
 * System properties: assignor.broker.interpreter=true runs Chicory's interpreter instead of its
 * compiler (for timings); assignor.broker.forceFallback=true skips the planner (for tests).
 */
public final class StickyAssignor implements ConsumerGroupPartitionAssignor {
    public static final String NAME = "assignor-sticky";
    public static final String INTERPRETER_PROPERTY = "assignor.broker.interpreter";
    public static final String FORCE_FALLBACK_PROPERTY = "assignor.broker.forceFallback";

    private static final Logger LOG = LoggerFactory.getLogger(StickyAssignor.class);
    private static final AtomicBoolean FAILURE_LOGGED = new AtomicBoolean();
    private static final AtomicLong FALLBACKS = new AtomicLong();

    private final Kernel kernel;
    private final UniformAssignor uniform = new UniformAssignor();

    /** The broker's constructor: Chicory's compiler unless -Dassignor.broker.interpreter=true. */
    public StickyAssignor() {
        this(Boolean.getBoolean(INTERPRETER_PROPERTY));
    }

    /** interpreted: run the planner in Chicory's interpreter rather than compiled to bytecode. */
    public StickyAssignor(boolean interpreted) {
        this.kernel = Kernel.preloaded(interpreted);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Never throws: see the class comment for what a failure of the planner gives. */
    @Override
    public GroupAssignment assign(GroupSpec groupSpec, SubscribedTopicDescriber subscribedTopicDescriber) throws PartitionAssignorException {
        GroupTable table = null;
        try {
            table = GroupTable.read(groupSpec, subscribedTopicDescriber);
            if (Boolean.getBoolean(FORCE_FALLBACK_PROPERTY)) throw new IllegalStateException(FORCE_FALLBACK_PROPERTY + " is set");
            return table.assignment(kernel.plan(table));
        } catch (Throwable e) {
            FALLBACKS.incrementAndGet();
            logOnce(e);
            return fallback(table, groupSpec, subscribedTopicDescriber);
        }
    }

    /** How many assign() calls in this JVM got a fallback instead of the planner's answer (only the first is logged). */
    public static long fallbackCount() {
        return FALLBACKS.get();
    }

    private static void logOnce(Throwable e) {
        if (FAILURE_LOGGED.compareAndSet(false, true)) {
            LOG.warn("assignor-sticky: the planner failed; this group and any later failure get the broker's uniform assignment (logged once)", e);
        }
    }

    /** UniformAssignor on the cleaned group; else the cleaned current assignment; else every member empty. */
    private GroupAssignment fallback(GroupTable table, GroupSpec spec, SubscribedTopicDescriber describer) {
        try {
            if (table == null) table = GroupTable.read(spec, describer);
        } catch (Throwable e) {
            return nothing(spec);
        }
        try {
            CleanGroup clean = table.clean(spec, describer);
            return uniform.assign(clean, clean);
        } catch (Throwable e) {
            try {
                return table.current();
            } catch (Throwable again) {
                return nothing(spec);
            }
        }
    }

    private static GroupAssignment nothing(GroupSpec spec) {
        Map<String, MemberAssignment> members = new HashMap<>();
        try {
            for (String id : spec.memberIds()) members.put(id, new MemberAssignmentImpl(Collections.emptyMap()));
        } catch (Throwable e) {
            // a spec that cannot even list its members gets an empty assignment
        }
        return new GroupAssignment(members);
    }
}
