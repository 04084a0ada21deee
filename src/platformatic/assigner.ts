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
import { ClaimArena, decodeAssignment, decodeAssignmentNote, decodeClaims, encodeClaims, planGroup, STICKY_ASSIGNER_NAME, STICKY_ASSIGNER_VERSION, type Claims, type Plan, type PlanMember, type PlanTopic } from './group-core.js';
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
  const note = a === null ? null : decodeAssignmentNote(a.userData);
  if (a === null || note === null || note.counts.length !== a.topics.length) return null;
  return { fingerprint: note.fingerprint, counts: new Map(a.topics.map((t, k) => [t, note.counts[k]!])) };
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

/** What this member holds: the assignment of one generation, with the partition counts it saw when it joined for it. */
interface Held {
  /** The generation its claims name: the first of the unbroken run of generations that gave it exactly this assignment. */
  generation: number;
  /** The last generation that gave it this assignment (the same as `generation` when the run is one long). */
  latest?: number;
  assignments: readonly GroupAssignment[];
  counts: Map<string, number>;
  /** The group fingerprint from the leader's note ('' when none came). */
  fingerprint?: string;
}

const partitionsKey = (as: readonly GroupAssignment[]): string =>
  JSON.stringify(
    as
      .filter((a) => a.partitions.length > 0)
      .map((a) => [a.topic, [...a.partitions].sort((x, y) => x - y)] as const)
      .sort(([x], [y]) => byCodeUnits(x, y)),
  );

const sameCounts = (a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean => a.size === b.size && [...a].every(([t, n]) => b.get(t) === n);

/**
 * What a member holds after the SyncGroup of \`next\`. When the generation right after the last one
 * gave it the same partitions, counts and fingerprint, its claims keep naming the generation the
 * run began in, so that its join metadata stays byte for byte the same. Why: @platformatic/kafka
 * 2.12.1 rejoins after a commit that failed during a rebalance, also when that rebalance is over,
 * and the broker starts a new rebalance for a member whose metadata changed ("Updating metadata
 * for member ... during Stable"). With the generation in the claims moving on each time, those
 * rejoins fed each other (seen on the broker: 20 rebalances in a row, none changing anything).
 * Safe for the planner: no other member can have held these partitions in between.
 */
export function nextHeld(held: Held | null, next: Held): Held {
  const last = held === null ? -2 : (held.latest ?? held.generation);
  const continues = held !== null && next.generation === last + 1 && (held.fingerprint ?? '') === (next.fingerprint ?? '') && sameCounts(held.counts, next.counts) && partitionsKey(held.assignments) === partitionsKey(next.assignments);
  return continues ? { ...held, latest: next.generation } : { ...next, latest: next.generation };
}

/** What a leader remembers of the assignment it made: the note the KafkaJS assigner sends with it. */
interface Note {
  generation: number;
  fingerprint: string;
  counts: Map<string, number>;
}


/** The subscription as @platformatic/kafka writes it: distinct topics, sorted by code units. */
export function subscriptionTopics(topics: readonly string[]): string[] {
  return [...new Set(topics)].sort(byCodeUnits);
}

/** The claims this member sends: what it holds, restricted to the topics it still subscribes. */
export function claimsOf(held: Held | null, topics: readonly string[], rack: string | null): Claims {
  const index = new Map<string, number>();
  topics.forEach((t, i) => index.set(t, i));
  const topic: number[] = [];
  const count: number[] = [];
  const start: number[] = [0];
  const parts: number[] = [];
  const entries = held === null ? [] : [...held.assignments].filter((a) => index.has(a.topic)).sort((x, y) => index.get(x.topic)! - index.get(y.topic)!);
  for (const a of entries) {
    const ps = Int32Array.from(new Set(a.partitions)).filter((p) => p >= 0).sort();
    if (ps.length === 0) continue;
    const recorded = held!.counts.get(a.topic) ?? 0;
    topic.push(index.get(a.topic)!);
    // A partition beyond the count seen at the join means the topic grew before the leader
    // assigned: the count the assignment was made for is unknown, say so (0).
    count.push(ps[ps.length - 1]! < recorded ? recorded : 0);
    for (const p of ps) parts.push(p);
    start.push(parts.length);
  }
  return {
    generation: held === null ? -1 : held.generation,
    rack,
    fingerprint: held?.fingerprint ?? '',
    topic: Int32Array.from(topic),
    count: Int32Array.from(count),
    start: Int32Array.from(start),
    partitions: Int32Array.from(parts),
  };
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

/**
 * Fills in what the members could not echo. A claim of a generation this leader assigned gets
 * that assignment's fingerprint and counts; any other unknown count (0) takes the count another
 * member of the same generation recorded for the topic (a KafkaJS member after a
 * @platformatic/kafka leader records none), or else the newest count recorded at an earlier
 * generation that still covers every partition the claim names: a @platformatic/kafka member's
 * claims name the first generation of its unchanged run (nextHeld), and a run ends when a count
 * changes, so its count held for the later generations of the run too.
 */
export function completeClaims(members: readonly PlanMember[], notes: ReadonlyMap<number, Note>): void {
  const known = new Map<string, number>(); // `${generation} ${topic}` -> count
  const earlier = new Map<string, { generation: number; count: number }[]>(); // topic -> recorded counts
  const each = (fn: (c: Claims, topic: string, k: number) => void): void => {
    for (const m of members) {
      const c = m.claims;
      if (c === null || c.generation < 0) continue;
      for (let k = 0; k < c.topic.length; k++) fn(c, m.topics[c.topic[k]!]!, k);
    }
  };
  for (const m of members) {
    const note = m.claims === null ? undefined : notes.get(m.claims.generation);
    if (note !== undefined && m.claims!.fingerprint === '') m.claims!.fingerprint = note.fingerprint;
  }
  each((c, t, k) => {
    if (c.count[k] === 0) c.count[k] = notes.get(c.generation)?.counts.get(t) ?? 0;
    if (c.count[k]! === 0) return;
    if (!known.has(`${c.generation} ${t}`)) known.set(`${c.generation} ${t}`, c.count[k]!);
    const list = earlier.get(t);
    if (list === undefined) earlier.set(t, [{ generation: c.generation, count: c.count[k]! }]);
    else list.push({ generation: c.generation, count: c.count[k]! });
  });
  each((c, t, k) => {
    if (c.count[k] !== 0) return;
    const same = known.get(`${c.generation} ${t}`);
    if (same !== undefined) {
      c.count[k] = same;
      return;
    }
    let highest = -1;
    for (let i = c.start[k]!; i < c.start[k + 1]!; i++) highest = Math.max(highest, c.partitions[i]!);
    let best: { generation: number; count: number } | undefined;
    for (const r of earlier.get(t) ?? []) if (r.generation < c.generation && r.count > highest && (best === undefined || r.generation > best.generation)) best = r;
    if (best !== undefined) c.count[k] = best.count;
  });
}

/** Partition counts and replica racks of `topics`, from the metadata the leader fetched. */
export function planTopics(metadata: ClusterMetadata, topics: readonly string[]): PlanTopic[] {
  const rackOf = new Map<number, string>();
  for (const [id, b] of metadata.brokers) if (typeof b.rack === 'string' && b.rack !== '') rackOf.set(id, b.rack);
  return topics.map((name) => {
    const t = metadata.topics.get(name);
    const partitions = t?.partitionsCount ?? 0;
    if (t === undefined || rackOf.size === 0) return { name, partitions };
    const racksOf = (p: number): string[] => {
      const out: string[] = [];
      for (const node of t.partitions[p]?.replicas ?? []) {
        const r = rackOf.get(node);
        if (r !== undefined) out.push(r);
      }
      return out;
    };
    return { name, partitions, racksOf };
  });
}

/** The members as the planner takes them: subscriptions and decoded claims (into `arena`). */
export function planMembers(members: Map<string, ExtendedGroupProtocolSubscription>, arena: ClaimArena): PlanMember[] {
  const out: PlanMember[] = [];
  for (const [memberId, sub] of members) {
    const topics = Array.isArray(sub?.topics) ? sub.topics : [];
    const raw = sub?.metadata;
    const userData = typeof raw === 'string' ? Buffer.from(raw) : raw instanceof Uint8Array ? raw : new Uint8Array(0);
    const claims = userData.length === 0 ? null : decodeClaims(userData, topics.length, arena);
    out.push({ memberId, topics, claims, readable: userData.length === 0 || claims !== null });
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
 * The notes a leader keeps: those of its last few assignments, not only the last. A SyncGroup can
 * fail after the leader planned (another member rejoined meanwhile): the members then still hold
 * the generation before, whose note must not be lost.
 */
const NOTES_KEPT = 8;

function remember(notes: Map<number, Note>, note: Note): void {
  notes.set(note.generation, note);
  for (const g of [...notes.keys()].sort((a, b) => a - b).slice(0, Math.max(0, notes.size - NOTES_KEPT))) notes.delete(g);
}

function noteOf(plan: Plan, generation: number): Note {
  return { generation, fingerprint: plan.fingerprint, counts: new Map(plan.topics.map((t, i) => [t, plan.counts[i]!])) };
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
  let held: Held | null = null;
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
        if (generation !== null) remember(notes, noteOf(plan, generation));
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
        held = typeof generation === 'number' && generation >= 0 ? nextHeld(held, { generation, assignments: payload.assignments ?? [], counts, fingerprint: answered?.fingerprint ?? '' }) : null;
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
