// The sticky strategy on a plain group: the members' owned partitions become claims and the
// planner (sticky/plan.ts, the one the KafkaJS adapter runs) decides. A plain group carries no
// fingerprint, so the planner always rebalances; its kernel keeps what balance allows.
import { AssignorError, describe } from '../errors.js';
import type { EngineChoice } from '../engine/kernels.js';
import type { Group, GroupMember } from './input.js';
import type { Claims } from './sticky/claims.js';
import { planGroup, type CoPartitionGroup, type PlanReport, type PlanTopic } from './sticky/plan.js';

export interface StickyOptions {
  growthSkew?: number;
  coPartitioned?: readonly CoPartitionGroup[];
  engine?: EngineChoice;
}

/** A member's owned partitions as the planner's claims (topics it subscribes and that exist). */
function claimsOf(member: GroupMember, group: Group): Claims | null {
  if (member.owned.size === 0 && member.rack === null) return null;
  const topic: number[] = [];
  const count: number[] = [];
  const start: number[] = [0];
  const parts: number[] = [];
  member.topics.forEach((name, i) => {
    const owned = member.owned.get(name);
    const info = group.topics.get(name);
    if (owned === undefined || owned.length === 0 || info === undefined) return;
    topic.push(i);
    count.push(info.previous > 0 ? info.previous : info.partitions);
    for (const p of owned) parts.push(p);
    start.push(parts.length);
  });
  const generation = topic.length === 0 ? -1 : member.generation;
  return { generation, rack: member.rack, fingerprint: '', topic: Int32Array.from(topic), count: Int32Array.from(count), start: Int32Array.from(start), partitions: Int32Array.from(parts) };
}

/** Owner (member index) per partition of every assigned topic, and the planner's own report. */
export function assignSticky(group: Group, options: StickyOptions = {}): { owners: Map<string, Int32Array>; plan: PlanReport } {
  const skew = options.growthSkew ?? 2;
  if (typeof skew !== 'number' || Number.isNaN(skew) || skew < 1) throw new AssignorError('E_RANGE', `growthSkew must be a number >= 1 (Infinity: always keep keys), got ${describe(skew)}`, 'options.growthSkew');
  const members = group.members.map((m) => ({ memberId: m.id, topics: m.topics, claims: claimsOf(m, group), readable: true }));
  const topics: PlanTopic[] = group.assigned.map((name) => {
    const t = group.topics.get(name)!;
    const racks = t.racks;
    return racks === null ? { name, partitions: t.partitions } : { name, partitions: t.partitions, racksOf: (p: number) => racks[p]! };
  });
  const plan = planGroup(members, topics, { growthSkew: skew, coPartitioned: options.coPartitioned ?? [], engine: options.engine });
  // The plan's members are in member-id order too (group.members is sorted the same way).
  const byTopic = Array.from(plan.counts, (n) => new Int32Array(n).fill(-1));
  for (let m = 0; m < plan.memberIds.length; m++) {
    for (let e = plan.entryStart[m]!; e < plan.entryStart[m + 1]!; e++) {
      const owner = byTopic[plan.entryTopic[e]!]!;
      const byOwner = plan.partitionsByOwner[plan.entryTopic[e]!]!;
      for (let i = plan.entryFrom[e]!, end = plan.entryTo[e]!; i < end; i++) owner[byOwner[i]!] = m;
    }
  }
  const owners = new Map(plan.topics.map((name, t) => [name, byTopic[t]!]));
  return { owners, plan: plan.report };
}
