// Consumer-group balancing kernel (issue 9): the pure-TS twin (the interface is in ../abi.ts). assembly/group.ts
// must agree with this file exactly, so both are written in the same flat, index-based style.
//
// The problem: items (a partition, or a unit the caller built: partition p of every topic of a
// co-partitioned set) belong to topics; each topic has subscribers.
// Find an owner for every item such that
//   1. per topic, every subscriber holds floor(N/S) or ceil(N/S) items (N items, S subscribers);
//   2. per balanced class (topics whose subscribers all subscribe exactly the class's topics and
//      nothing else), the members' item totals differ by at most one;
//   3. as few items as possible leave their previous owner (weighted by topicWeight);
// then, without changing the counts: an orphan goes to its soft owner (the growth parent's
// owner) when that member still has room, then to a member in one of its replica racks.
//
// Why 3 is exact: with per-topic quotas n = floor + extra (extra in {0, 1}), a member keeps
// min(held, n) of its items, so the moves are sum(max(0, held - floor)) minus the extras given to
// members that hold more than the floor. Choosing the extras is a min-cost flow (topics -> members,
// cost -topicWeight on such "useful" pairs) when totals must balance, and a per-topic choice
// otherwise. Most extras save nothing, so the flow first runs on a sparse graph (the pairs whose
// extra saves something, and the slots of light members), from a greedy warm start, only while a
// path saves something; Ryser's greedy deals the rest (extrasOfClass, placeSparse). When that deal
// gets stuck, the exact flow on every (topic, member) pair decides (ClassFlow.run). Both are solved
// by primal-dual: Dijkstra on reduced costs, then blocking flows (Dinic) on zero-cost arcs.

import type { GroupProblem } from '../abi.js';

const INF = 0x3fffffff;

/** One balanced class's extras problem: topics 0..T) (all with the same S subscribers). */
interface ClassProblem {
  T: number;
  S: number;
  base: Int32Array; // base[i]: slot of (topic i, member 0); member j is base[i] + j
  r: Int32Array; // extras of topic i
  lo: number; // every member takes lo extras ...
  R: number; // ... and R of them one more
  gain: Int32Array; // per slot
  x: Int32Array; // per slot: 1 when the extra of (topic, member) is taken
  arcs: SparseArcs | null; // null: every (topic, member) pair is an arc
}

/**
 * The sparse graph's (topic, member) arcs: the slots whose extra saves something (gain > 0), and
 * maybe every slot of a light member (fewer such slots than lo: it must take extras that save
 * nothing).
 * Topic i's members are topicMember[topicStart[i] .. topicStart[i + 1]), member j's topics
 * memberTopic[memberStart[j] .. memberStart[j + 1]), both ascending.
 */
interface SparseArcs {
  topicStart: Int32Array;
  topicMember: Int32Array;
  memberStart: Int32Array;
  memberTopic: Int32Array;
  light: number; // how many light members have their arcs here
}

/**
 * The extras flow of one balanced class. On sparse arcs it places the extras of the best value
 * (a relaxation: most pairs that save nothing are left out), and completeExtras fills the rest.
 * On every arc (arcs null) it is the exact flow the kernel falls back to.
 */
class ClassFlow {
  // Node ids: source 0, topic i -> 1 + i, member j -> 1 + T + j, bonus 1 + T + S, sink 2 + T + S.
  readonly V: number;
  readonly bonus: number;
  readonly sink: number;
  readonly st: Int32Array; // flow source -> topic
  readonly ms: Int32Array; // flow member -> sink (cap lo)
  readonly mb: Int32Array; // flow member -> bonus (cap 1)
  bz = 0; // flow bonus -> sink (cap R)
  readonly pot: Int32Array;
  readonly dist: Int32Array;
  readonly level: Int32Array;
  readonly cur: Int32Array;
  readonly done: Uint8Array;

  constructor(readonly c: ClassProblem) {
    const T = c.T;
    const S = c.S;
    this.V = 3 + T + S;
    this.bonus = 1 + T + S;
    this.sink = 2 + T + S;
    this.st = new Int32Array(T);
    this.ms = new Int32Array(S);
    this.mb = new Int32Array(S);
    this.pot = new Int32Array(this.V);
    this.dist = new Int32Array(this.V);
    this.level = new Int32Array(this.V);
    this.cur = new Int32Array(this.V);
    this.done = new Uint8Array(this.V);
  }

  /** Member of topic i's arc a. */
  memberAt(i: number, a: number): number {
    const u = this.c.arcs;
    return u === null ? a : u.topicMember[u.topicStart[i]! + a]!;
  }

  /** Topic of member j's backward arc a (a >= 2). */
  topicAt(j: number, a: number): number {
    const u = this.c.arcs;
    return u === null ? a - 2 : u.memberTopic[u.memberStart[j]! + a - 2]!;
  }

  arcCount(u: number): number {
    const { T, S } = this.c;
    const arcs = this.c.arcs;
    if (u === 0) return T;
    if (u <= T) return arcs === null ? S : arcs.topicStart[u]! - arcs.topicStart[u - 1]!;
    if (u <= T + S) return 2 + (arcs === null ? T : arcs.memberStart[u - T]! - arcs.memberStart[u - 1 - T]!);
    if (u === this.bonus) return 1 + S;
    return 0;
  }

  /** Head of arc a of u when it has residual capacity, else -1. */
  arcHead(u: number, a: number): number {
    const { T, S } = this.c;
    const { r, x, base } = this.c;
    if (u === 0) return this.st[a]! < r[a]! ? 1 + a : -1;
    if (u <= T) {
      const j = this.memberAt(u - 1, a);
      return x[base[u - 1]! + j] === 0 ? 1 + T + j : -1;
    }
    if (u <= T + S) {
      const j = u - 1 - T;
      if (a === 0) return this.ms[j]! < this.c.lo ? this.sink : -1;
      if (a === 1) return this.mb[j] === 0 ? this.bonus : -1;
      const i = this.topicAt(j, a);
      return x[base[i]! + j] === 1 ? 1 + i : -1;
    }
    if (u === this.bonus) {
      if (a === 0) return this.bz < this.c.R ? this.sink : -1;
      return this.mb[a - 1] === 1 ? 1 + T + (a - 1) : -1;
    }
    return -1;
  }

  /** Cost of arc a of u (valid only when arcHead is not -1). */
  arcCost(u: number, a: number): number {
    const { T, S } = this.c;
    const { gain, base } = this.c;
    if (u >= 1 && u <= T) return -gain[base[u - 1]! + this.memberAt(u - 1, a)]!;
    if (u > T && u <= T + S && a >= 2) return gain[base[this.topicAt(u - 1 - T, a)]! + (u - 1 - T)]!;
    return 0;
  }

  push(u: number, a: number): void {
    const { T, S } = this.c;
    const { x, base } = this.c;
    if (u === 0) this.st[a]!++;
    else if (u <= T) x[base[u - 1]! + this.memberAt(u - 1, a)] = 1;
    else if (u <= T + S) {
      const j = u - 1 - T;
      if (a === 0) this.ms[j]!++;
      else if (a === 1) this.mb[j] = 1;
      else x[base[this.topicAt(j, a)]! + j] = 0;
    } else if (a === 0) this.bz++;
    else this.mb[a - 1] = 0;
  }

  /** Shortest paths for the DAG before any flow: topic -> member arcs are the only negative ones. */
  initPotentials(): void {
    const { T, S } = this.c;
    for (let i = 0; i < T; i++) {
      const n = this.arcCount(1 + i);
      for (let a = 0; a < n; a++) {
        const v = this.arcHead(1 + i, a);
        const cost = this.arcCost(1 + i, a);
        if (cost < this.pot[v]!) this.pot[v] = cost;
      }
    }
    let minMember = 0;
    for (let j = 0; j < S; j++) if (this.pot[1 + T + j]! < minMember) minMember = this.pot[1 + T + j]!;
    this.pot[this.bonus] = minMember;
    this.pot[this.sink] = minMember;
  }

  /** Dijkstra on reduced costs (binary heap, ties by node id); then shifts the potentials. */
  dijkstra(): boolean {
    const V = this.V;
    const dist = this.dist;
    const done = this.done;
    dist.fill(INF);
    done.fill(0);
    const heapD: number[] = [];
    const heapV: number[] = [];
    const less = (i: number, j: number): boolean => heapD[i]! < heapD[j]! || (heapD[i] === heapD[j] && heapV[i]! < heapV[j]!);
    const swap = (i: number, j: number): void => {
      const d = heapD[i]!;
      heapD[i] = heapD[j]!;
      heapD[j] = d;
      const v = heapV[i]!;
      heapV[i] = heapV[j]!;
      heapV[j] = v;
    };
    const heapPush = (d: number, v: number): void => {
      heapD.push(d);
      heapV.push(v);
      let i = heapD.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!less(i, parent)) break;
        swap(i, parent);
        i = parent;
      }
    };
    const heapPop = (): void => {
      const last = heapD.length - 1;
      swap(0, last);
      heapD.pop();
      heapV.pop();
      let i = 0;
      const n = heapD.length;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        let c = l;
        if (l + 1 < n && less(l + 1, l)) c = l + 1;
        if (!less(c, i)) break;
        swap(c, i);
        i = c;
      }
    };
    dist[0] = 0;
    heapPush(0, 0);
    while (heapD.length > 0) {
      const d = heapD[0]!;
      const u = heapV[0]!;
      heapPop();
      if (done[u] === 1 || d > dist[u]!) continue;
      done[u] = 1;
      if (u === this.sink) continue;
      const n = this.arcCount(u);
      for (let a = 0; a < n; a++) {
        const v = this.arcHead(u, a);
        if (v < 0 || done[v] === 1) continue;
        const nd = d + this.arcCost(u, a) + this.pot[u]! - this.pot[v]!;
        if (nd < dist[v]!) {
          dist[v] = nd;
          heapPush(nd, v);
        }
      }
    }
    const D = dist[this.sink]!;
    if (D >= INF) return false;
    for (let v = 0; v < V; v++) this.pot[v]! += dist[v]! < D ? dist[v]! : D;
    return true;
  }

  admissible(u: number, a: number): number {
    const v = this.arcHead(u, a);
    if (v < 0) return -1;
    return this.arcCost(u, a) + this.pot[u]! - this.pot[v]! === 0 ? v : -1;
  }

  /** BFS levels over admissible arcs; true when the sink is reachable. */
  levels(queue: Int32Array): boolean {
    const level = this.level;
    level.fill(-1);
    level[0] = 0;
    let head = 0;
    let tail = 0;
    queue[tail++] = 0;
    while (head < tail) {
      const u = queue[head++]!;
      if (u === this.sink) continue;
      const n = this.arcCount(u);
      for (let a = 0; a < n; a++) {
        const v = this.admissible(u, a);
        if (v >= 0 && level[v]! < 0) {
          level[v] = level[u]! + 1;
          queue[tail++] = v;
        }
      }
    }
    return level[this.sink]! >= 0;
  }

  /** Augments unit paths along the level graph until none is left; returns the units pushed. */
  blocking(stack: Int32Array): number {
    const level = this.level;
    const cur = this.cur;
    cur.fill(0);
    let pushed = 0;
    let sp = 0;
    stack[sp++] = 0;
    while (sp > 0) {
      const u = stack[sp - 1]!;
      if (u === this.sink) {
        // Every s-t path crosses a unit arc, so one unit goes through.
        for (let k = 0; k < sp - 1; k++) this.push(stack[k]!, cur[stack[k]!]!);
        pushed++;
        sp = 1;
        continue;
      }
      const n = this.arcCount(u);
      let advanced = false;
      while (cur[u]! < n) {
        const v = this.admissible(u, cur[u]!);
        if (v >= 0 && level[v] === level[u]! + 1) {
          stack[sp++] = v;
          advanced = true;
          break;
        }
        cur[u]!++;
      }
      if (!advanced) {
        level[u] = -1; // dead end for this phase
        sp--;
        if (sp > 0) cur[stack[sp - 1]!]!++;
      }
    }
    return pushed;
  }

  /** Places every extra (the flow on every arc). */
  run(total: number): void {
    this.initPotentials();
    const queue = new Int32Array(this.V);
    const stack = new Int32Array(this.V + 1);
    let flow = 0;
    while (flow < total) {
      if (!this.dijkstra()) throw new Error('group kernel: extras flow is infeasible');
      while (flow < total && this.levels(queue)) flow += this.blocking(stack);
    }
  }

  /** Places extras while that loses nothing (pot[sink] is then the best path's cost, <= 0), from the flow placed so far. */
  runWhileFree(total: number): void {
    this.initPotentials();
    const queue = new Int32Array(this.V);
    const stack = new Int32Array(this.V + 1);
    let flow = this.st.reduce((a, b) => a + b, 0); // from the flow already placed
    while (flow < total && this.dijkstra() && this.pot[this.sink]! <= 0) {
      while (flow < total && this.levels(queue)) flow += this.blocking(stack);
    }
  }
}

/** takeLowest's choice: out[0 .. len) are the positions chosen so far; members maps a position to a member. */
interface Lowest {
  key: Int32Array; // per member: small counts
  members: Int32Array;
  hist: Int32Array; // scratch, longer than max key - min key
  out: Int32Array;
  len: number;
}

/**
 * Appends to l.out the `need` candidates with the lowest (key[member], position): cand holds
 * `count` member positions in ascending order.
 */
function takeLowest(l: Lowest, cand: Int32Array, count: number, need: number): void {
  const { key, members, hist, out } = l;
  if (need <= 0) return;
  if (need >= count) {
    for (let k = 0; k < count; k++) out[l.len++] = cand[k]!;
    return;
  }
  let lo = INF;
  let hi = -1;
  for (let k = 0; k < count; k++) {
    const v = key[members[cand[k]!]!]!;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  hist.fill(0, 0, hi - lo + 1);
  for (let k = 0; k < count; k++) hist[key[members[cand[k]!]!]! - lo]!++;
  // th: the smallest key with #(key <= th) >= need; take every key < th, then key == th in order.
  let th = lo;
  let below = 0;
  while (below + hist[th - lo]! < need) below += hist[th++ - lo]!;
  let ties = need - below;
  for (let k = 0; k < count; k++) {
    const v = key[members[cand[k]!]!]!;
    if (v < th || (v === th && ties-- > 0)) out[l.len++] = cand[k]!;
  }
}

function hasRack(p: GroupProblem, item: number, rack: number): boolean {
  if (rack < 0) return false;
  for (let k = p.rackStart[item]!; k < p.rackStart[item + 1]!; k++) if (p.racks[k] === rack) return true;
  return false;
}

/** Per (topic, subscriber) slot and per topic: what every step reads and writes. */
interface Quotas {
  owner: Int32Array; // the answer, per item
  held: Int32Array; // per position in the current topic: items its member owned before
  extra: Int32Array; // per slot: 1 when the member's quota is floor + 1
  gain: Int32Array; // per slot: what an extra saves (topicWeight when held > floor)
  itemSlot: Int32Array; // per item: slot of its valid previous owner, -1
  posOf: Int32Array; // per member: its position among the current topic's subscribers
  posTopic: Int32Array; // per member: the list id (subList) posOf is for (-1: none yet)
  indexed: number; // the list id posOf / posTopic answer for
  floor: Int32Array; // per topic: floor(N / S)
  rem: Int32Array; // per topic: N mod S, the extras to hand out
  kept: Int32Array; // per position in the current topic: items kept by step 3
  room: Int32Array; // per position in the current topic: items it may still take in step 4
}

export function referenceGroupAssign(p: GroupProblem): Int32Array {
  const q = quotas(p);
  countHeld(p, q);
  const inFlow = extrasOfBalancedClasses(p, q);
  extrasOfOtherTopics(p, q, inFlow);
  keepAndPlace(p, q);
  return q.owner;
}

function quotas(p: GroupProblem): Quotas {
  const M = p.members;
  const T = p.topicClass.length;
  const N = p.prevOwner.length;
  const P = p.subStart[T]!;
  const maxS = widest(p.subStart, T);
  return {
    owner: new Int32Array(N).fill(-1),
    held: new Int32Array(maxS),
    extra: new Int32Array(P),
    gain: new Int32Array(P),
    itemSlot: new Int32Array(N).fill(-1),
    posOf: new Int32Array(M),
    posTopic: new Int32Array(M).fill(-1),
    indexed: -1,
    floor: new Int32Array(T),
    rem: new Int32Array(T),
    kept: new Int32Array(maxS),
    room: new Int32Array(maxS),
  };
}

/** Makes topic t's subscribers the ones posOf / posTopic answer for (indexed again only when its list differs from the last one's). */
function indexSubscribers(p: GroupProblem, q: Quotas, t: number): void {
  if (q.indexed === p.subList[t]) return;
  q.indexed = p.subList[t]!;
  const subs = subscribersOf(p, t);
  for (let j = 0; j < subs.length; j++) {
    q.posOf[subs[j]!] = j;
    q.posTopic[subs[j]!] = q.indexed;
  }
}

/** Topic t's subscribers (topics may share a list). */
function subscribersOf(p: GroupProblem, t: number): Int32Array {
  return p.subs.subarray(p.subBase[t]!, p.subBase[t]! + p.subStart[t + 1]! - p.subStart[t]!);
}

/** 1. Held items per (topic, subscriber) slot; quotas and the gain of an extra. */
function countHeld(p: GroupProblem, q: Quotas): void {
  const { held, itemSlot, posOf, posTopic } = q;
  for (let t = 0; t < p.topicClass.length; t++) {
    const s0 = p.subStart[t]!;
    const S = p.subStart[t + 1]! - s0;
    indexSubscribers(p, q, t);
    for (let i = p.itemStart[t]!; i < p.itemStart[t + 1]!; i++) {
      const m = p.prevOwner[i]!;
      if (m >= 0 && m < p.members && posTopic[m] === p.subList[t]) {
        itemSlot[i] = s0 + posOf[m]!;
        held[posOf[m]!]!++;
      }
    }
    if (S === 0) continue;
    const n = p.itemStart[t + 1]! - p.itemStart[t]!;
    q.floor[t] = Math.floor(n / S);
    q.rem[t] = n % S;
    // Only a slot that holds something can hold more than the floor: decided at its first item,
    // whose visit also clears the count for the next topic.
    for (let i = p.itemStart[t]!; i < p.itemStart[t + 1]!; i++) {
      const slot = itemSlot[i]!;
      if (slot < 0 || held[slot - s0] === 0) continue;
      if (held[slot - s0]! > q.floor[t]!) q.gain[slot] = p.topicWeight[t]!;
      held[slot - s0] = 0;
    }
  }
}

/** Per topic: the first topic with the same subscriber list (its list id), wherever that topic stands. */
export function subscriberListIds(subStart: Int32Array, subs: Int32Array): Int32Array {
  const T = subStart.length - 1;
  const first = new Int32Array(T);
  const byList = new Map<string, number>();
  for (let t = 0; t < T; t++) {
    const key = subs.subarray(subStart[t]!, subStart[t + 1]!).join(',');
    first[t] = byList.get(key) ?? t;
    if (first[t] === t) byList.set(key, t);
  }
  return first;
}

/** True when topics t and u of subStart / subs have the same subscriber list. */
export function sameList(subStart: Int32Array, subs: Int32Array, t: number, u: number): boolean {
  const n = subStart[t + 1]! - subStart[t]!;
  if (subStart[u + 1]! - subStart[u]! !== n) return false;
  for (let j = 0; j < n; j++) if (subs[subStart[t]! + j] !== subs[subStart[u]! + j]) return false;
  return true;
}

/** Topics by class id (counting sort): class c is byClass[classStart[c] .. classStart[c + 1]). */
function topicsByClass(p: GroupProblem): { classStart: Int32Array; byClass: Int32Array } {
  const T = p.topicClass.length;
  const classStart = new Int32Array(T + 1);
  for (let t = 0; t < T; t++) {
    const c = p.topicClass[t]!;
    if (c >= 0 && c < T) classStart[c + 1]!++;
  }
  for (let c = 0; c < T; c++) classStart[c + 1]! += classStart[c]!;
  const byClass = new Int32Array(classStart[T]!);
  const fill = classStart.slice(0, T);
  for (let t = 0; t < T; t++) {
    const c = p.topicClass[t]!;
    if (c >= 0 && c < T) byClass[fill[c]!++] = t;
  }
  return { classStart, byClass };
}

/** True when every topic of byClass[a .. b) has exactly the subscribers of the first (and it has some): one list id. */
function sameSubscribers(p: GroupProblem, byClass: Int32Array, a: number, b: number): boolean {
  const t0 = byClass[a]!;
  if (p.subStart[t0 + 1] === p.subStart[t0]) return false;
  for (let k = a + 1; k < b; k++) if (p.subList[byClass[k]!] !== p.subList[t0]) return false;
  return true;
}

/** 2a. Balanced classes: one extras flow per class. Returns which topics it settled. */
function extrasOfBalancedClasses(p: GroupProblem, q: Quotas): Uint8Array {
  const { classStart, byClass } = topicsByClass(p);
  const inFlow = new Uint8Array(p.topicClass.length);
  for (let c = 0; c < p.topicClass.length; c++) {
    const a = classStart[c]!;
    const b = classStart[c + 1]!;
    // A class whose topics differ in subscribers is balanced per topic only (2b).
    if (b === a || !sameSubscribers(p, byClass, a, b)) continue;
    for (let k = a; k < b; k++) inFlow[byClass[k]!] = 1;
    extrasOfClass(p, q, byClass.subarray(a, b));
  }
  return inFlow;
}

/** The extras of one balanced class (topics tc, all with the same S subscribers). */
function extrasOfClass(p: GroupProblem, q: Quotas, tc: Int32Array): void {
  const S = p.subStart[tc[0]! + 1]! - p.subStart[tc[0]!]!;
  const Tc = tc.length;
  const base = new Int32Array(Tc);
  const r = new Int32Array(Tc);
  let X = 0;
  for (let k = 0; k < Tc; k++) {
    base[k] = p.subStart[tc[k]!]!;
    r[k] = q.rem[tc[k]!]!;
    X += r[k]!;
  }
  if (X === 0) return;
  const c: ClassProblem = { T: Tc, S, base, r, lo: Math.floor(X / S), R: X % S, gain: q.gain, x: q.extra, arcs: null };
  const first = sparseArcs(p, q, c, tc, false);
  if (first === null) {
    dealRoundRobin(c);
    return;
  }
  // Most extras save nothing: place the rest on a sparse graph, then fill in. The result is
  // optimal when the fill succeeds (it reaches the relaxation's bound). The light members' arcs
  // let the flow leave a joiner extras of distinct topics; they join the first try when they at
  // most double the graph, else a second. When the fill gets stuck, the exact flow decides.
  if (placeSparse(c, first)) return;
  const second = first.light === 0 ? sparseArcs(p, q, c, tc, true)! : first;
  if (second.light > 0 && second !== first && placeSparse(c, second)) return;
  new ClassFlow(c).run(X);
}

/** The sparse flow and the fill; false (and no extra taken) when the fill gets stuck. */
function placeSparse(c: ClassProblem, arcs: SparseArcs): boolean {
  let f = new ClassFlow({ ...c, arcs });
  const all = takeUseful(f);
  if (all && completeExtras(f)) return true;
  if (all || !sameGain(c, arcs)) {
    clearExtras(c);
    f = new ClassFlow({ ...c, arcs });
  }
  f.runWhileFree(c.lo * c.S + c.R);
  if (completeExtras(f)) return true;
  clearExtras(c);
  return false;
}

function clearExtras(c: ClassProblem): void {
  for (let k = 0; k < c.T; k++) c.x.fill(0, c.base[k]!, c.base[k]! + c.S);
}

/**
 * Takes useful extras greedily, topic by topic, while the topic has extras and the member room
 * (lo, then one of the R bonus extras). True when it took them all: the most any choice saves,
 * with no flow (a class where nothing changed). Else the flow goes on from here when every useful
 * extra saves the same (then every cycle of the residual graph costs 0, so this flow is a
 * min-cost one of its size), and from zero when not.
 */
function takeUseful(f: ClassFlow): boolean {
  const { T, base, r, lo, R, gain, x } = f.c;
  const arcs = f.c.arcs!;
  let all = true;
  for (let k = 0; k < T; k++) {
    for (let a = arcs.topicStart[k]!; a < arcs.topicStart[k + 1]!; a++) {
      const j = arcs.topicMember[a]!;
      if (gain[base[k]! + j]! === 0) continue;
      if (f.st[k]! < r[k]! && f.ms[j]! < lo) f.ms[j]!++;
      else if (f.st[k]! < r[k]! && f.mb[j] === 0 && f.bz < R) {
        f.mb[j] = 1;
        f.bz++;
      } else {
        all = false;
        continue;
      }
      x[base[k]! + j] = 1;
      f.st[k]!++;
    }
  }
  return all;
}

/** True when every useful extra of the class saves the same. */
function sameGain(c: ClassProblem, arcs: SparseArcs): boolean {
  let g = 0;
  for (let k = 0; k < c.T; k++) {
    for (let a = arcs.topicStart[k]!; a < arcs.topicStart[k + 1]!; a++) {
      const v = c.gain[c.base[k]! + arcs.topicMember[a]!]!;
      if (v === 0) continue;
      if (g !== 0 && v !== g) return false;
      g = v;
    }
  }
  return true;
}

/**
 * The sparse graph of a class (topics tc), read from the items, not the slots: per topic its
 * useful members in item order, then the light members ascending (allLight, or when their arcs
 * are no more than the useful ones); per member by counting sort. Null when no extra saves anything.
 */
function sparseArcs(p: GroupProblem, q: Quotas, c: ClassProblem, tc: Int32Array, allLight: boolean): SparseArcs | null {
  const { T, S, base, gain } = c;
  const mark = new Int32Array(S).fill(-1);
  const useful = new Int32Array(S);
  const usefulStart = new Int32Array(T + 1);
  const usefulMember: number[] = [];
  for (let k = 0; k < T; k++) {
    for (let i = p.itemStart[tc[k]!]!; i < p.itemStart[tc[k]! + 1]!; i++) {
      const slot = q.itemSlot[i]!;
      if (slot < 0 || gain[slot]! === 0 || mark[slot - base[k]!] === k) continue;
      mark[slot - base[k]!] = k;
      usefulMember.push(slot - base[k]!);
      useful[slot - base[k]!]!++;
    }
    usefulStart[k + 1] = usefulMember.length;
  }
  if (usefulMember.length === 0) return null;
  const light: number[] = [];
  for (let j = 0; j < S; j++) if (useful[j]! < c.lo) light.push(j);
  if (!allLight && T * light.length > usefulMember.length) light.length = 0;
  const topicStart = new Int32Array(T + 1);
  const topicMember = new Int32Array(usefulMember.length + T * light.length);
  const memberStart = new Int32Array(S + 1);
  let at = 0;
  for (let k = 0; k < T; k++) {
    for (let a = usefulStart[k]!; a < usefulStart[k + 1]!; a++) {
      topicMember[at++] = usefulMember[a]!;
      mark[usefulMember[a]!] = T + k; // useful in k, for the light members' pass
    }
    for (const j of light) if (mark[j] !== T + k) topicMember[at++] = j;
    topicStart[k + 1] = at;
  }
  for (let a = 0; a < at; a++) memberStart[topicMember[a]! + 1]!++;
  for (let j = 0; j < S; j++) memberStart[j + 1]! += memberStart[j]!;
  const memberTopic = new Int32Array(at);
  const fill = memberStart.slice(0, S);
  for (let k = 0; k < T; k++) for (let a = topicStart[k]!; a < topicStart[k + 1]!; a++) memberTopic[fill[topicMember[a]!]!++] = k;
  return { topicStart, topicMember: topicMember.subarray(0, at), memberStart, memberTopic, light: light.length };
}

/** No extra lets anyone keep a partition: every balanced choice moves the same, so deal them
 * round-robin (each topic's to distinct members, totals within one). */
function dealRoundRobin(c: ClassProblem): void {
  let cursor = 0;
  for (let k = 0; k < c.T; k++) {
    for (let e = 0; e < c.r[k]!; e++) {
      c.x[c.base[k]! + cursor] = 1;
      cursor = cursor + 1 === c.S ? 0 : cursor + 1;
    }
  }
}

/**
 * Members by how many extras they still must take (bucket b: need b; bucket 0: need met, the
 * bonus extra still free), each bucket a linked list in arrival order.
 */
class NeedBuckets {
  readonly head: Int32Array;
  readonly tail: Int32Array;
  readonly next: Int32Array;
  readonly prev: Int32Array;
  readonly need: Int32Array;
  top: number;

  constructor(lo: number, S: number) {
    this.head = new Int32Array(lo + 1).fill(-1);
    this.tail = new Int32Array(lo + 1).fill(-1);
    this.next = new Int32Array(S);
    this.prev = new Int32Array(S);
    this.need = new Int32Array(S);
    this.top = lo;
  }

  append(j: number, b: number): void {
    this.need[j] = b;
    this.next[j] = -1;
    this.prev[j] = this.tail[b]!;
    if (this.tail[b]! >= 0) this.next[this.tail[b]!] = j;
    else this.head[b] = j;
    this.tail[b] = j;
  }

  unlink(j: number): void {
    const b = this.need[j]!;
    if (this.prev[j]! >= 0) this.next[this.prev[j]!] = this.next[j]!;
    else this.head[b] = this.next[j]!;
    if (this.next[j]! >= 0) this.prev[this.next[j]!] = this.prev[j]!;
    else this.tail[b] = this.prev[j]!;
  }
}

/**
 * Fills the extras the sparse flow left: each topic's go to the members that still need the most
 * (Ryser's greedy), not to a member that has the topic's extra already; a member whose need is
 * met takes the bonus extra while some are left. False when that greedy gets stuck.
 */
function completeExtras(f: ClassFlow): boolean {
  const { T, S, base, r, lo, R, x } = f.c;
  const buckets = new NeedBuckets(lo, S);
  let needLeft = 0;
  for (let j = 0; j < S; j++) {
    const need = lo - f.ms[j]!;
    needLeft += need;
    if (need > 0 || f.mb[j] === 0) buckets.append(j, need);
  }
  let bonusLeft = R - f.bz;
  const stamp = new Int32Array(S).fill(-1);
  const picked = new Int32Array(S);
  for (let k = 0; k < T; k++) {
    const want = r[k]! - f.st[k]!;
    if (want === 0) continue;
    const arcs = f.c.arcs!;
    for (let a = arcs.topicStart[k]!; a < arcs.topicStart[k + 1]!; a++) if (x[base[k]! + arcs.topicMember[a]!] === 1) stamp[arcs.topicMember[a]!] = k;
    let n = 0;
    while (buckets.top > 0 && buckets.head[buckets.top] === -1) buckets.top--;
    for (let b = buckets.top; b >= 0 && n < want; b--) {
      for (let j = buckets.head[b]!; j >= 0 && n < want && (b > 0 || bonusLeft > 0); j = buckets.next[j]!) {
        if (stamp[j] === k) continue;
        stamp[j] = k;
        picked[n++] = j;
        if (b === 0) bonusLeft--;
      }
    }
    if (n < want) return false;
    for (let e = 0; e < n; e++) {
      const j = picked[e]!;
      const b = buckets.need[j]!;
      x[base[k]! + j] = 1;
      buckets.unlink(j);
      if (b === 0) continue; // took its bonus extra
      needLeft--;
      if (b > 1 || f.mb[j] === 0) buckets.append(j, b - 1);
    }
  }
  return needLeft === 0 && bonusLeft === 0;
}

/**
 * 2b. Other topics: extras to members that would otherwise shed an item, then to the rest;
 * within each, fewest extras so far first (evens out totals where nothing forces it).
 */
function extrasOfOtherTopics(p: GroupProblem, q: Quotas, inFlow: Uint8Array): void {
  const T = p.topicClass.length;
  const extrasSoFar = new Int32Array(p.members);
  const maxS = widest(p.subStart, T);
  const candUseful = new Int32Array(maxS);
  const candOther = new Int32Array(maxS);
  const chosen = new Int32Array(maxS);
  const hist = new Int32Array(T + 1); // extrasSoFar never exceeds the number of topics
  for (let t = 0; t < T; t++) {
    if (inFlow[t] === 1 || q.rem[t] === 0) continue;
    const s0 = p.subStart[t]!;
    const S = p.subStart[t + 1]! - s0;
    let nu = 0;
    let no = 0;
    for (let j = 0; j < S; j++) {
      if (q.gain[s0 + j]! > 0) candUseful[nu++] = j;
      else candOther[no++] = j;
    }
    const members = subscribersOf(p, t);
    const l: Lowest = { key: extrasSoFar, members, hist, out: chosen, len: 0 };
    takeLowest(l, candUseful, nu, q.rem[t]!);
    takeLowest(l, candOther, no, q.rem[t]! - l.len);
    for (let k = 0; k < l.len; k++) {
      q.extra[s0 + chosen[k]!] = 1;
      extrasSoFar[members[chosen[k]!]!]!++;
    }
  }
}

/** The largest start[t + 1] - start[t] over the T topics. */
function widest(start: Int32Array, T: number): number {
  let max = 0;
  for (let t = 0; t < T; t++) max = Math.max(max, start[t + 1]! - start[t]!);
  return max;
}

/** 3. Keep: in topic t, each member keeps up to its quota of its items, rack-matching ones first. */
function keepHeld(p: GroupProblem, q: Quotas, t: number): void {
  const { owner, itemSlot, kept } = q;
  const s0 = p.subStart[t]!;
  const subs = subscribersOf(p, t);
  for (let pass = p.rackCount > 0 ? 0 : 1; pass < 2; pass++) {
    for (let i = p.itemStart[t]!; i < p.itemStart[t + 1]!; i++) {
      const slot = itemSlot[i]!;
      if (slot < 0 || owner[i]! >= 0) continue;
      const m = subs[slot - s0]!;
      if (pass === 0 && !hasRack(p, i, p.memberRack[m]!)) continue; // rack-matching items first
      if (kept[slot - s0]! < q.floor[t]! + q.extra[slot]!) {
        owner[i] = m;
        kept[slot - s0]!++;
      }
    }
  }
}

/** Scratch of step 4, sized for the largest topic. */
interface Placement {
  free: Int32Array; // the current topic's items without an owner
  nf: number;
  roomy: Int32Array; // the current topic's subscriber positions with room, ascending (room may since be 0)
  nr: number;
  order: Int32Array;
  candCount: Int32Array;
  byCount: Int32Array;
  // Per rack (for the current topic): members with room are rackMembers[rackHead .. rackEnd);
  // rackHead advances past members that filled up; -1 when the rack has none.
  rackHead: Int32Array;
  rackEnd: Int32Array;
  rackCnt: Int32Array;
  rackMembers: Int32Array;
  bucket: Int32Array;
}

/** 3 and 4, topic by topic (held, kept and room are per position in the current topic). */
function keepAndPlace(p: GroupProblem, q: Quotas): void {
  const T = p.topicClass.length;
  const maxN = widest(p.itemStart, T);
  const maxS = widest(p.subStart, T);
  const w: Placement = {
    free: new Int32Array(maxN),
    nf: 0,
    roomy: new Int32Array(maxS),
    nr: 0,
    order: new Int32Array(maxN),
    candCount: new Int32Array(maxN),
    byCount: new Int32Array(maxN),
    rackHead: new Int32Array(p.rackCount).fill(-1),
    rackEnd: new Int32Array(p.rackCount),
    rackCnt: new Int32Array(p.rackCount),
    rackMembers: new Int32Array(maxS),
    bucket: new Int32Array(maxS + 2),
  };
  for (let t = 0; t < T; t++) {
    if (p.subStart[t + 1]! === p.subStart[t]!) continue;
    keepHeld(p, q, t);
    if (placeFree(p, q, w, t)) continue; // roomOf cleared kept
    for (let i = p.itemStart[t]!; i < p.itemStart[t + 1]!; i++) if (q.itemSlot[i]! >= 0) q.kept[q.itemSlot[i]! - p.subStart[t]!] = 0;
  }
}

/** 4. Place topic t's free items into its members' remaining room; false when it had none. */
function placeFree(p: GroupProblem, q: Quotas, w: Placement, t: number): boolean {
  w.nf = 0;
  for (let i = p.itemStart[t]!; i < p.itemStart[t + 1]!; i++) if (q.owner[i]! < 0) w.free[w.nf++] = i;
  if (w.nf === 0) return false; // the topics with nothing free cost no pass over their subscribers
  roomOf(p, q, w, t);
  if (p.softOwner.length > 0) {
    indexSubscribers(p, q, t);
    placeWithSoftOwners(p, q, w, t);
  }
  if (bucketRackMembers(p, q, w, t) > 0) placeByRack(p, q, w, t);
  placeRest(p, q, w, t);
  return true;
}

/** Topic t's room per subscriber, and the positions that have some; clears kept. */
function roomOf(p: GroupProblem, q: Quotas, w: Placement, t: number): void {
  w.nr = 0;
  for (let slot = p.subStart[t]!, j = 0; slot < p.subStart[t + 1]!; slot++, j++) {
    q.room[j] = q.floor[t]! + q.extra[slot]! - q.kept[j]!;
    q.kept[j] = 0;
    if (q.room[j]! > 0) w.roomy[w.nr++] = j;
  }
}

/** 4a. Soft owners (the owner of the partition a new one grew from), when they have room. */
function placeWithSoftOwners(p: GroupProblem, q: Quotas, w: Placement, t: number): void {
  const s0 = p.subStart[t]!;
  for (let k = 0; k < w.nf; k++) {
    const i = w.free[k]!;
    const m = p.softOwner[i]!;
    if (m >= 0 && m < p.members && q.posTopic[m] === p.subList[t] && q.room[q.posOf[m]!]! > 0) {
      q.owner[i] = m;
      q.room[q.posOf[m]!]!--;
    }
  }
}

/** 4b, first half: topic t's members with room, bucketed by rack (rackHead / rackEnd). Returns how many. */
function bucketRackMembers(p: GroupProblem, q: Quotas, w: Placement, t: number): number {
  const subs = subscribersOf(p, t);
  const { rackHead, rackEnd, rackCnt, roomy } = w;
  let racked = 0;
  for (let k = 0; k < w.nr; k++) {
    const rk = p.memberRack[subs[roomy[k]!]!]!;
    if (rk >= 0 && rk < p.rackCount) rackCnt[rk] = 0;
  }
  for (let k = 0; k < w.nr; k++) {
    const rk = p.memberRack[subs[roomy[k]!]!]!;
    if (rk >= 0 && rk < p.rackCount && q.room[roomy[k]!]! > 0) {
      rackCnt[rk]!++;
      racked++;
    }
  }
  if (racked === 0) return 0;
  let at = 0;
  for (let k = 0; k < w.nr; k++) {
    const j = roomy[k]!;
    const rk = p.memberRack[subs[j]!]!;
    if (rk >= 0 && rk < p.rackCount && q.room[j]! > 0) {
      if (rackHead[rk]! < 0) {
        rackHead[rk] = at;
        rackEnd[rk] = at;
        at += rackCnt[rk]!;
      }
      w.rackMembers[rackEnd[rk]!++] = j;
    }
  }
  return racked;
}

/**
 * 4b. Racks: items with the fewest rack-matching members first (KIP-881's order), each to the
 * first member with room in the first of its racks that has one; then the buckets are cleared.
 */
function placeByRack(p: GroupProblem, q: Quotas, w: Placement, t: number): void {
  const subs = subscribersOf(p, t);
  const { rackHead, rackEnd } = w;
  const nc = itemsByRackCandidates(p, q, w);
  for (let k = 0; k < nc; k++) {
    const i = w.byCount[k]!;
    for (let e = p.rackStart[i]!; e < p.rackStart[i + 1]!; e++) {
      const rk = p.racks[e]!;
      if (rk < 0 || rk >= p.rackCount || rackHead[rk]! < 0) continue;
      while (rackHead[rk]! < rackEnd[rk]! && q.room[w.rackMembers[rackHead[rk]!]!] === 0) rackHead[rk]!++;
      if (rackHead[rk]! < rackEnd[rk]!) {
        const j = w.rackMembers[rackHead[rk]!]!;
        q.owner[i] = subs[j]!;
        q.room[j]!--;
        break;
      }
    }
  }
  for (let k = 0; k < w.nr; k++) {
    const rk = p.memberRack[subs[w.roomy[k]!]!]!;
    if (rk >= 0 && rk < p.rackCount) rackHead[rk] = -1;
  }
}

/** The free items with some rack-matching member, in byCount by ascending count of those members (stable). Returns how many. */
function itemsByRackCandidates(p: GroupProblem, q: Quotas, w: Placement): number {
  const { candCount, order, bucket } = w;
  let nc = 0;
  let maxC = 0;
  for (let k = 0; k < w.nf; k++) {
    const i = w.free[k]!;
    if (q.owner[i]! >= 0) continue;
    let c = 0;
    for (let e = p.rackStart[i]!; e < p.rackStart[i + 1]!; e++) {
      const rk = p.racks[e]!;
      if (rk >= 0 && rk < p.rackCount && w.rackHead[rk]! >= 0) c += w.rackCnt[rk]!;
    }
    if (c > 0) {
      candCount[nc] = c;
      order[nc++] = i;
      if (c > maxC) maxC = c;
    }
  }
  // Stable counting sort of those items by candidate count (maxC <= S).
  bucket.fill(0, 0, maxC + 2);
  for (let k = 0; k < nc; k++) bucket[candCount[k]! + 1]!++;
  for (let c = 0; c <= maxC; c++) bucket[c + 1]! += bucket[c]!;
  for (let k = 0; k < nc; k++) w.byCount[bucket[candCount[k]!]!++] = order[k]!;
  return nc;
}

/** 4c. The rest, in item order, to members with room in member order. */
function placeRest(p: GroupProblem, q: Quotas, w: Placement, t: number): void {
  const subs = subscribersOf(p, t);
  let at = 0;
  for (let k = 0; k < w.nf; k++) {
    const i = w.free[k]!;
    if (q.owner[i]! >= 0) continue;
    while (q.room[w.roomy[at]!] === 0) at++;
    const j = w.roomy[at]!;
    q.owner[i] = subs[j]!;
    q.room[j]!--;
  }
}

