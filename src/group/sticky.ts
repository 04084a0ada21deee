// The sticky strategy on a plain group: the members' owned partitions become claims and the
// planner (sticky/plan.ts, the one the KafkaJS adapter runs) decides. A plain group carries no
// fingerprint, so the planner always rebalances; its kernel keeps what balance allows.
import { positionsOf, type Group, type GroupMember } from './input.js';
import type { Claims } from './sticky/claims.js';
import { planGroup, type PlanReport, type PlanTopic } from './sticky/plan.js';
import { checkStickyOptions, type StickyOptions } from './sticky-options.js';

export type { StickyOptions } from './sticky-options.js';

/** Per entry of a subscription list: the count its claims were made at (0: no such topic). */
function claimCounts(list: readonly string[], group: Group): Int32Array {
  return Int32Array.from(list, (name) => {
    const info = group.topics.get(name);
    return info === undefined ? 0 : info.previous > 0 ? info.previous : info.partitions;
  });
}

/** A member's owned partitions as the planner's claims (topics it subscribes and that exist). */
function claimsOf(member: GroupMember, counts: Int32Array, positions: Map<string, number>): Claims | null {
  const { topics, start: from, partitions: owned } = member.owned;
  if (topics.length === 0 && member.rack === null) return null;
  const at = new Int32Array(topics.length); // position in the subscription, -1: not claimed
  let entries = 0;
  let total = 0;
  for (let k = 0; k < topics.length; k++) {
    const i = positions.get(topics[k]!);
    const n = from[k + 1]! - from[k]!;
    at[k] = i === undefined || counts[i] === 0 || n === 0 ? -1 : i;
    if (at[k]! < 0) continue;
    entries++;
    total += n;
  }
  const topic = new Int32Array(entries);
  const count = new Int32Array(entries);
  const generation = entries === 0 ? -1 : member.generation;
  if (entries === topics.length) {
    // Every owned topic is claimed (the usual case): the claims are the owned arrays themselves.
    for (let k = 0; k < topics.length; k++) count[k] = counts[(topic[k] = at[k]!)]!;
    return { generation, rack: member.rack, fingerprint: '', topic, count, start: from, partitions: owned };
  }
  const start = new Int32Array(entries + 1);
  const partitions = new Int32Array(total);
  for (let k = 0, e = 0; k < topics.length; k++) {
    if (at[k]! < 0) continue;
    topic[e] = at[k]!;
    count[e] = counts[at[k]!]!;
    let to = start[e]!;
    for (let q = from[k]!; q < from[k + 1]!; q++) partitions[to++] = owned[q]!;
    start[++e] = to;
  }
  return { generation, rack: member.rack, fingerprint: '', topic, count, start, partitions };
}

/** Owner (member index) per partition of every assigned topic, and the planner's own report. */
export function assignSticky(group: Group, options: StickyOptions = {}): { owners: Map<string, Int32Array>; plan: PlanReport } {
  const checked = checkStickyOptions(options);
  // Members share their subscription lists (readGroup): the counts are looked up once per list.
  const countsByList = new Map<readonly string[], Int32Array>();
  const positions = new Map<readonly string[], Map<string, number>>();
  const members = group.members.map((m) => {
    let counts = countsByList.get(m.topics);
    if (counts === undefined) countsByList.set(m.topics, (counts = claimCounts(m.topics, group)));
    return { memberId: m.id, topics: m.topics, claims: claimsOf(m, counts, positionsOf(m.topics, positions)), readable: true };
  });
  const topics: PlanTopic[] = group.assigned.map((name) => {
    const t = group.topics.get(name)!;
    const racks = t.racks;
    return racks === null ? { name, partitions: t.partitions } : { name, partitions: t.partitions, racksOf: (p: number) => racks[p]! };
  });
  const plan = planGroup(members, topics, checked);
  // The plan's members are in member-id order too (group.members is sorted the same way).
  const owners = new Map(plan.topics.map((name, t) => [name, plan.owners[t]!]));
  return { owners, plan: plan.report };
}
