// The broker's `uniform` assignor (kafka-group-coordinator 4.4.0, UniformAssignor), exactly.
//
// Homogeneous groups (every member subscribes the same topic names): each member keeps its current
// partitions up to its quota (floor(P / M), one more for the first P % M members that can use it),
// then the free partitions, topic by topic in the order of the broker's topic-id set, fill the
// members short of their quota in member order. Balance first, stickiness second.
//
// Heterogeneous groups: every member keeps all its current partitions; the free ones go, topic by
// topic (fewest partitions per subscriber last), to the least-loaded subscriber; then up to 16
// passes move partitions from the most- to the least-loaded subscriber of each topic, until a pass
// moves nothing. "Almost balanced": a member's load counts every topic, so a pass can stop short.
//
// Both depend on the order of the broker's hash tables; view.ts reproduces it for the canonical
// order. test/group/consumer-oracle.test.ts runs the jar on the same groups and compares.
import type { Group } from '../input.js';
import { compareTopicIds } from '../topic-id.js';
import { partitionOrder, segmentOrder, subscribedTopicOrder, subscribersInOrder, type ConsumerView } from './view.js';

/** Owners per topic index: the current ones kept, then the plan's. */
function startingOwners(view: ConsumerView): Int32Array[] {
  return view.current.map((o) => o.slice());
}

/** A member's current partitions within its quota stay; the rest go on `free`. Returns what quota is left. */
function keepUpToQuota(view: ConsumerView, m: number, quota: number, free: FreeList, owners: Int32Array[]): number {
  for (const s of segmentOrder(view, m)) {
    const size = view.segStart[s + 1]! - view.segStart[s]!;
    if (size <= quota) {
      quota -= size;
      continue;
    }
    const t = view.segTopic[s]!;
    for (const p of partitionOrder(view, s)) {
      if (quota > 0) quota--;
      else {
        owners[t]![p] = -1;
        free.push(t, p);
      }
    }
  }
  return quota;
}

/** Partitions waiting for a member, in the order they will be handed out. */
class FreeList {
  readonly topic: Int32Array;
  readonly part: Int32Array;
  length = 0;
  constructor(capacity: number) {
    this.topic = new Int32Array(capacity);
    this.part = new Int32Array(capacity);
  }
  push(t: number, p: number): void {
    this.topic[this.length] = t;
    this.part[this.length++] = p;
  }
}

function homogeneous(view: ConsumerView): Int32Array[] {
  const { group, counts, current } = view;
  const owners = startingOwners(view);
  const indexOf = new Map(group.assigned.map((name, t) => [name, t]));
  const topics = subscribedTopicOrder(view, group.members[view.order[0]!]!.topics, indexOf);
  if (topics.length === 0) return owners;
  let total = 0;
  for (const t of topics) total += counts[t]!;
  const M = group.members.length;
  const free = new FreeList(total);
  for (const t of topics) for (let p = 0; p < counts[t]!; p++) if (current[t]![p]! < 0) free.push(t, p);
  const minQuota = Math.floor(total / M);
  let extras = total % M;
  const short: number[] = [];
  view.order.forEach((m, i) => {
    const extra = extras > 0;
    let left = keepUpToQuota(view, m, minQuota + (extra ? 1 : 0), free, owners);
    // The extra partition stays with this member only while enough members follow to take the rest.
    let keepsExtra = extra;
    if (left > 0 && extra && M - i > extras) (left--, (keepsExtra = false));
    if (left > 0) short.push(m, left);
    if (keepsExtra) extras--;
  });
  let next = 0;
  for (let k = 0; k < short.length; k += 2) {
    for (let q = 0; q < short[k + 1]! && next < free.length; q++, next++) owners[free.topic[next]!]![free.part[next]!] = short[k]!;
  }
  return owners;
}

/**
 * Least- and most-loaded subscribers of one topic (Kafka's MemberAssignmentBalancer): the
 * subscribers sorted by load, then by position in the member order; the least-loaded are taken
 * round-robin from the front, the most-loaded from the back.
 */
class Balancer {
  /** Subscribers (positions in the member order), sorted by (load, position), in sorted[0 .. n). */
  private sorted = new Int32Array(0);
  private n = 0;
  private leastEnd = 0;
  private leastCount = 0;
  private nextLeast = 0;
  private mostStart = 0;
  private mostEnd = 0;
  private mostCount = 0;
  private nextMost = 0;

  /** `load`: partitions per position in the member order, shared with the plan. */
  constructor(private readonly load: Int32Array) {}

  /** Sorts the subscribers; returns the spread of their loads. */
  initialize(subscribers: Int32Array): number {
    const n = subscribers.length;
    this.sort(subscribers);
    this.n = n;
    this.leastEnd = 0;
    this.leastCount = this.loadAt(0) - 1;
    this.nextLeast = 0;
    this.mostStart = n;
    this.mostEnd = n;
    this.mostCount = this.loadAt(n - 1) + 1;
    this.nextMost = n - 1;
    return this.loadAt(n - 1) - this.loadAt(0);
  }

  /** The spread of the subscribers' loads, without sorting them. */
  spread(subscribers: Int32Array): number {
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < subscribers.length; i++) (min = Math.min(min, this.load[subscribers[i]!]!)), (max = Math.max(max, this.load[subscribers[i]!]!));
    return max - min;
  }

  /**
   * `subscribers` (ascending positions) into `sorted` by (load, position): a counting sort by load
   * when the loads are close (the usual case: this runs per topic and pass), else a numeric sort.
   */
  private sort(subscribers: Int32Array): void {
    const n = subscribers.length;
    if (this.sorted.length < n) this.sorted = new Int32Array(this.load.length);
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < n; i++) (min = Math.min(min, this.load[subscribers[i]!]!)), (max = Math.max(max, this.load[subscribers[i]!]!));
    if (max - min <= 4 * n + 64) {
      const start = new Int32Array(max - min + 2);
      for (let i = 0; i < n; i++) start[this.load[subscribers[i]!]! - min + 1]!++;
      for (let k = 1; k < start.length; k++) start[k]! += start[k - 1]!;
      for (let i = 0; i < n; i++) this.sorted[start[this.load[subscribers[i]!]! - min]!++] = subscribers[i]!;
      return;
    }
    const span = this.load.length;
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = this.load[subscribers[i]!]! * span + subscribers[i]!;
    keys.sort();
    for (let i = 0; i < n; i++) this.sorted[i] = keys[i]! % span;
  }

  private loadAt(i: number): number {
    return this.load[this.sorted[i]!]!;
  }

  nextLeastLoaded(): number {
    if (this.nextLeast >= this.leastEnd) {
      this.leastCount++;
      while (this.leastEnd < this.n && this.loadAt(this.leastEnd) === this.leastCount) this.leastEnd++;
      this.nextLeast = 0;
    }
    return this.sorted[this.nextLeast++]!;
  }

  /** The next most-loaded subscriber, or -1 when none is left. */
  nextMostLoaded(): number {
    if (this.nextMost < this.mostStart) {
      this.mostCount = this.mostEnd <= this.mostStart && this.mostStart > 0 ? this.loadAt(this.mostStart - 1) : this.mostCount - 1;
      while (this.mostStart > 0 && this.loadAt(this.mostStart - 1) === this.mostCount) this.mostStart--;
      this.nextMost = this.mostEnd - 1;
    }
    if (this.nextMost < 0) return -1;
    return this.sorted[this.nextMost--]!;
  }

  /** Drops the subscriber nextMostLoaded just gave (it has nothing of this topic to give). */
  excludeMostLoaded(): void {
    const at = this.nextMost + 1;
    const dropped = this.sorted[at]!;
    this.sorted[at] = this.sorted[this.mostEnd - 1]!;
    this.sorted[this.mostEnd - 1] = dropped;
    this.mostEnd--;
  }

  isBalanced(): boolean {
    return this.mostCount - this.leastCount <= 1;
  }
}

/**
 * The heterogeneous plan's state. Members are numbered by their position j in the member order
 * (view.order[j] is the member index); topics by index t into group.assigned.
 */
interface Heterogeneous {
  view: ConsumerView;
  /** Partitions held per position j. */
  load: Int32Array;
  /** Owner position j per partition of topic t (-1: none). */
  owner: Int32Array[];
  /** Subscriber positions of topic t, ascending. */
  subscribers: Int32Array[];
  balancer: Balancer;
}

function heterogeneousState(view: ConsumerView): Heterogeneous {
  const M = view.order.length;
  const positionOf = new Int32Array(M);
  view.order.forEach((m, j) => (positionOf[m] = j));
  const load = new Int32Array(M);
  const owner = view.current.map((o) => {
    const out = new Int32Array(o.length);
    for (let p = 0; p < o.length; p++) out[p] = o[p]! < 0 ? -1 : (load[positionOf[o[p]!]!]!++, positionOf[o[p]!]!);
    return out;
  });
  return { view, load, owner, subscribers: subscribersInOrder(view.group, view.order), balancer: new Balancer(load) };
}

/** Kafka's topic order: most partitions per subscriber first, then fewer subscribers, then by id. */
function sortTopics(state: Heterogeneous, topics: number[]): number[] {
  const { counts, ids } = state.view;
  const ratio = (t: number) => counts[t]! / state.subscribers[t]!.length;
  return topics.sort((a, b) => ratio(b) - ratio(a) || state.subscribers[a]!.length - state.subscribers[b]!.length || compareTopicIds(ids[a]!, ids[b]!));
}

function move(state: Heterogeneous, t: number, p: number, j: number): void {
  const from = state.owner[t]![p]!;
  if (from >= 0) state.load[from]!--;
  state.owner[t]![p] = j;
  state.load[j]!++;
}

/** Free partitions go, topic by topic, to the least-loaded subscriber. */
function placeFree(state: Heterogeneous): void {
  const withFree: number[] = [];
  state.owner.forEach((o, t) => {
    if (state.subscribers[t]!.length > 0 && o.includes(-1)) withFree.push(t);
  });
  for (const t of sortTopics(state, withFree)) {
    state.balancer.initialize(state.subscribers[t]!);
    const o = state.owner[t]!;
    for (let p = 0; p < o.length; p++) if (o[p]! < 0) move(state, t, p, state.balancer.nextLeastLoaded());
  }
}

/** Partitions of topic t sorted by owner, then number; with each owner's range in that list. */
function byOwner(state: Heterogeneous, t: number): { sorted: Int32Array; start: Int32Array; end: Int32Array } {
  const o = state.owner[t]!;
  const M = state.load.length;
  const start = new Int32Array(M + 1);
  for (let p = 0; p < o.length; p++) start[o[p]! + 1]!++;
  for (let j = 0; j < M; j++) start[j + 1]! += start[j]!;
  const end = start.slice(0, M);
  const sorted = new Int32Array(o.length);
  for (let p = 0; p < o.length; p++) sorted[end[o[p]!]!++] = p;
  return { sorted, start, end };
}

/** One balancing step on topic t: moves partitions from its most- to its least-loaded subscribers; returns how many. */
function balanceTopic(state: Heterogeneous, t: number): number {
  const b = state.balancer;
  // Kafka sorts first and then reads the spread; reading it first gives the same answer, cheaper.
  if (b.spread(state.subscribers[t]!) <= 1) return 0;
  b.initialize(state.subscribers[t]!);
  const { sorted, start, end } = byOwner(state, t);
  let moved = 0;
  while (!b.isBalanced()) {
    let most = b.nextMostLoaded();
    // A most-loaded subscriber with nothing left of this topic cannot give: skip it.
    while (most !== -1 && end[most]! - start[most]! <= 0) {
      b.excludeMostLoaded();
      most = b.nextMostLoaded();
    }
    if (most === -1) break;
    const p = sorted[--end[most]!]!;
    const least = b.nextLeastLoaded();
    if (b.isBalanced()) break;
    move(state, t, p, least);
    moved++;
  }
  return moved;
}

const MAX_PASSES = 16;

/** Up to 16 passes over the shared topics; stops when a whole round after the last change moved nothing. */
function balance(state: Heterogeneous): void {
  const shared: number[] = [];
  state.subscribers.forEach((s, t) => s.length >= 2 && shared.push(t));
  const topics = sortTopics(state, shared);
  let lastChanged = -1;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    for (let i = 0; i < topics.length; i++) {
      if (i === lastChanged) return;
      if (balanceTopic(state, topics[i]!) > 0 || lastChanged === -1) lastChanged = i;
    }
  }
}

function heterogeneous(view: ConsumerView): Int32Array[] {
  const state = heterogeneousState(view);
  if (state.subscribers.every((s) => s.length === 0)) return startingOwners(view);
  placeFree(state);
  balance(state);
  return state.owner.map((o) => o.map((j) => (j < 0 ? -1 : view.order[j]!)));
}

/** Every member subscribes the same topic names (those without metadata included), as the broker decides. */
export function isHomogeneous(group: Group): boolean {
  const members = group.members;
  if (members.length === 0) return true;
  const first = new Set(members[0]!.topics);
  // Members with one subscription share one list (input.ts): each distinct list is checked once.
  const checked = new Set<readonly string[]>();
  return members.every(({ topics }) => checked.has(topics) || (topics.length === first.size && topics.every((t) => first.has(t)) && checked.add(topics) !== null));
}

/** Owner (member index, -1: none) per partition of each topic index, as the broker's UniformAssignor gives them. */
export function assignUniform(view: ConsumerView): Int32Array[] {
  if (view.group.members.length === 0) return startingOwners(view);
  return isHomogeneous(view.group) ? homogeneous(view) : heterogeneous(view);
}
