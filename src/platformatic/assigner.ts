// The sticky assigner for @platformatic/kafka consumers. It only translates: @platformatic/kafka's
// join and assign callbacks and metadata in, the group planner (group-core.ts) in the middle,
// @platformatic/kafka's assignment Maps out. Same protocol name and the same claims (userData) as
// the KafkaJS StickyAssigner, so KafkaJS and @platformatic/kafka members can share a group.
//
// What @platformatic/kafka 2.12.1 offers (clients/consumer/consumer.js) and what follows from it:
// - `protocolsMetadata(protocols, topics, metadata, callback)` runs at every JoinGroup with fresh
//   metadata; its Buffer is the userData of every protocol. The subscription's topics are written
//   sorted, so claims index into the sorted list.
// - `partitionAssigner(current, members, topics, metadata)` runs on the leader, synchronously;
//   `members` maps a member id to its decoded subscription (`metadata` is the userData); `topics`
//   is the leader's own subscription only, so the group's topics are read from the members.
// - Assignments go out with one fixed userData (`assignmentUserData`) for every member, and a
//   member is not given the userData of the assignment it receives. So the KafkaJS leader's
//   per-member note (the group's fingerprint, the partition counts the assignment was made for)
//   can neither be sent by a @platformatic/kafka leader nor read through the consumer. Instead:
//   a member reads the note from its own SyncGroup answer on the published diagnostics channel
//   `plt:kafka:connections:api` (`connection.ownerId` is the consumer's `instanceId`), and without
//   one claims the counts it saw at its join; a @platformatic/kafka leader remembers the note of
//   the generation it assigned and fills it into that generation's claims (completeClaims).
// - The consumer keeps `generationId` and `assignments` and emits `consumer:group:join` (after each
//   SyncGroup) and `consumer:group:leave`: attach() follows those for this member's claims.
// - The consumer does not rejoin when a subscribed topic gains partitions (KafkaJS does): attach()
//   checks the metadata every growthCheckMs and calls `joinGroup()` when a count grew.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClusterMetadata, ExtendedGroupProtocolSubscription, GroupAssignment, GroupPartitionsAssignments, GroupProtocolSubscription } from '@platformatic/kafka';
import { AssignorError, describe } from '../errors.js';
import { claimsOf, ClaimArena, completeClaims, decodeAssignment, encodeClaims, leaderNote, nextHolding, planGroup, planMember, planTopic, rememberPlan, STICKY_ASSIGNER_NAME, STICKY_ASSIGNER_VERSION, type HoldingRun, type Note, type Plan, type PlanMember, type PlanTopic } from './group-core.js';
import { checkOptions, type Config, type StickyAssignerOptions, type StickyAssignmentReport } from './options.js';
import { byCodeUnits } from '../basics.js';

/** The parts of a @platformatic/kafka Consumer the assigner reads. */
export interface ConsumerLike {
  readonly instanceId: number;
  generationId: number;
  /** Used by the growth check (growthCheckMs); without them there is none. */
  metadata?(options: { topics: string[]; forceUpdate?: boolean }): Promise<ClusterMetadata>;
  joinGroup?(options?: object): Promise<unknown>;
  on(event: 'consumer:group:join', listener: (payload: { generationId?: number; assignments?: GroupAssignment[] }) => void): unknown;
  on(event: 'consumer:group:leave' | 'client:close', listener: (payload: unknown) => void): unknown;
}

/** The published diagnostics channel that traces every request of every @platformatic/kafka connection. */
export const API_CHANNEL = 'tracing:plt:kafka:connections:api:asyncStart';
const SYNC_GROUP = 14;

interface ApiTrace {
  apiKey?: number;
  connection?: { ownerId?: unknown };
  result?: { assignment?: unknown };
}

/** The leader's note in a SyncGroup answer's assignment, when a KafkaJS StickyAssigner leader wrote one. */
export function noteInAnswer(assignment: unknown): { fingerprint: string; counts: Map<string, number> } | null {
  if (!(assignment instanceof Uint8Array)) return null;
  const a = decodeAssignment(assignment);
  return a === null ? null : leaderNote(a);
}

/** The consumer options the assigner provides: spread them into `new Consumer({ ... })`. */
export interface StickyGroupOptions {
  protocols: GroupProtocolSubscription[];
  protocolsMetadata: (protocols: GroupProtocolSubscription[], topics: string[], metadata: ClusterMetadata) => Buffer;
  partitionAssigner: (current: string, members: Map<string, ExtendedGroupProtocolSubscription>, topics: Set<string>, metadata: ClusterMetadata) => GroupPartitionsAssignments[];
}

export interface StickyAssigner {
  /** `new Consumer({ clientId, bootstrapBrokers, groupId, ...sticky.options })`. */
  readonly options: StickyGroupOptions;
  /** Follows the consumer's assignments (its group events). Call once, right after creating it and before it joins. */
  attach(consumer: ConsumerLike): void;
}

/** The subscription as @platformatic/kafka writes it: distinct topics, sorted by code units. */
export function subscriptionTopics(topics: readonly string[]): string[] {
  return [...new Set(topics)].sort(byCodeUnits);
}

/** Each topic's partition count in the metadata (topics it does not know are left out). */
function countsIn(metadata: ClusterMetadata | undefined, topics: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of topics) {
    const c = metadata?.topics.get(t)?.partitionsCount;
    if (typeof c === 'number' && c > 0) out.set(t, c);
  }
  return out;
}

/** Partition counts and replica racks of `topics`, from the metadata the leader fetched. */
export function planTopics(metadata: ClusterMetadata, topics: readonly string[]): PlanTopic[] {
  const rackOf = new Map<number, string>();
  for (const [id, b] of metadata.brokers) if (typeof b.rack === 'string' && b.rack !== '') rackOf.set(id, b.rack);
  return topics.map((name) => {
    const t = metadata.topics.get(name);
    if (t === undefined) return { name, partitions: 0 };
    return planTopic(name, t.partitionsCount ?? 0, (p) => t.partitions[p]?.replicas ?? [], rackOf);
  });
}

/** The members as the planner takes them: subscriptions and decoded claims (into `arena`). */
export function planMembers(members: Map<string, ExtendedGroupProtocolSubscription>, arena: ClaimArena): PlanMember[] {
  const out: PlanMember[] = [];
  for (const [memberId, sub] of members) {
    const topics = Array.isArray(sub?.topics) ? sub.topics : [];
    const raw = sub?.metadata;
    const userData = typeof raw === 'string' ? Buffer.from(raw) : raw instanceof Uint8Array ? raw : new Uint8Array(0);
    out.push(planMember(memberId, topics, userData, arena));
  }
  return out;
}

/** The plan as @platformatic/kafka's assignments: every member, each assigned topic with its partitions ascending. */
export function toAssignments(plan: Plan): GroupPartitionsAssignments[] {
  return plan.memberIds.map((memberId, m) => {
    const assignments = new Map<string, GroupAssignment>();
    for (let e = plan.entryStart[m]!; e < plan.entryStart[m + 1]!; e++) {
      const t = plan.entryTopic[e]!;
      const topic = plan.topics[t]!;
      assignments.set(topic, { topic, partitions: Array.from(plan.partitionsByOwner[t]!.subarray(plan.entryFrom[e]!, plan.entryTo[e]!)) });
    }
    return { memberId, assignments };
  });
}

/**
 * Every `ms`, while the consumer is in its group: fresh metadata of the topics it last joined with;
 * when one has more partitions than it saw then, join again (once per growth: the join records the
 * new counts). Errors wait for the next check. Stops when the consumer closes.
 */
function watchGrowth(c: ConsumerLike, ms: number, joined: () => Map<string, number> | null): void {
  const { metadata, joinGroup } = c;
  if (ms === 0 || typeof metadata !== 'function' || typeof joinGroup !== 'function') return;
  let checking = false;
  const check = async (): Promise<void> => {
    const counts = joined();
    if (checking || counts === null || counts.size === 0) return;
    checking = true;
    try {
      const fresh = await metadata.call(c, { topics: [...counts.keys()], forceUpdate: true });
      if ([...counts].some(([t, n]) => (fresh.topics.get(t)?.partitionsCount ?? 0) > n)) await joinGroup.call(c, {});
    } catch {
      // A failed check or join (mid-rebalance, broker away): the next check tries again.
    } finally {
      checking = false;
    }
  };
  const timer = setInterval(() => void check(), ms);
  timer.unref?.();
  c.on('client:close', () => clearInterval(timer));
}

/** What an assigner keeps between leader assignments: its options, its claims arena, the notes of the plans it made. */
interface LeaderState {
  config: Config;
  arena: ClaimArena;
  notes: ReadonlyMap<number, Note>;
}

/** One leader assignment: decode, complete, plan, translate. */
function assign(leader: LeaderState, generation: number | null, members: Map<string, ExtendedGroupProtocolSubscription>, metadata: ClusterMetadata): { out: GroupPartitionsAssignments[]; plan: Plan; report: StickyAssignmentReport } {
  const { config, arena, notes } = leader;
  const started = performance.now();
  arena.reset();
  const pm = planMembers(members, arena);
  completeClaims(pm, notes);
  const union = new Set<string>();
  for (const list of new Set(pm.map((m) => m.topics))) for (const t of list) union.add(t);
  const plan = planGroup(pm, planTopics(metadata, [...union]), { growthSkew: config.growthSkew, coPartitioned: config.coPartitioned, engine: config.engine });
  const out = toAssignments(plan);
  return { out, plan, report: { ...plan.report, generation, ms: performance.now() - started } };
}

/**
 * A sticky assigner for one @platformatic/kafka consumer:
 * `const sticky = createStickyAssigner({ rackId }); const consumer = new Consumer({ ..., groupId,
 * clientRack: rackId, ...sticky.options }); sticky.attach(consumer);`. Balanced per topic and in
 * total, sticky across rebalances (stale generations lose), rack-aware, key-preserving across
 * growth to a multiple; the protocol and claims of the KafkaJS StickyAssigner.
 * Throws AssignorError (E_INPUT, E_RANGE) for bad options, at creation; joining before attach()
 * fails the join with AssignorError E_INPUT.
 */
export function createStickyAssigner(options: StickyAssignerOptions = {}): StickyAssigner {
  const config = checkOptions(options);
  const arena = new ClaimArena();
  let consumer: ConsumerLike | null = null;
  let held: HoldingRun | null = null;
  let joinCounts = new Map<string, number>();
  let answered: { fingerprint: string; counts: Map<string, number> } | null = null;
  const notes = new Map<number, Note>();
  const leader: LeaderState = { config, arena, notes };
  return {
    options: {
      protocols: [{ name: STICKY_ASSIGNER_NAME, version: STICKY_ASSIGNER_VERSION }],
      protocolsMetadata(_protocols, topics, metadata) {
        if (consumer === null) throw new AssignorError('E_INPUT', `${STICKY_ASSIGNER_NAME}: call attach(consumer) before the consumer joins its group`, 'attach');
        const sorted = subscriptionTopics(topics);
        joinCounts = countsIn(metadata, sorted);
        answered = null;
        return Buffer.from(encodeClaims(claimsOf(held, sorted, config.rack)));
      },
      partitionAssigner(_current, members, _topics, metadata) {
        const generation = consumer?.generationId ?? null;
        const { out, plan, report } = assign(leader, generation, members, metadata);
        if (generation !== null) rememberPlan(notes, plan, generation);
        config.onAssignment?.(report);
        return out;
      },
    },
    attach(c: ConsumerLike) {
      if (c === null || typeof c !== 'object' || typeof c.on !== 'function') throw new AssignorError('E_INPUT', `attach needs a @platformatic/kafka Consumer, got ${describe(c)}`, 'consumer');
      if (consumer !== null) throw new AssignorError('E_INPUT', 'this sticky assigner is already attached to a consumer; create one per consumer', 'consumer');
      consumer = c;
      const onAnswer = (message: unknown): void => {
        const trace = message as ApiTrace;
        if (trace?.apiKey === SYNC_GROUP && trace.connection?.ownerId === c.instanceId && trace.result !== undefined) answered = noteInAnswer(trace.result.assignment);
      };
      subscribe(API_CHANNEL, onAnswer);
      c.on('client:close', () => unsubscribe(API_CHANNEL, onAnswer));
      c.on('consumer:group:join', (payload) => {
        const generation = payload?.generationId;
        const counts = answered?.counts ?? joinCounts;
        held = typeof generation === 'number' && generation >= 0 ? nextHolding(held, { generation, topics: payload.assignments ?? [], counts, fingerprint: answered?.fingerprint ?? '' }) : null;
        answered = null;
      });
      // A member that left owns nothing: if it comes back, it comes back empty-handed.
      c.on('consumer:group:leave', () => {
        held = null;
      });
      watchGrowth(c, config.growthCheckMs, () => (held === null ? null : joinCounts));
    },
  };
}
