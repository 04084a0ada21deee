package dev.assignor.broker;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignor;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignorException;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * assignor's tag-aware placement as a Kafka 4.4 streams-group assignor (KIP-1071): the broker lists
 * this class in group.streams.assignors and streams groups get their tasks from it; the standbys are
 * spread over the tags in group.streams.rack.aware.assignment.tags.
 *
 * Glue only. The broker's own StickyTaskAssignor answers first, given the members in a canonical
 * order (so the answer does not depend on the order the broker lists them in); then the npm
 * package's WebAssembly kernel streamsSpread, run through Chicory, moves standbys to spread each
 * task over more tag values, never fewer than the broker's answer gives it, inside the broker's
 * range of loads (docs/streams.md, "tag-aware"). What `assignor streams --mode tag-aware` answers.
 *
 * It fails safe: when anything after the broker's own answer fails, the first failure is logged
 * and the group gets StickyTaskAssignor's answer, as the built-in assignor would give it.
 *
 * System properties: assignor.broker.interpreter=true runs Chicory's interpreter instead of its
 * compiler; assignor.broker.forceFallback=true skips the kernel (for tests).
 */
public final class StreamsAssignor implements TaskAssignor {
    public static final String NAME = "assignor-streams";

    private static final Logger LOG = LoggerFactory.getLogger(StreamsAssignor.class);
    private static final AtomicBoolean FAILURE_LOGGED = new AtomicBoolean();
    private static final AtomicLong FALLBACKS = new AtomicLong();

    private final Kernel kernel;
    private final StickyTaskAssignor sticky = new StickyTaskAssignor();

    /** The broker's constructor: Chicory's compiler unless -Dassignor.broker.interpreter=true. */
    public StreamsAssignor() {
        this(Boolean.getBoolean(StickyAssignor.INTERPRETER_PROPERTY));
    }

    public StreamsAssignor(boolean interpreted) {
        this.kernel = Kernel.preloaded(interpreted);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Throws only what the broker's own assignor throws on the same group (no member for a task). */
    @Override
    public GroupAssignment assign(GroupSpec groupSpec, TopologyDescriber topology) throws TaskAssignorException {
        GroupSpec canonical;
        try {
            canonical = StreamsTable.canonical(groupSpec);
        } catch (RuntimeException e) {
            return fallback(e, groupSpec, topology);
        }
        GroupAssignment baseline = sticky.assign(canonical, topology);
        try {
            if (Boolean.getBoolean(StickyAssignor.FORCE_FALLBACK_PROPERTY)) throw new IllegalStateException(StickyAssignor.FORCE_FALLBACK_PROPERTY + " is set");
            StreamsTable table = StreamsTable.read(canonical, topology, baseline);
            if (table.width == 0 || table.activeMember.length == 0) return baseline;
            return table.assignment(baseline, kernel.spread(table));
        } catch (Throwable e) {
            FALLBACKS.incrementAndGet();
            logOnce(e);
            return baseline;
        }
    }

    /** How many assign() calls in this JVM got the broker's answer unimproved because something failed (only the first is logged). */
    public static long fallbackCount() {
        return FALLBACKS.get();
    }

    private GroupAssignment fallback(Throwable e, GroupSpec spec, TopologyDescriber topology) {
        FALLBACKS.incrementAndGet();
        logOnce(e);
        return sticky.assign(spec, topology);
    }

    private static void logOnce(Throwable e) {
        if (FAILURE_LOGGED.compareAndSet(false, true)) {
            LOG.warn("assignor-streams: the tag-aware step failed; this group and any later failure get the broker's StickyTaskAssignor answer (logged once)", e);
        }
    }
}
