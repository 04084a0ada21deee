// The sticky group's rules that both client adapters follow (src/kafkajs/sticky/ and
// src/platformatic/): what a member claims when it joins, how a leader reads the members' claims,
// and what a leader remembers of its own assignments to fill in what members could not echo.
// The adapters only translate between their client and these.
import { byCodeUnits } from '../basics.js';
import { decodeAssignmentNote, decodeClaims, type ClaimArena, type DecodedAssignment } from './protocol.js';
import type { Claims } from './sticky/claims.js';
import type { Plan, PlanMember, PlanTopic } from './sticky/plan.js';

/** The assignment a member holds, as its claims name it. */
export interface Holding {
  /** The generation the claims name; -1: it holds nothing. */
  generation: number;
  /** The group fingerprint of the assignment ('' when none is known). */
  fingerprint: string;
  /** Per topic it holds: its partitions. */
  topics: readonly { topic: string; partitions: ArrayLike<number> & Iterable<number> }[];
  /** Per topic, the partition count the member knows the assignment was made for (the leader's note, or what it saw at its join). */
  counts: ReadonlyMap<string, number>;
}

/**
 * The claims a member sends: what it holds, restricted to the topics it subscribes (in the
 * subscription's order), partitions ascending and distinct, whatever the sender did. A claimed
 * partition at or beyond the count it knows means the count is not the one the assignment was made
 * for (the topic grew before the leader assigned): it is sent as unknown (0), as is a count not known.
 */
export function claimsOf(held: Holding | null, subscription: readonly string[], rack: string | null): Claims {
  const index = new Map<string, number>();
  subscription.forEach((t, i) => {
    if (!index.has(t)) index.set(t, i);
  });
  const topic: number[] = [];
  const count: number[] = [];
  const start: number[] = [0];
  const parts: number[] = [];
  const entries = held === null || held.generation < 0 ? [] : held.topics.filter((h) => index.has(h.topic));
  entries.sort((x, y) => index.get(x.topic)! - index.get(y.topic)!);
  for (const h of entries) {
    const ps = Int32Array.from(new Set(h.partitions)).filter((p) => p >= 0).sort();
    if (ps.length === 0) continue;
    const recorded = held!.counts.get(h.topic) ?? 0;
    topic.push(index.get(h.topic)!);
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

/**
 * The leader's note in a member's assignment (a KafkaJS leader writes one): its group fingerprint
 * and each topic's count; null without one. `note`: the note when the caller decoded it already.
 */
export function leaderNote(a: DecodedAssignment, note = decodeAssignmentNote(a.userData)): { fingerprint: string; counts: Map<string, number> } | null {
  if (note === null || note.counts.length !== a.topics.length) return null;
  return { fingerprint: note.fingerprint, counts: new Map(a.topics.map((t, k) => [t, note.counts[k]!])) };
}

/** A member as the planner takes it, from its subscription and userData (claims decoded into `arena`; unreadable ones claim nothing). */
export function planMember(memberId: string, topics: string[], userData: Uint8Array, arena: ClaimArena): PlanMember {
  const claims = userData.length === 0 ? null : decodeClaims(userData, topics.length, arena);
  return { memberId, topics, claims, readable: userData.length === 0 || claims !== null };
}

/**
 * A topic as the planner takes it: its partition count and, when some broker has a rack, each
 * partition's replica racks (`replicasOf(p)`: the partition's replica broker ids; `rackOf`: broker id -> rack).
 */
export function planTopic(name: string, partitions: number, replicasOf: (p: number) => readonly number[], rackOf: ReadonlyMap<number, string>): PlanTopic {
  if (rackOf.size === 0) return { name, partitions };
  const racksOf = (p: number): string[] => {
    const out: string[] = [];
    for (const node of replicasOf(p)) {
      const r = rackOf.get(node);
      if (r !== undefined) out.push(r);
    }
    return out;
  };
  return { name, partitions, racksOf };
}

/** What a leader remembers of an assignment it made: the note the KafkaJS leader sends with it. */
export interface Note {
  generation: number;
  fingerprint: string;
  counts: Map<string, number>;
}

/**
 * The notes a leader keeps: those of its last few assignments, not only the last. A SyncGroup can
 * fail after the leader planned (another member rejoined meanwhile): the members then still hold
 * the generation before, whose note must not be lost.
 */
const NOTES_KEPT = 8;

/** Keeps the note of the plan the leader made for `generation`, forgetting all but the newest NOTES_KEPT. */
export function rememberPlan(notes: Map<number, Note>, plan: Plan, generation: number): void {
  notes.set(generation, { generation, fingerprint: plan.fingerprint, counts: new Map(plan.topics.map((t, i) => [t, plan.counts[i]!])) });
  for (const g of [...notes.keys()].sort((a, b) => a - b).slice(0, Math.max(0, notes.size - NOTES_KEPT))) notes.delete(g);
}

/**
 * Fills in what the members could not echo. A claim of a generation this leader assigned gets
 * that assignment's fingerprint and counts; any other unknown count (0) takes the count another
 * member of the same generation recorded for the topic (a KafkaJS member after a
 * @platformatic/kafka leader records none), or else the newest count recorded at an earlier
 * generation that still covers every partition the claim names: a @platformatic/kafka member's
 * claims name the first generation of its unchanged run (nextHolding), and a run ends when a
 * count changes, so its count held for the later generations of the run too.
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

/** A holding's run of generations: `latest` is the last generation that gave it exactly this assignment. */
export interface HoldingRun extends Holding {
  latest: number;
}

const partitionsKey = (h: Holding): string =>
  JSON.stringify(
    h.topics
      .filter((t) => t.partitions.length > 0)
      .map((t) => [t.topic, [...t.partitions].sort((x, y) => x - y)] as const)
      .sort(([x], [y]) => byCodeUnits(x, y)),
  );

const sameCounts = (a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean => a.size === b.size && [...a].every(([t, n]) => b.get(t) === n);

/**
 * What a member holds after the SyncGroup of `next`. When the generation right after the last one
 * gave it the same partitions, counts and fingerprint, its claims keep naming the generation the
 * run began in, so that its join metadata stays byte for byte the same. Why: @platformatic/kafka
 * 2.12.1 rejoins after a commit that failed during a rebalance, also when that rebalance is over,
 * and the broker starts a new rebalance for a member whose metadata changed ("Updating metadata
 * for member ... during Stable"). With the generation in the claims moving on each time, those
 * rejoins fed each other (seen on the broker: 20 rebalances in a row, none changing anything).
 * Safe for the planner: no other member can have held these partitions in between.
 */
export function nextHolding(held: HoldingRun | null, next: Holding): HoldingRun {
  const continues = held !== null && next.generation === held.latest + 1 && held.fingerprint === next.fingerprint && sameCounts(held.counts, next.counts) && partitionsKey(held) === partitionsKey(next);
  return continues ? { ...held, latest: next.generation } : { ...next, latest: next.generation };
}
