// The sticky assigner's planner: from what the members sent (subscriptions and claims) and the
// topics' partition counts, the next assignment. It knows nothing of KafkaJS (assigner.ts
// translates), so tests and the benchmark drive it directly.
//
// Steps: sort members and topics; resolve claims (a newer generation wins a partition, then the
// lower member); if the group is exactly the one the claimed assignment was made for, keep it;
// otherwise turn topics into kernel topics (a topic, a topic folded after a growth to a multiple,
// or a co-partitioned set), find the balanced classes, run the kernel, and read the owners back.
import { loadKernels, type EngineChoice, type EngineName } from '../../engine/kernels.js';
import { CO_COUNTS_DIFFER, CO_SUBSCRIBERS_DIFFER, CO_TOO_FEW, GROWTH_FOLDED, GROWTH_ORPHANS, GROWTH_SKEW } from '../../engine/abi.js';
import { analyzeExpansion } from '../../expansion/index.js';
import type { Claims } from './claims.js';
import { byCodeUnits } from '../../basics.js';

export interface PlanMember {
  memberId: string;
  /** The member's subscription, as it sent it. */
  topics: readonly string[];
  /** What it claims to own; null when it claims nothing or its userData could not be read. */
  claims: Claims | null;
  /** False when its userData was present but not readable (another assigner version, damage). */
  readable: boolean;
}

export interface PlanTopic {
  name: string;
  partitions: number;
  /** Racks holding a replica of a partition, when the brokers report racks. */
  racksOf?: (partition: number) => readonly string[];
}

export interface CoPartitionGroup {
  name: string;
  topics: readonly string[];
}

export interface PlanOptions {
  /** A member may hold up to growthSkew x its fair share of a grown topic to keep every key. */
  growthSkew: number;
  coPartitioned: readonly CoPartitionGroup[];
  engine?: EngineChoice;
}

export interface GrowthReport {
  topic: string;
  from: number;
  to: number;
  /** True when every new partition went to the owner of its parent (p mod from): no key moved. */
  keysKept: boolean;
  /** Share of keys that changed member (exact for multiples; the least possible otherwise). */
  movedShare: number;
  summary: string;
}

export interface CoPartitionReport {
  name: string;
  topics: readonly string[];
  honored: boolean;
  reason?: string;
}

export interface PlanReport {
  members: number;
  topics: number;
  partitions: number;
  /** Partitions that stayed with their owner. */
  kept: number;
  /** Partitions taken from an owner that is still in the group and subscribed. */
  moved: number;
  /** Partitions that had no owner in the group (new, owner gone, or unreadable claims). */
  placed: number;
  /** The group, its subscriptions and the partition counts were exactly those of the claimed assignment: kept as it was. */
  unchanged: boolean;
  /** Claims lost to a newer generation (or, in the same generation, to a member sorted earlier). */
  conflicts: number;
  rackAware: boolean;
  /** Partitions owned by a member in one of their replica racks (null when racks are not in use). */
  rackMatched: number | null;
  growth: GrowthReport[];
  coPartitioned: CoPartitionReport[];
  /** Members whose userData could not be read: treated as owning nothing. */
  unreadableMembers: string[];
  /** Subscribed topics that have no partitions in the metadata. */
  missingTopics: string[];
  engine: EngineName;
}

/**
 * The assignment, flat: member m (in member-id order) is assigned entries
 * [entryStart[m], entryStart[m + 1]); entry e is topic entryTopic[e] (ascending) with partitions
 * partitionsByOwner[entryTopic[e]][entryFrom[e] .. entryTo[e]) (ascending). No object per
 * partition or per (member, topic): the KafkaJS bytes are written straight from these arrays.
 */
export interface Plan {
  memberIds: string[];
  topics: string[];
  counts: Int32Array;
  partitionsByOwner: Int32Array[];
  entryStart: Int32Array;
  entryTopic: Int32Array;
  entryFrom: Int32Array;
  entryTo: Int32Array;
  fingerprint: string;
  /** Per topic (as `topics`), the owner (index into memberIds) of every partition: the same assignment, for callers that want it per partition. */
  owners: Int32Array[];
  report: PlanReport;
}



// Working arrays of one planGroup call (owners and generations per partition, the kernel's
// previous and soft owners, subscribers, slice ends), kept across calls: at a million partitions
// they are ~25 MB a call, and allocating them afresh made every rebalance trigger a full
// (mark-compact) collection. planGroup is synchronous and none of them outlives the call (the
// Plan it returns is built in fresh arrays); their size is that of the largest group planned.
const SCRATCH_OWNER = 0;
const SCRATCH_GEN = 1;
const SCRATCH_SUBS = 4;
const SCRATCH_ENDS = 5;
const scratchArrays: Int32Array[] = [];

/** Scratch array `slot`, n entries long, contents undefined (callers write every entry they read). */
function scratch(slot: number, n: number): Int32Array {
  let a = scratchArrays[slot];
  if (a === undefined || a.length < n) {
    a = new Int32Array(n);
    scratchArrays[slot] = a;
  }
  return a.subarray(0, n);
}

/** Two 32-bit multiplicative hashes side by side: a 64-bit fingerprint as 16 hex digits. */
class Fingerprint {
  private a = 0x811c9dc5 | 0;
  private b = 0x9747b28c | 0;
  int(v: number): void {
    this.a = Math.imul(this.a ^ v, 0x01000193);
    this.b = Math.imul((this.b ^ v) + 0x7f4a7c15, 0x5bd1e995);
    this.b ^= this.b >>> 15;
  }
  text(s: string): void {
    this.int(s.length);
    for (let i = 0; i < s.length; i++) this.int(s.charCodeAt(i));
  }
  hex(): string {
    return (this.a >>> 0).toString(16).padStart(8, '0') + (this.b >>> 0).toString(16).padStart(8, '0');
  }
}

/** The topics the group subscribes and that have partitions, by name (topic t is names[t]). */
interface TopicTable {
  names: string[];
  counts: Int32Array;
  index: Map<string, number>;
  info: Map<string, PlanTopic>;
  /** Subscribed topics without partitions in the metadata. */
  missing: string[];
}

/** Who subscribes what, as topic indices. */
interface Subscriptions {
  /** Per member: its topics, sorted and distinct (members with the same list share one array). */
  memberTopics: Int32Array[];
  /** Per distinct subscription list: the topic index of each entry (-1: none), for reading claims. */
  listIndex: Map<readonly string[], Int32Array>;
  /** Subscribers of topic t, ascending member index: subs[start[t] .. start[t + 1]). */
  start: Int32Array;
  subs: Int32Array;
}

/** The resolved claims: the owner of every partition, and the partition count each topic was claimed at. */
interface Ownership {
  owner: Int32Array[];
  /** The same owners, flat: topic after topic. */
  flat: Int32Array;
  from: Int32Array;
  claimed: number;
  conflicts: number;
  unreadable: string[];
}

/** Members' racks interned; a partition's racks are those of its replicas some member is in. */
interface Racks {
  count: number;
  memberRack: Int32Array;
  memberRackNames: (string | null)[];
  racksOf: (t: number, p: number) => number[];
}

/**
 * The next assignment of a sticky group. The steps: sort members and read the topics; resolve
 * the claims (a newer generation wins a partition, then the lower member); if the group is
 * exactly the one the claimed assignment was made for, keep it; otherwise rebalance (fold grown
 * topics, run the kernel); then group the owners per member and report.
 */
export function planGroup(members: readonly PlanMember[], topicInfo: readonly PlanTopic[], options: PlanOptions): Plan {
  const kernels = loadKernels({ engine: options.engine });
  const sorted = [...members].sort((x, y) => byCodeUnits(x.memberId, y.memberId));
  // Members usually share one subscription array (decodeSubscription's cache): every step that
  // reads a subscription does it once per distinct array.
  const lists = [...new Set(sorted.map((m) => m.topics))];
  const topics = readTopics(lists, topicInfo);
  const subscriptions = readSubscriptions(sorted, lists, topics);
  const ownership = resolveClaims(sorted, topics, subscriptions);
  const racks = internRacks(sorted, topics);
  const fingerprint = groupFingerprint(sorted, topics, subscriptions, racks, options);
  const unchanged = sameGroup(sorted, ownership, topics, fingerprint);
  const growth: GrowthReport[] = [];
  const coReports: CoPartitionReport[] = [];
  const newOwner = unchanged ? ownership.owner : rebalance({ M: sorted.length, topics, subscriptions, ownership, racks }, options, kernels, { growth, coPartitioned: coReports });
  const byOwner = groupByOwner(sorted.length, topics.counts, subscriptions, newOwner, ownership.owner);
  const rackAware = racks.count > 0 && topicInfo.some((t) => t.racksOf !== undefined);
  const { partitionsByOwner, entryStart, entryTopic, entryFrom, entryTo, kept, moved, placed } = byOwner;
  return {
    memberIds: sorted.map((m) => m.memberId),
    topics: topics.names,
    counts: topics.counts,
    partitionsByOwner,
    entryStart,
    entryTopic,
    entryFrom,
    entryTo,
    fingerprint,
    // Unchanged, the owners are views of this call's scratch (resolveClaims): copied out.
    owners: unchanged ? newOwner.map((o) => o.slice()) : newOwner,
    report: {
      members: sorted.length,
      topics: topics.names.length,
      partitions: topics.counts.reduce((a, b) => a + b, 0),
      kept,
      moved,
      placed,
      unchanged,
      conflicts: ownership.conflicts,
      rackAware,
      rackMatched: rackAware ? rackMatchedCount(newOwner, racks) : null,
      growth,
      coPartitioned: coReports,
      unreadableMembers: ownership.unreadable,
      missingTopics: topics.missing,
      engine: kernels.name,
    },
  };
}

/** Topics subscribed and with partitions, sorted by name; the others are missing. */
function readTopics(lists: readonly (readonly string[])[], topicInfo: readonly PlanTopic[]): TopicTable {
  const info = new Map<string, PlanTopic>();
  for (const t of topicInfo) info.set(t.name, t);
  const subscribed = new Set<string>();
  const missing = new Set<string>();
  for (const list of lists) {
    for (const t of list) {
      if ((info.get(t)?.partitions ?? 0) > 0) subscribed.add(t);
      else missing.add(t);
    }
  }
  const names = [...subscribed].sort(byCodeUnits);
  const index = new Map<string, number>();
  names.forEach((n, i) => index.set(n, i));
  return { names, counts: Int32Array.from(names, (n) => info.get(n)!.partitions), index, info, missing: [...missing].sort(byCodeUnits) };
}

/** Per distinct list its topic indices; per member its sorted topics; per topic its subscribers. */
function readSubscriptions(sorted: readonly PlanMember[], lists: readonly (readonly string[])[], topics: TopicTable): Subscriptions {
  const listTopics = new Map<readonly string[], Int32Array>();
  const listIndex = new Map<readonly string[], Int32Array>();
  for (const list of lists) {
    const at = new Int32Array(list.length);
    const set = new Set<number>();
    list.forEach((t, i) => {
      at[i] = topics.index.get(t) ?? -1;
      if (at[i]! >= 0) set.add(at[i]!);
    });
    listIndex.set(list, at);
    listTopics.set(list, Int32Array.from(set).sort());
  }
  const memberTopics: Int32Array[] = sorted.map((m) => listTopics.get(m.topics)!);
  const { start, subs } = subscribersOf(topics.names.length, memberTopics);
  return { memberTopics, listIndex, start, subs };
}

/**
 * Claims -> owner per partition; the newest generation wins, then the lower member index. Flat,
 * topic after topic (owner[t] is topic t's view): two allocations, not two per topic.
 */
function resolveClaims(sorted: readonly PlanMember[], topics: TopicTable, subscriptions: Subscriptions): Ownership {
  const T = topics.names.length;
  const topicStart = new Int32Array(T + 1);
  for (let t = 0; t < T; t++) topicStart[t + 1] = topicStart[t]! + topics.counts[t]!;
  const ownerFlat = scratch(SCRATCH_OWNER, topicStart[T]!).fill(-1);
  const genFlat = scratch(SCRATCH_GEN, topicStart[T]!).fill(-2);
  const owner: Int32Array[] = new Array<Int32Array>(T);
  for (let t = 0; t < T; t++) owner[t] = ownerFlat.subarray(topicStart[t]!, topicStart[t + 1]!);
  const table: ClaimTable = {
    topicStart,
    owner: ownerFlat,
    ownerGen: genFlat,
    from: new Int32Array(T), // recorded count at the newest generation claiming the topic
    fromGen: new Int32Array(T).fill(-2),
    claimed: 0,
    conflicts: 0,
  };
  const unreadable: string[] = [];
  for (let m = 0; m < sorted.length; m++) {
    const member = sorted[m]!;
    if (!member.readable) unreadable.push(member.memberId);
    const c = member.claims;
    if (c === null || c.generation < 0) continue;
    claimPartitions(table, c, subscriptions.listIndex.get(member.topics)!, m);
  }
  return { owner, flat: ownerFlat, from: table.from, claimed: table.claimed, conflicts: table.conflicts, unreadable };
}

/** Members' racks interned in name order; racksOf(t, p) gives partition p's racks that some member is in. */
function internRacks(sorted: readonly PlanMember[], topics: TopicTable): Racks {
  const rackId = new Map<string, number>();
  const memberRackNames = sorted.map((m) => m.claims?.rack ?? null);
  for (const r of [...new Set(memberRackNames.filter((r): r is string => r !== null))].sort(byCodeUnits)) rackId.set(r, rackId.size);
  const memberRack = Int32Array.from(memberRackNames, (r) => (r === null ? -1 : rackId.get(r)!));
  const racksOf = (t: number, p: number): number[] => {
    const f = topics.info.get(topics.names[t]!)!.racksOf;
    if (f === undefined || rackId.size === 0) return [];
    const out: number[] = [];
    for (const r of f(p)) {
      const id = rackId.get(r);
      if (id !== undefined && !out.includes(id)) out.push(id);
    }
    return out;
  };
  return { count: rackId.size, memberRack, memberRackNames, racksOf };
}

/** Fingerprint of everything an assignment depends on, but the claims. */
function groupFingerprint(sorted: readonly PlanMember[], topics: TopicTable, subscriptions: Subscriptions, racks: Racks, options: PlanOptions): string {
  const fp = new Fingerprint();
  fp.text(`growthSkew=${options.growthSkew}`);
  for (const g of options.coPartitioned) {
    fp.text(g.name);
    for (const t of g.topics) fp.text(t);
  }
  fp.int(topics.names.length);
  for (let t = 0; t < topics.names.length; t++) {
    fp.text(topics.names[t]!);
    fp.int(topics.counts[t]!);
  }
  fp.int(sorted.length);
  const listHash = new Map<Int32Array, number>();
  for (let m = 0; m < sorted.length; m++) {
    const mine = subscriptions.memberTopics[m]!;
    fp.text(sorted[m]!.memberId);
    fp.text(racks.memberRackNames[m] ?? '');
    let h = listHash.get(mine);
    if (h === undefined) {
      h = mine.length;
      for (const t of mine) h = Math.imul(h ^ t, 0x01000193) ^ (h >>> 11);
      listHash.set(mine, h);
    }
    fp.int(mine.length);
    fp.int(h);
  }
  return fp.hex();
}

/**
 * The same group as at the claimed assignment: every member claims, for this very fingerprint,
 * and the claims cover every partition exactly once. Then the assignment is kept as it is. This
 * is what makes KafkaJS's extra rebalances (a member that saw new metadata late) free, and keeps
 * a growth's relaxed balance until the group really changes. The claims need not name one
 * generation: a @platformatic/kafka member names the first generation of its unchanged run
 * (src/group/claims.ts nextHolding). Disjoint covering claims of one group's plans are still
 * a plan of that group: each member's share came from a plan balanced for these very counts.
 */
function sameGroup(sorted: readonly PlanMember[], ownership: Ownership, topics: TopicTable, fingerprint: string): boolean {
  return (
    sorted.length > 0 &&
    ownership.conflicts === 0 &&
    ownership.claimed === topics.counts.reduce((a, b) => a + b, 0) &&
    sorted.every((m) => m.claims !== null && m.claims.generation >= 0 && m.claims.fingerprint === fingerprint)
  );
}

/** What a rebalance reads: the sorted group, its topics, subscriptions, resolved owners and racks. */
interface Group {
  M: number;
  topics: TopicTable;
  subscriptions: Subscriptions;
  ownership: Ownership;
  racks: Racks;
}

/** A new assignment: the kernel's planner (co-partitioned sets, growth folds, balance) on the flat group, then its reports. */
function rebalance(g: Group, options: PlanOptions, kernels: ReturnType<typeof loadKernels>, reports: { growth: GrowthReport[]; coPartitioned: CoPartitionReport[] }): Int32Array[] {
  const { topics, subscriptions, ownership } = g;
  const present = options.coPartitioned.map((c) => c.topics.map((t) => topics.index.get(t)).filter((i): i is number => i !== undefined));
  const coStart = new Int32Array(present.length + 1);
  present.forEach((list, i) => (coStart[i + 1] = coStart[i]! + list.length));
  const { rackStart, racks } = flatRacks(g);
  const result = kernels.groupPlan({
    members: g.M,
    counts: topics.counts,
    from: ownership.from,
    inferGrowth: false,
    growthSkew: options.growthSkew,
    // One list per topic: the planner's own tables are per topic too.
    listStart: subscriptions.start,
    listMembers: subscriptions.subs,
    topicList: Int32Array.from(topics.counts, (_, t) => t),
    owner: ownership.flat,
    rackCount: g.racks.count,
    memberRack: g.racks.memberRack,
    rackStart,
    racks,
    coStart,
    coTopics: Int32Array.from(present.flat()),
  });
  const out: Int32Array[] = [];
  for (let t = 0, at = 0; t < topics.counts.length; at += topics.counts[t++]!) out.push(result.owner.subarray(at, at + topics.counts[t]!));
  options.coPartitioned.forEach((c, i) => reports.coPartitioned.push(coPartitionReport(c, present[i]!, topics, result.coStatus.subarray(2 * i, 2 * i + 2))));
  for (let i = 0; i < result.growth.length; i += 3) reports.growth.push(growthReport(g, options.growthSkew, result.growth.subarray(i, i + 3), result.from));
  growthMovedShares(reports.growth, topics, out, ownership.owner);
  return out;
}

/** Every partition's replica racks that some member is in, flat (empty when racks are not in use). */
function flatRacks(g: Group): { rackStart: Int32Array; racks: Int32Array } {
  if (g.racks.count === 0) return { rackStart: new Int32Array(0), racks: new Int32Array(0) };
  const { counts } = g.topics;
  const rackStart = new Int32Array(g.ownership.flat.length + 1);
  const racks: number[] = [];
  for (let t = 0, i = 0; t < counts.length; t++) {
    for (let p = 0; p < counts[t]!; p++) {
      for (const r of g.racks.racksOf(t, p)) racks.push(r);
      rackStart[++i] = racks.length;
    }
  }
  return { rackStart, racks: Int32Array.from(racks) };
}

/** A co-partitioned set's report from the planner's (CO_* code, topic) pair. */
function coPartitionReport(c: CoPartitionGroup, present: readonly number[], topics: TopicTable, status: Int32Array): CoPartitionReport {
  const { names, counts } = topics;
  const t0 = present[0]!;
  const t = status[1]!;
  const reason =
    status[0] === CO_TOO_FEW
      ? 'fewer than two of its topics are subscribed and have partitions'
      : status[0] === CO_COUNTS_DIFFER
        ? `partition counts differ (${names[t0]} has ${counts[t0]}, ${names[t]} has ${counts[t]})`
        : status[0] === CO_SUBSCRIBERS_DIFFER
          ? `${names[t0]} and ${names[t]} have different subscribers`
          : undefined;
  return { name: c.name, topics: c.topics, honored: reason === undefined, ...(reason === undefined ? {} : { reason }) };
}

/** A growth's report from the planner's (topic, GROWTH_* code, value) triple. */
function growthReport(g: Group, growthSkew: number, triple: Int32Array, from: Int32Array): GrowthReport {
  const { names, counts } = g.topics;
  const [t, code, value] = [triple[0]!, triple[1]!, triple[2]!];
  const [name, B, C] = [names[t]!, from[t]!, counts[t]!];
  const S = g.subscriptions.start[t + 1]! - g.subscriptions.start[t]!;
  const fold = code === GROWTH_FOLDED;
  const analysis = analyzeExpansion(B, C);
  const why =
    code === GROWTH_ORPHANS
      ? `${value} of its ${B} old partitions have no owner in the group any more`
      : code === GROWTH_SKEW
        ? `keeping every key would give a member ${value} of ${C} partitions with ${S} subscribers, more than growthSkew (${growthSkew}) times its share`
        : '';
  return {
    topic: name,
    from: B,
    to: C,
    keysKept: fold,
    movedShare: fold ? 0 : analysis.movedShare,
    summary: fold
      ? `${name}: ${B} -> ${C}: partition p joined the owner of p mod ${B}; every key stayed with its member`
      : C % B === 0
        ? `${name}: ${B} -> ${C}: ${why}; balanced instead, preferring the owner of p mod ${B} for new partition p`
        : `${name}: ${analysis.summary}`,
  };
}

/** Exact share of keys that changed member on a growth to a multiple that was not folded. */
function growthMovedShares(growth: GrowthReport[], topics: TopicTable, out: readonly Int32Array[], owner: readonly Int32Array[]): void {
  for (const g of growth) {
    if (g.keysKept || g.to % g.from !== 0) continue;
    const t = topics.index.get(g.topic)!;
    let changed = 0;
    for (let q = 0; q < g.to; q++) if (out[t]![q] !== owner[t]![q % g.from]) changed++;
    g.movedShare = changed / g.to;
  }
}

/** Partitions owned by a member in one of their replica racks. */
function rackMatchedCount(newOwner: readonly Int32Array[], racks: Racks): number {
  let n = 0;
  for (let t = 0; t < newOwner.length; t++) {
    const o = newOwner[t]!;
    for (let p = 0; p < o.length; p++) if (racks.memberRack[o[p]!]! >= 0 && racks.racksOf(t, p).includes(racks.memberRack[o[p]!]!)) n++;
  }
  return n;
}

/**
 * Per topic: partitions grouped by owner (counting sort, ascending within an owner), all topics in
 * one buffer; per member: entries (topic, slice), topics ascending; and the moves against the
 * previous owners. A function of its own, on typed arrays only: this is a pass over every
 * partition and every (topic, subscriber) pair, 2M steps at the benchmark's size.
 */
function groupByOwner(M: number, counts: Int32Array, subscriptions: Subscriptions, newOwner: readonly Int32Array[], owner: readonly Int32Array[]) {
  const { start: subStart, subs } = subscriptions;
  const T = counts.length;
  let N = 0;
  for (let t = 0; t < T; t++) N += counts[t]!;
  const flat = new Int32Array(N);
  const partitionsByOwner: Int32Array[] = new Array<Int32Array>(T);
  // Per (topic, subscriber position j): where that subscriber's slice ends in its topic's array;
  // slot subStart[t] + t holds 0, so slice j is ends[base + j] .. ends[base + j + 1].
  const ends = scratch(SCRATCH_ENDS, subs.length + T);
  const posOf = new Int32Array(M);
  const cursor = new Int32Array(M);
  const entryStart = new Int32Array(M + 1);
  let kept = 0;
  let moved = 0;
  let placed = 0;
  let at0 = 0;
  for (let t = 0; t < T; t++) {
    const s0 = subStart[t]!;
    const S = subStart[t + 1]! - s0;
    const base = s0 + t;
    // Subscribers are ascending member indices, so when every member subscribes, subscriber j is
    // member j: the common case skips the member -> position map (two indirections per partition).
    const everyone = S === M;
    if (!everyone) for (let j = 0; j < S; j++) posOf[subs[s0 + j]!] = j;
    const o = newOwner[t]!;
    const prev = owner[t]!;
    const C = counts[t]!;
    ends[base] = 0;
    for (let j = 0; j < S; j++) cursor[j] = 0;
    if (everyone) for (let p = 0; p < C; p++) cursor[o[p]!]!++;
    else for (let p = 0; p < C; p++) cursor[posOf[o[p]!]!]!++;
    let sum = 0;
    for (let j = 0; j < S; j++) {
      const n = cursor[j]!;
      if (n > 0) entryStart[subs[s0 + j]! + 1]!++;
      cursor[j] = sum;
      sum += n;
      ends[base + j + 1] = sum;
    }
    const byOwner = flat.subarray(at0, at0 + C);
    at0 += C;
    if (everyone) for (let p = 0; p < C; p++) byOwner[cursor[o[p]!]!++] = p;
    else for (let p = 0; p < C; p++) byOwner[cursor[posOf[o[p]!]!]!++] = p;
    for (let p = 0; p < C; p++) {
      const m = o[p]!;
      const q = prev[p]!;
      if (q < 0) placed++;
      else if (q === m) kept++;
      else moved++;
    }
    partitionsByOwner[t] = byOwner;
  }
  for (let m = 0; m < M; m++) entryStart[m + 1]! += entryStart[m]!;
  const E = entryStart[M]!;
  // One allocation for the three entry arrays (a million entries when every member holds one
  // partition of each topic).
  const entries = new Int32Array(3 * E);
  const entryTopic = entries.subarray(0, E);
  const entryFrom = entries.subarray(E, 2 * E);
  const entryTo = entries.subarray(2 * E);
  const fill = entryStart.slice(0, M);
  for (let t = 0; t < T; t++) {
    const s0 = subStart[t]!;
    const S = subStart[t + 1]! - s0;
    const base = s0 + t;
    for (let j = 0; j < S; j++) {
      const a = ends[base + j]!;
      const b = ends[base + j + 1]!;
      if (a === b) continue;
      const e = fill[subs[s0 + j]!]!++;
      entryTopic[e] = t;
      entryFrom[e] = a;
      entryTo[e] = b;
    }
  }
  return { partitionsByOwner, entryStart, entryTopic, entryFrom, entryTo, kept, moved, placed };
}

/** The claims read so far: owner and generation per flat partition (topic t's partition p at topicStart[t] + p). */
interface ClaimTable {
  topicStart: Int32Array;
  owner: Int32Array; // -1: unclaimed
  ownerGen: Int32Array; // -2: unclaimed
  from: Int32Array; // per topic: the count recorded at the newest generation claiming it
  fromGen: Int32Array;
  claimed: number;
  conflicts: number;
}

/**
 * Member m's claims (topic k of its list is topic index[k]) into the table. A newer generation
 * wins; in the same generation the earlier member, which claimed first.
 */
function claimPartitions(table: ClaimTable, c: Claims, index: Int32Array, m: number): void {
  const { topicStart, owner, ownerGen, from, fromGen } = table;
  const g = c.generation;
  const parts = c.partitions;
  let claimed = 0;
  let conflicts = 0;
  for (let k = 0; k < c.topic.length; k++) {
    const t = index[c.topic[k]!]!;
    if (t < 0) continue;
    if (g > fromGen[t]!) {
      fromGen[t] = g;
      from[t] = c.count[k]!;
    }
    const base = topicStart[t]!;
    const C = topicStart[t + 1]! - base;
    for (let i = c.start[k]!, end = c.start[k + 1]!; i < end; i++) {
      const p = parts[i]!;
      if (p >= C) continue;
      claimed++;
      const q = base + p;
      const had = ownerGen[q]!;
      if (g > had) {
        // Claimed before exactly when a generation is recorded (they are written together, and
        // claims have generations >= 0): no read of owner[q], a cache miss per partition here.
        if (had >= 0) conflicts++;
        owner[q] = m;
        ownerGen[q] = g;
      } else conflicts++;
    }
  }
  table.claimed += claimed;
  table.conflicts += conflicts;
}

/**
 * Subscribers of every topic, ascending member index, flat: topic t's are subs[start[t] ..
 * start[t + 1]). Counted per distinct subscription (members share their topic arrays); when
 * every member has the same one, each topic's subscribers are all members, copied in one go.
 */
function subscribersOf(T: number, memberTopics: readonly Int32Array[]): { start: Int32Array; subs: Int32Array } {
  const M = memberTopics.length;
  const membersOf = new Map<Int32Array, number>();
  for (let m = 0; m < M; m++) membersOf.set(memberTopics[m]!, (membersOf.get(memberTopics[m]!) ?? 0) + 1);
  const start = new Int32Array(T + 1);
  for (const [ts, n] of membersOf) for (let i = 0; i < ts.length; i++) start[ts[i]! + 1]! += n;
  for (let t = 0; t < T; t++) start[t + 1]! += start[t]!;
  const subs = scratch(SCRATCH_SUBS, start[T]!); // every entry written below
  if (membersOf.size === 1 && M > 0) {
    const all = new Int32Array(M);
    for (let m = 0; m < M; m++) all[m] = m;
    const ts = memberTopics[0]!;
    for (let i = 0; i < ts.length; i++) subs.set(all, start[ts[i]!]!);
    return { start, subs };
  }
  const at = start.slice(0, T);
  for (let m = 0; m < M; m++) {
    const ts = memberTopics[m]!;
    for (let i = 0; i < ts.length; i++) subs[at[ts[i]!]!++] = m;
  }
  return { start, subs };
}
