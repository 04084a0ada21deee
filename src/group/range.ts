// Kafka's RangeAssignor (kafka-clients 4.1 and 4.4), exactly, with its KIP-881 rack-aware form.
//
// Per topic: the subscribers in Kafka's member order (member-order.ts); each gets
// floor(P / S) partitions and the first P % S one more, as consecutive ranges. Rack-aware
// when some topic has subscribers with racks, replicas on at least one of those racks, and not
// every partition on the same set of racks: then, before the plain pass, each subscriber first takes
// partitions on its own rack up to its quota (a subscriber without a rack matches every
// partition), and topics with the same subscribers and the same partition count go together,
// partition p of all of them to one member. The plain pass then fills the quotas in order.
// test/group/oracle.test.ts runs Kafka's class on the same groups and compares.
import type { Group } from './input.js';
import { kafkaOrder } from './member-order.js';

/** One topic while it is assigned (Kafka's TopicAssignmentState). */
class TopicState {
  readonly owner: Int32Array;
  free: number;
  /** Partitions before this one are all taken (the plain pass reads from here). */
  private cursor = 0;
  private readonly count: Int32Array;
  private readonly quota: number;
  private extra: number;
  /** Replica racks per partition; null when none of the topic's subscribers has a rack. */
  readonly partitionRacks: string[][] | null;
  readonly needsRackAware: boolean;
  /** Per rack: its partitions ascending, and how far they are known to be taken. */
  private readonly byRack = new Map<string, { parts: number[]; at: number }>();

  readonly rackOf: (m: number) => string | null;

  /** Topic `name` of the group, its subscribers (`consumers`) in Kafka's member order. */
  constructor(
    readonly name: string,
    readonly consumers: number[],
    group: Group,
  ) {
    const { partitions, racks } = group.topics.get(name)!;
    this.rackOf = (m) => group.members[m]!.rack;
    const rackOf = this.rackOf;
    this.owner = new Int32Array(partitions).fill(-1);
    this.free = partitions;
    this.count = new Int32Array(group.members.length);
    this.quota = Math.floor(partitions / consumers.length);
    this.extra = partitions % consumers.length;
    const consumerRacks = new Set<string>();
    for (const m of consumers) if (rackOf(m) !== null) consumerRacks.add(rackOf(m)!);
    this.partitionRacks = consumerRacks.size === 0 ? null : Array.from({ length: partitions }, (_, p) => racks?.[p] ?? []);
    this.needsRackAware = this.partitionRacks !== null && needsRacks(consumerRacks, this.partitionRacks);
  }

  get partitions(): number {
    return this.owner.length;
  }

  maxAssignable(m: number): number {
    return Math.max(0, this.quota + (this.extra > 0 ? 1 : 0) - this.count[m]!);
  }

  racksMatch(m: number, p: number): boolean {
    const rack = this.rackOf(m);
    return rack === null || this.partitionRacks![p]!.includes(rack);
  }

  assign(m: number, parts: readonly number[]): void {
    for (const p of parts) this.owner[p] = m;
    this.free -= parts.length;
    this.count[m]! += parts.length;
    if (this.count[m]! > this.quota) this.extra--;
  }

  /** The first `n` free partitions, ascending. */
  firstFree(n: number): number[] {
    const out: number[] = [];
    while (this.cursor < this.owner.length && this.owner[this.cursor]! >= 0) this.cursor++;
    for (let p = this.cursor; p < this.owner.length && out.length < n; p++) if (this.owner[p]! < 0) out.push(p);
    return out;
  }

  /** The first `n` free partitions that have a replica on `rack`, ascending. */
  firstFreeOnRack(rack: string, n: number): number[] {
    let list = this.byRack.get(rack);
    if (list === undefined) {
      const parts: number[] = [];
      this.partitionRacks!.forEach((rs, p) => {
        if (rs.includes(rack)) parts.push(p);
      });
      list = { parts, at: 0 };
      this.byRack.set(rack, list);
    }
    while (list.at < list.parts.length && this.owner[list.parts[list.at]!]! >= 0) list.at++;
    const out: number[] = [];
    for (let i = list.at; i < list.parts.length && out.length < n; i++) if (this.owner[list.parts[i]!]! < 0) out.push(list.parts[i]!);
    return out;
  }
}

/** AbstractPartitionAssignor.useRackAwareAssignment: racks shared, and not every partition on the same racks. */
function needsRacks(consumerRacks: Set<string>, partitionRacks: string[][]): boolean {
  const all = new Set<string>();
  for (const rs of partitionRacks) for (const r of rs) all.add(r);
  if (![...consumerRacks].some((r) => all.has(r))) return false;
  return partitionRacks.some((rs) => rs.length !== all.size);
}

/** Kafka's assignRanges: each consumer in order takes free partitions (rack-matching ones when asked) up to its quota. */
function assignRanges(state: TopicState, rackMatching: boolean): void {
  for (const m of state.consumers) {
    if (state.free === 0) break;
    const max = state.maxAssignable(m);
    if (max === 0) continue;
    // A member without a rack matches every partition (Kafka's racksMatch).
    const rack = rackMatching ? state.rackOf(m) : null;
    const parts = rack === null ? state.firstFree(max) : state.firstFreeOnRack(rack, max);
    if (parts.length > 0) state.assign(m, parts);
  }
}

/** Co-partitioned topics (same subscribers, same count): partition p of each goes to the first member on a rack of all of them with room. */
function assignCoPartitioned(states: readonly TopicState[], partitions: number): void {
  const remaining = [...states[0]!.consumers];
  for (let p = 0; p < partitions && remaining.length > 0; p++) {
    const at = remaining.findIndex((m) => states.every((t) => t.racksMatch(m, p) && t.maxAssignable(m) > 0));
    if (at < 0) continue;
    const m = remaining[at]!;
    for (const t of states) t.assign(m, [p]);
    if (states.every((t) => t.maxAssignable(m) === 0)) remaining.splice(at, 1);
  }
}

/** Kafka's assignWithRackMatching: topics grouped by subscribers, then by partition count (0 when no subscriber has a rack). */
function assignWithRackMatching(states: readonly TopicState[]): void {
  const groups = new Map<string, TopicState[]>();
  for (const s of states) {
    const key = `${s.consumers.join(',')}/${s.partitionRacks === null ? 0 : s.partitions}`;
    const list = groups.get(key);
    if (list === undefined) groups.set(key, [s]);
    else list.push(s);
  }
  // The groups share no topic, so their order does not matter.
  for (const group of groups.values()) {
    if (group.length > 1) {
      if (group[0]!.partitionRacks !== null) assignCoPartitioned(group, group[0]!.partitions);
    } else if (group[0]!.needsRackAware) assignRanges(group[0]!, true);
  }
}

/** Owner (member index) of every partition of every assigned topic, as Kafka's RangeAssignor decides. */
export function assignRange(group: Group): Map<string, Int32Array> {
  const subscribers = new Map<string, number[]>();
  group.members.forEach((member, m) => {
    for (const t of member.topics) subscribers.get(t)?.push(m) ?? subscribers.set(t, [m]);
  });
  // Topics with the same subscribers share one sorted list (usually every topic has the same).
  const orders: { subs: number[]; order: number[] }[] = [];
  const orderOf = (subs: number[]): number[] => {
    const same = orders.find((o) => o.subs.length === subs.length && o.subs.every((m, i) => m === subs[i]));
    if (same !== undefined) return same.order;
    orders.push({ subs, order: kafkaOrder(group.members, subs) });
    return orders.at(-1)!.order;
  };
  const states = group.assigned.map((name) => new TopicState(name, orderOf(subscribers.get(name)!), group));
  if (states.some((s) => s.needsRackAware)) assignWithRackMatching(states);
  for (const s of states) assignRanges(s, false);
  return new Map(states.map((s) => [s.name, s.owner]));
}
