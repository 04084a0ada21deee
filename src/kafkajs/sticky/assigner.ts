// StickyAssigner: a KafkaJS PartitionAssigner (`partitionAssigners: [StickyAssigner]`). This file
// only translates: KafkaJS's join/assign calls and metadata in, the planner (plan.ts) in the
// middle, KafkaJS's MemberAssignment bytes out. See docs/kafkajs.md for the guarantees.
import type { Assigner, Cluster, GroupMember, GroupMemberAssignment, Logger, PartitionAssigner, PartitionMetadata } from 'kafkajs';
import { planGroup, type PlanMember, type PlanTopic } from '../../group/sticky/plan.js';
import { decodeAssignmentNote, decodeSubscription, encodeAssignments, encodeClaims, encodeSubscription, ClaimArena, STICKY_ASSIGNER_NAME, STICKY_ASSIGNER_VERSION, TopicListCache } from '../../group/protocol.js';
import { claimsOf, leaderNote, planMember, planTopic, type Holding } from '../../group/claims.js';
import { checkAssignerOptions, type CheckedAssignerOptions, type StickyAssignerOptions, type StickyAssignmentReport } from '../../group/sticky-options.js';
import { trackMember, type Tracker } from './tracker.js';

export { STICKY_ASSIGNER_NAME, STICKY_ASSIGNER_VERSION } from '../../group/protocol.js';

export type { StickyAssignerOptions, StickyAssignmentReport } from '../../group/sticky-options.js';
type Config = CheckedAssignerOptions;

/** What this member holds, as the tracker saw it: the leader's assignment and note, at its generation. */
function holdingOf(tracker: Tracker): Holding | null {
  const st = tracker.state;
  const a = st.assignment;
  if (a === null) return null;
  const topics = a.topics.map((topic, k) => ({ topic, partitions: a.partitions[k]! }));
  const note = decodeAssignmentNote(a.userData); // decoded once: its fingerprint counts even where its counts do not fit
  return { generation: st.generation, fingerprint: note?.fingerprint ?? '', topics, counts: leaderNote(a, note)?.counts ?? new Map() };
}

/** Partition counts and replica racks of `topics`, fresh from a broker when possible. */
async function topicMetadata(cluster: Cluster, topics: string[], logger: Logger): Promise<PlanTopic[]> {
  let partitionsOf: (topic: string) => PartitionMetadata[] = (t) => cluster.findTopicPartitionMetadata(t);
  const rackOf = new Map<number, string>();
  try {
    // KafkaJS 2.2.4's cluster.metadata takes { topics } (its typings omit the argument).
    const meta = await (cluster.metadata as unknown as (a: { topics: string[] }) => ReturnType<Cluster['metadata']>)({ topics });
    const byTopic = new Map(meta.topicMetadata.map((t) => [t.topic, t.partitionMetadata] as const));
    partitionsOf = (t) => byTopic.get(t) ?? [];
    for (const b of meta.brokers) if (typeof b.rack === 'string' && b.rack !== '') rackOf.set(b.nodeId, b.rack);
  } catch (e) {
    logger.warn(`${STICKY_ASSIGNER_NAME}: could not fetch metadata for the group's topics, using the leader's cache`, { error: (e as Error).message });
  }
  return topics.map((name) => {
    const parts = partitionsOf(name);
    let count = 0;
    for (let i = 0; i < parts.length; i++) count = Math.max(count, parts[i]!.partitionId + 1);
    const replicas: (readonly number[])[] = rackOf.size === 0 ? [] : new Array(count).fill([]);
    if (rackOf.size > 0) for (const p of parts) replicas[p.partitionId] = p.replicas ?? [];
    return planTopic(name, count, (p) => replicas[p] ?? [], rackOf);
  });
}

/**
 * A KafkaJS partition assigner: `kafka.consumer({ groupId, rackId, partitionAssigners:
 * [createStickyAssigner({ rackId })] })`. Balanced per topic and in total, sticky across
 * rebalances (stale generations lose), rack-aware, key-preserving across growth to a multiple.
 * Throws AssignorError (E_INPUT, E_RANGE) for bad options, at creation.
 */
export function createStickyAssigner(options: StickyAssignerOptions = {}): PartitionAssigner {
  const config = checkAssignerOptions(options);
  return ({ cluster, groupId, logger }: { cluster: Cluster; groupId: string; logger: Logger }): Assigner => {
    const tracker = trackMember(cluster, groupId);
    const arena = new ClaimArena();
    if (!tracker.active) {
      logger.warn(`${STICKY_ASSIGNER_NAME}: this KafkaJS build offers no group coordinator to observe; assignments stay balanced but are not sticky`, { groupId });
    }
    return {
      name: STICKY_ASSIGNER_NAME,
      version: STICKY_ASSIGNER_VERSION,

      protocol({ topics }: { topics: string[] }) {
        const userData = encodeClaims(claimsOf(holdingOf(tracker), topics, config.rack));
        return { name: STICKY_ASSIGNER_NAME, metadata: asBuffer(encodeSubscription(STICKY_ASSIGNER_VERSION, topics, userData)) };
      },

      async assign({ members }: { members: GroupMember[]; topics: string[] }): Promise<GroupMemberAssignment[]> {
        const started = performance.now();
        const cache = new TopicListCache();
        const subscriptions = members.map(({ memberMetadata }) => decodeSubscription(memberMetadata, cache));
        const union = new Set<string>();
        for (const list of new Set(subscriptions.map((sub) => sub?.topics ?? []))) for (const t of list) union.add(t);
        const topics = await topicMetadata(cluster, [...union], logger);
        // From here on synchronous: the claims are read into this assigner's arena (reused at
        // every assignment), so no other assign() call can reset it before the plan is made.
        arena.reset();
        const planMembers: PlanMember[] = members.map(({ memberId }, i) => {
          const sub = subscriptions[i]!;
          return sub === null ? { memberId, topics: [], claims: null, readable: false } : planMember(memberId, sub.topics, sub.userData, arena);
        });
        const plan = planGroup(planMembers, topics, { growthSkew: config.growthSkew, coPartitioned: config.coPartitioned, engine: config.engine });
        const bytes = encodeAssignments(STICKY_ASSIGNER_VERSION, plan);
        const out = plan.memberIds.map((memberId, m) => ({ memberId, memberAssignment: asBuffer(bytes[m]!) }));
        const report: StickyAssignmentReport = { ...plan.report, generation: tracker.state.joining, ms: performance.now() - started };
        logReport(logger, groupId, report);
        config.onAssignment?.(report);
        return out;
      },
    };
  };
}

function logReport(logger: Logger, groupId: string, r: StickyAssignmentReport): void {
  logger.info(`${STICKY_ASSIGNER_NAME}: ${r.unchanged ? 'group unchanged, assignment kept' : `kept ${r.kept}, moved ${r.moved}, placed ${r.placed}`} (${r.partitions} partitions, ${r.members} members)`, {
    groupId,
    generation: r.generation,
    conflicts: r.conflicts,
    ms: Math.round(r.ms),
  });
  for (const g of r.growth) (g.keysKept ? logger.info : logger.warn).call(logger, `${STICKY_ASSIGNER_NAME}: ${g.summary}`, { groupId });
  for (const c of r.coPartitioned) if (!c.honored) logger.warn(`${STICKY_ASSIGNER_NAME}: co-partitioned group ${c.name} not honored: ${c.reason}`, { groupId });
  if (r.unreadableMembers.length > 0) logger.warn(`${STICKY_ASSIGNER_NAME}: unreadable userData from ${r.unreadableMembers.length} member(s), treated as owning nothing`, { groupId, members: r.unreadableMembers });
}

/** `partitionAssigners: [StickyAssigner]`: the sticky assigner with default options (no rack). */
export const StickyAssigner: PartitionAssigner = createStickyAssigner();

/** The same bytes as a Buffer, no copy: KafkaJS writes a request's bytes only when Buffer.isBuffer says so. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
