// What an assignment did, the same for every strategy: kept, moved and placed against the
// owners the members claimed, the balance of counts, keys moved on grown topics, rack matches.
import { positionsOf, type Group } from './input.js';

export interface GrowthMoves {
  topic: string;
  from: number;
  to: number;
  /** Share of the topic's keys whose member changed (a key lived on p mod from, now on p mod to); null when lcm(from, to) is too large to count. */
  keysMovedShare: number | null;
}

export interface GroupReport {
  members: number;
  topics: number;
  partitions: number;
  /** Partitions that stayed with their owner. */
  kept: number;
  /** Partitions taken from an owner that is still in the group and subscribed. */
  moved: number;
  /** Partitions that had no owner in the group (new, owner gone, or never owned). */
  placed: number;
  /** Claims that lost to a newer generation (or, in the same generation, to a member sorted earlier by id). */
  conflicts: number;
  /** Claims ignored, as Kafka ignores them: of partitions the topic does not have (any number, 2^31 - 1 included), of topics without metadata, of topics the member does not subscribe. */
  ignoredClaims: number;
  /** Partitions per member, over the members subscribed to at least one assigned topic. */
  balance: { min: number; max: number; spread: number };
  growth: GrowthMoves[];
  /** Some member has a rack and some topic has replica racks. */
  rackAware: boolean;
  /** Partitions owned by a member on one of their replica racks (null when racks are not in use). */
  rackMatched: number | null;
  /** Subscribed topics without metadata: ignored, as Kafka does. */
  missingTopics: string[];
}

/**
 * Previous owner (member index, -1: none) of every partition of every assigned topic: the newest
 * generation's claim wins, then the member first by id. Claims of partitions the topic does not
 * have, of topics without metadata and of topics the member does not subscribe are ignored.
 */
export function previousOwners(group: Group): { owners: Map<string, Int32Array>; conflicts: number; ignored: number } {
  const owners = new Map<string, Int32Array>();
  const arrays = new Map<string, { owner: Int32Array; gen: Int32Array }>();
  for (const name of group.assigned) {
    const n = group.topics.get(name)!.partitions;
    const a = { owner: new Int32Array(n).fill(-1), gen: new Int32Array(n).fill(-1) };
    owners.set(name, a.owner);
    arrays.set(name, a);
  }
  let conflicts = 0;
  let ignored = 0;
  const positions = new Map<readonly string[], Map<string, number>>();
  group.members.forEach((member, m) => {
    const { topics, start, partitions } = member.owned;
    if (topics.length === 0) return;
    const subscribed = positionsOf(member.topics, positions);
    for (let k = 0; k < topics.length; k++) {
      const a = arrays.get(topics[k]!);
      if (a === undefined || !subscribed.has(topics[k]!)) {
        ignored += start[k + 1]! - start[k]!;
        continue;
      }
      const { owner, gen } = a;
      for (let i = start[k]!; i < start[k + 1]!; i++) {
        const p = partitions[i]!;
        if (p >= owner.length) {
          ignored++;
          continue;
        }
        if (member.generation > gen[p]!) {
          if (gen[p]! >= 0) conflicts++;
          owner[p] = m;
          gen[p] = member.generation;
        } else conflicts++;
      }
    }
  });
  return { owners, conflicts, ignored };
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const MAX_RESIDUES = 1 << 24;

/** Share of keys whose owner changed when a topic went from `from` to `owner.length` partitions. */
function keysMovedShare(before: Int32Array, owner: Int32Array, from: number): number | null {
  const to = owner.length;
  const lcm = (from / gcd(from, to)) * to;
  if (lcm > MAX_RESIDUES) return null;
  // A key's hash mod lcm decides both its old partition (mod from) and its new one (mod to).
  let changed = 0;
  for (let r = 0; r < lcm; r++) if (before[r % from]! !== owner[r % to]!) changed++;
  return changed / lcm;
}

export function groupReport(group: Group, owners: Map<string, Int32Array>, before: { owners: Map<string, Int32Array>; conflicts: number; ignored: number }): GroupReport {
  const M = group.members.length;
  const totals = new Float64Array(M);
  let kept = 0;
  let moved = 0;
  let placed = 0;
  let partitions = 0;
  const growth: GrowthMoves[] = [];
  for (const name of group.assigned) {
    const owner = owners.get(name)!;
    const prev = before.owners.get(name)!;
    partitions += owner.length;
    for (let p = 0; p < owner.length; p++) {
      if (owner[p]! >= 0) totals[owner[p]!]!++;
      if (prev[p]! < 0) placed++;
      else if (prev[p] === owner[p]) kept++;
      else moved++;
    }
    const from = group.topics.get(name)!.previous;
    if (from > 0) growth.push({ topic: name, from, to: owner.length, keysMovedShare: keysMovedShare(prev, owner, from) });
  }
  const assigned = new Set(group.assigned);
  let min = Infinity;
  let max = 0;
  group.members.forEach((member, m) => {
    if (!member.topics.some((t) => assigned.has(t))) return;
    min = Math.min(min, totals[m]!);
    max = Math.max(max, totals[m]!);
  });
  if (min === Infinity) min = 0;
  const rackAware = group.members.some((m) => m.rack !== null) && group.assigned.some((t) => group.topics.get(t)!.racks !== null);
  return {
    members: M,
    topics: group.assigned.length,
    partitions,
    kept,
    moved,
    placed,
    conflicts: before.conflicts,
    ignoredClaims: before.ignored,
    balance: { min, max, spread: max - min },
    growth,
    rackAware,
    rackMatched: rackAware ? rackMatches(group, owners) : null,
    missingTopics: group.missing,
  };
}

function rackMatches(group: Group, owners: Map<string, Int32Array>): number {
  let n = 0;
  for (const name of group.assigned) {
    const racks = group.topics.get(name)!.racks;
    if (racks === null) continue;
    const owner = owners.get(name)!;
    for (let p = 0; p < owner.length; p++) {
      const rack = owner[p]! >= 0 ? group.members[owner[p]!]!.rack : null;
      if (rack !== null && racks[p]!.includes(rack)) n++;
    }
  }
  return n;
}
