// Standby-selection kernels: the pure-TS twin of
// assembly/standby.ts. Written in the same flat, index-based style as the
// AssemblyScript so the two can be read side by side: each step's state is a
// small class (the heaps, the set search, the repair, Kafka's placement) whose
// methods carry the names of the AssemblyScript's functions where they match one.
//
// Clients are indices in ProcessId order, so "smallest index" is Kafka's
// tie-break. Load is the integer count (active + standby) over capacity;
// loads are compared exactly by cross-multiplication (counts and capacities
// stay far below 2^26, so the products are exact in f64 and in i64).

import { KAFKA_TAG_AWARE, KEEP_KAFKA, NEED_EXACT, maskScore, type StandbyKernels, type StandbyProblem } from '../abi.js';

/** The result of a KEEP_KAFKA call: `out` (2*T*W ints) with Kafka's placement `kafka` (same layout) appended as its differences. */
export function withKafkaDiff(out: Int32Array, kafka: Int32Array, T: number, W: number): Int32Array {
  const TW = T * W;
  const differs: number[] = [];
  for (let t = 0; t < T; t++) {
    for (let j = 0; j < W; j++) {
      const s = t * W + j;
      if (out[s] !== kafka[s] || out[TW + s] !== kafka[TW + s]) {
        differs.push(t);
        break;
      }
    }
  }
  const res = new Int32Array(2 * TW + 1 + differs.length * (1 + 2 * W));
  res.set(out.subarray(0, 2 * TW));
  res[2 * TW] = differs.length;
  let at = 2 * TW + 1;
  for (const t of differs) {
    res[at++] = t;
    for (let j = 0; j < W; j++) res[at++] = kafka[t * W + j]!;
    for (let j = 0; j < W; j++) res[at++] = kafka[TW + t * W + j]!;
  }
  return res;
}

/** a/ca < b/cb, exactly. */
function lessLoad(na: number, ca: number, nb: number, cb: number): boolean {
  return na * cb < nb * ca;
}

export function referenceStandby(): StandbyKernels {
  return { standbyBalanced, standbyKafka };
}

// ---------------------------------------------------------------- balanced

/** Heap orders: by load n/c (Kafka's least loaded), or by the load one more standby brings, (n+1)/c, then fewer standbys (the repair's cheapest receiver). Both end on the index. */
const BY_LOAD = 0;
const BY_COST = 1;

/**
 * One binary min-heap per tag group, stored in one array: the best member of a
 * group without a copy of the current task is found below the heap's holders
 * only (a task has few copies). `held[c] === stamp` marks the clients holding
 * the current task; with limits, clients that may not take one more standby
 * are passed over the same way.
 */
interface GroupHeaps {
  /** Best member of group g with held[c] !== stamp (and inside the limits, if set), or -1. */
  bestFree(g: number, held: Int32Array, stamp: number): number;
  /** c's key grew: move it down its heap. */
  grew(c: number): void;
  /** c's key fell: move it up its heap. */
  shrank(c: number): void;
  before(a: number, b: number): boolean;
  /** Only clients with count < maxCount and (n + 1)/c <= hiN/hiC may be returned by bestFree. */
  limit(maxCount: number, hiN: number, hiC: number): void;
}

function groupHeaps(p: StandbyProblem, load: Int32Array, count: Int32Array, mode: number): GroupHeaps {
  return new Heaps(p, load, count, mode);
}

class Heaps implements GroupHeaps {
  private readonly groupOf: Int32Array;
  private readonly cap: Int32Array;
  /** Group g's heap is heap[gStart[g] .. gStart[g] + gSize[g]); pos[c]: c's place in its heap. */
  private readonly gStart: Int32Array;
  private readonly gSize: Int32Array;
  private readonly heap: Int32Array;
  private readonly pos: Int32Array;
  private readonly stack: Int32Array;
  /** 1 when ordered by the load one more standby brings (BY_COST). */
  private readonly m: number;
  private limited = false;
  private maxCount = 0;
  private hiN = 0;
  private hiC = 1;

  constructor(p: StandbyProblem, private readonly load: Int32Array, private readonly count: Int32Array, mode: number) {
    const C = p.clients, G = p.groups;
    this.groupOf = p.groupOf;
    this.cap = p.capacity;
    const gStart = (this.gStart = new Int32Array(G + 1));
    for (let c = 0; c < C; c++) gStart[p.groupOf[c]! + 1]!++;
    for (let g = 0; g < G; g++) gStart[g + 1]! += gStart[g]!;
    this.gSize = new Int32Array(G);
    this.heap = new Int32Array(C);
    this.pos = new Int32Array(C);
    this.stack = new Int32Array(C + 1);
    this.m = mode === BY_COST ? 1 : 0;
    for (let c = 0; c < C; c++) {
      const g = p.groupOf[c]!;
      this.heap[gStart[g]! + this.gSize[g]!] = c;
      this.gSize[g]!++;
      this.siftUp(g, this.gSize[g]! - 1);
    }
  }

  before(a: number, b: number): boolean {
    const { load, cap, count, m } = this;
    const na = load[a]! + m, nb = load[b]! + m;
    if (lessLoad(na, cap[a]!, nb, cap[b]!)) return true;
    if (lessLoad(nb, cap[b]!, na, cap[a]!)) return false;
    if (m !== 0 && count[a] !== count[b]) return count[a]! < count[b]!;
    return a < b;
  }

  private siftUp(g: number, i: number): void {
    const { heap, pos } = this;
    const base = this.gStart[g]!;
    const c = heap[base + i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pc = heap[base + parent]!;
      if (!this.before(c, pc)) break;
      heap[base + i] = pc;
      pos[pc] = i;
      i = parent;
    }
    heap[base + i] = c;
    pos[c] = i;
  }

  private siftDown(g: number, i: number): void {
    const { heap, pos } = this;
    const base = this.gStart[g]!;
    const n = this.gSize[g]!;
    const c = heap[base + i]!;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && this.before(heap[base + child + 1]!, heap[base + child]!)) child++;
      const cc = heap[base + child]!;
      if (!this.before(cc, c)) break;
      heap[base + i] = cc;
      pos[cc] = i;
      i = child;
    }
    heap[base + i] = c;
    pos[c] = i;
  }

  grew(c: number): void {
    this.siftDown(this.groupOf[c]!, this.pos[c]!);
  }

  shrank(c: number): void {
    this.siftUp(this.groupOf[c]!, this.pos[c]!);
  }

  limit(maxCount: number, hiN: number, hiC: number): void {
    this.limited = true;
    this.maxCount = maxCount;
    this.hiN = hiN;
    this.hiC = hiC;
  }

  bestFree(g: number, held: Int32Array, stamp: number): number {
    const { heap, stack, count, load, cap, limited } = this;
    const base = this.gStart[g]!;
    const n = this.gSize[g]!;
    let best = -1;
    let sp = 0;
    if (n > 0) stack[sp++] = 0;
    while (sp > 0) {
      const i = stack[--sp]!;
      const c = heap[base + i]!;
      if (held[c] !== stamp && (!limited || (count[c]! < this.maxCount && !lessLoad(this.hiN, this.hiC, load[c]! + 1, cap[c]!)))) {
        if (best < 0 || this.before(c, best)) best = c;
        continue;
      }
      const l = 2 * i + 1;
      if (l < n) stack[sp++] = l;
      if (l + 1 < n) stack[sp++] = l + 1;
    }
    return best;
  }
}

/**
 * Balanced mode: Kafka's own placement first (the same kernel as kafka mode,
 * with balanced's counts), then only changes that keep every task's tag spread
 * at least what it was and every client inside Kafka's range of loads and
 * standby counts, so the result is never worse than Kafka's (docs/standby.md):
 *   1. sets: per task, the set of standbys with the best spread, if better;
 *   2. repair: single moves (and two-step moves inside a tag group) that lower
 *      sum n(n+1)/2c, then sum count^2, without lowering any task's spread.
 */
function standbyBalanced(p: StandbyProblem, flags: number, fallbackOrder: Int32Array): Int32Array {
  const kafka = standbyKafka(p, (flags & ~KEEP_KAFKA) | NEED_EXACT, fallbackOrder);
  // The caller's comparison with Kafka reuses this phase instead of placing again.
  const keep = (flags & KEEP_KAFKA) !== 0;
  const out = keep ? kafka.slice() : kafka;
  const load = p.load.slice();
  const count = new Int32Array(p.clients); // standbys per client (existing and placed)
  for (let h = 0; h < p.holders.length; h++) count[p.holders[h]!]!++;
  for (let s = 0; s < p.tasks * p.width; s++) {
    const c = out[s]!;
    if (c >= 0) {
      load[c]!++;
      count[c]!++;
    }
  }
  const b: Balancing = { p, out, load, count, env: envelope(p, load, count) };
  if (p.keys > 0 && p.width > 0) chooseSets(b);
  if (p.width > 0) repair(b);
  remask(p, out);
  return keep ? withKafkaDiff(out, kafka, p.tasks, p.width) : out;
}

/** Balanced mode's state after Kafka's placement: the slots, each client's load and standby count (both raised as standbys are placed), Kafka's range. */
interface Balancing {
  p: StandbyProblem;
  out: Int32Array;
  load: Int32Array;
  count: Int32Array;
  env: Envelope;
}

/** Kafka's range: the least and the most load (as count/capacity), the fewest and the most standbys of any client. */
interface Envelope {
  loN: number;
  loC: number;
  hiN: number;
  hiC: number;
  minCount: number;
  maxCount: number;
}

function envelope(p: StandbyProblem, load: Int32Array, count: Int32Array): Envelope {
  const cap = p.capacity;
  let lo = 0, hi = 0, minCount = count[0] ?? 0, maxCount = count[0] ?? 0;
  for (let c = 1; c < p.clients; c++) {
    if (lessLoad(load[c]!, cap[c]!, load[lo]!, cap[lo]!)) lo = c;
    if (lessLoad(load[hi]!, cap[hi]!, load[c]!, cap[c]!)) hi = c;
    if (count[c]! < minCount) minCount = count[c]!;
    if (count[c]! > maxCount) maxCount = count[c]!;
  }
  return { loN: load[lo] ?? 0, loC: cap[lo] ?? 1, hiN: load[hi] ?? 0, hiC: cap[hi] ?? 1, minCount, maxCount };
}

/** Client x may give up one standby without leaving Kafka's range (fewest standbys, least load). */
function mayGive(p: StandbyProblem, load: Int32Array, count: Int32Array, e: Envelope, x: number): boolean {
  return count[x]! - 1 >= e.minCount && !lessLoad(load[x]! - 1, p.capacity[x]!, e.loN, e.loC);
}

/** Lexicographic comparison of two spread vectors (distinct values per key, key 0 first). */
function compareSpread(a: Int32Array, b: Int32Array, K: number): number {
  for (let k = 0; k < K; k++) if (a[k] !== b[k]) return a[k]! - b[k]!;
  return 0;
}

/** Most nodes (candidate groups tried) of one set search; the bound and why: docs/standby.md. */
export const SET_SEARCH_BUDGET = 4096;

interface SetSearch {
  /**
   * Re-chooses task t's placed standbys as a set; true when it changed them.
   * Among all sets, the one whose copies (with the active and existing
   * standbys) span the most distinct values per key, compared in precedence
   * order; among those, the least loaded (its most loaded member after
   * placement, compared exactly). Only a strictly better spread replaces the
   * present set.
   */
  search(t: number): boolean;
}

/**
 * Candidates are tag groups, not clients (a set's spread depends only on its
 * members' groups), each represented by its best free member in `heaps`' order
 * inside Kafka's range; a group may be taken again (its next member).
 * Depth-first over multisets of groups in index order after a greedy first
 * guess, pruned by the spread the remaining picks could still add, at most
 * SET_SEARCH_BUDGET nodes. Members of the present set whose departure would
 * leave Kafka's range stay in it.
 */
function setSearch(b: Balancing, heaps: GroupHeaps): SetSearch {
  return new SetSearcher(b, heaps);
}

class SetSearcher implements SetSearch {
  private readonly K: number;
  private readonly G: number;
  private readonly W: number;
  private readonly cv: Int32Array;
  private readonly cap: Int32Array;
  private readonly held: Int32Array;
  /** Copies per value (active, existing, staying members, picks), valid where seenAt[v] === stamp. */
  private readonly seen: Int32Array;
  private readonly seenAt: Int32Array;
  /** Distinct values per key of the copies counted in seen[]. */
  private readonly vec: Int32Array;
  /** Per key, the most any set could reach. */
  private readonly ub: Int32Array;
  private readonly bestVec: Int32Array;
  private readonly curVec: Int32Array;
  private readonly oldSet: Int32Array;
  private readonly keep: Uint8Array;
  /** Client picked at depth d, and its group. */
  private readonly pick: Int32Array;
  private readonly pickGroup: Int32Array;
  private readonly best: Int32Array;
  private readonly sortB: Int32Array;
  private stamp = 0;
  private found = false;
  private bestHeavy = -1;

  private readonly p: StandbyProblem;
  private readonly out: Int32Array;
  private readonly load: Int32Array;
  private readonly count: Int32Array;
  private readonly env: Envelope;

  constructor(
    b: Balancing,
    private readonly heaps: GroupHeaps,
  ) {
    const p = (this.p = b.p);
    this.out = b.out;
    this.load = b.load;
    this.count = b.count;
    this.env = b.env;
    const K = (this.K = p.keys), W = (this.W = p.width);
    this.G = p.groups;
    this.cv = p.clientValues;
    this.cap = p.capacity;
    this.held = new Int32Array(p.clients);
    this.seen = new Int32Array(p.values);
    this.seenAt = new Int32Array(p.values);
    this.vec = new Int32Array(K);
    this.ub = new Int32Array(K);
    this.bestVec = new Int32Array(K);
    this.curVec = new Int32Array(K);
    this.oldSet = new Int32Array(W);
    this.keep = new Uint8Array(W);
    this.pick = new Int32Array(W);
    this.pickGroup = new Int32Array(W);
    this.best = new Int32Array(W);
    this.sortB = new Int32Array(W);
  }

  private add(c: number): void {
    const { K, cv, seen, seenAt, vec, stamp } = this;
    for (let k = 0; k < K; k++) {
      const v = cv[c * K + k]!;
      if (v < 0) continue;
      if (seenAt[v] !== stamp) {
        seenAt[v] = stamp;
        seen[v] = 0;
      }
      if (seen[v]++ === 0) vec[k]!++;
    }
  }

  private remove(c: number): void {
    const { K, cv, seen, vec } = this;
    for (let k = 0; k < K; k++) {
      const v = cv[c * K + k]!;
      if (v >= 0 && --seen[v]! === 0) vec[k]!--;
    }
  }

  /** The spread the remaining `r` picks could reach at most, against bestVec: can the search still win? An equal spread wins only once a better one was found (a less loaded set). */
  private promising(r: number): boolean {
    for (let k = 0; k < this.K; k++) {
      const b = Math.min(this.ub[k]!, this.vec[k]! + r);
      if (b !== this.bestVec[k]) return b > this.bestVec[k]!;
    }
    return this.found;
  }

  /** Heavier after taking one more standby (exact). */
  private heavierAfter(a: number, b: number): boolean {
    return lessLoad(this.load[b]! + 1, this.cap[b]!, this.load[a]! + 1, this.cap[a]!);
  }

  /** Sorts xs[0..n) heaviest-after first (insertion sort: n <= W, small). */
  private sortHeavy(xs: Int32Array, n: number): void {
    for (let i = 1; i < n; i++) {
      const c = xs[i]!;
      let j = i;
      while (j > 0 && this.heavierAfter(c, xs[j - 1]!)) {
        xs[j] = xs[j - 1]!;
        j--;
      }
      xs[j] = c;
    }
  }

  search(t: number): boolean {
    const { out, W } = this;
    let n = 0;
    while (n < W && out[t * W + n]! >= 0) n++;
    if (n === 0 || this.atBound(t, n)) return false;
    const r = this.releaseMembers(t, n);
    this.bestVec.set(this.curVec);
    this.found = false;
    this.bestHeavy = -1;
    if (r > 0) {
      this.greedyGuess(r);
      this.searchGroups(r);
    }
    this.applySet(t, n);
    return this.found;
  }

  /** Counts task t's copies (a new stamp) into curVec; true when its n standbys already reach the most spread any set could. */
  private atBound(t: number, n: number): boolean {
    const { p, K, held, vec, ub, out, W } = this;
    this.stamp++;
    vec.fill(0);
    const a = p.active[t]!;
    if (a >= 0) {
      this.add(a);
      held[a] = this.stamp;
    }
    for (let h = p.holderStart[t]!; h < p.holderStart[t + 1]!; h++) {
      this.add(p.holders[h]!);
      held[p.holders[h]!] = this.stamp;
    }
    // Upper bound per key: every value of it, or one new value per standby.
    for (let k = 0; k < K; k++) ub[k] = Math.min(p.distinct[k]!, vec[k]! + n);
    for (let j = 0; j < n; j++) this.add(out[t * W + j]!);
    this.curVec.set(vec);
    return compareSpread(this.curVec, ub, K) === 0; // no set can do better
  }

  /** Releases the members that may leave (their load and count drop); the others stay (keep[j]). Returns how many left. */
  private releaseMembers(t: number, n: number): number {
    const { p, out, W, load, count, keep } = this;
    let r = 0;
    for (let j = 0; j < n; j++) {
      const c = out[t * W + j]!;
      this.oldSet[j] = c;
      this.remove(c);
      if (mayGive(p, load, count, this.env, c)) {
        keep[j] = 0;
        load[c]!--;
        count[c]!--;
        this.heaps.shrank(c);
        r++;
      } else {
        keep[j] = 1;
        this.add(c);
        this.held[c] = this.stamp;
      }
    }
    return r;
  }

  /** A full set of r picks: kept as the best when its spread beats bestVec, or equals it with a lighter heaviest member. */
  private leaf(r: number): void {
    const cmp = compareSpread(this.vec, this.bestVec, this.K);
    if (cmp < 0) return;
    const sortB = this.sortB;
    for (let i = 0; i < r; i++) sortB[i] = this.pick[i]!;
    this.sortHeavy(sortB, r);
    const h = sortB[0]!;
    if (cmp === 0 && !(this.found && this.heavierAfter(this.bestHeavy, h))) return;
    this.found = true;
    this.bestVec.set(this.vec);
    this.bestHeavy = h;
    this.best.set(this.pick.subarray(0, r));
  }

  /** A greedy first guess: each pick the group adding the most (ties: the heaps' order); then the picks are undone. */
  private greedyGuess(r: number): void {
    const { pick, held } = this;
    let d = 0;
    for (; d < r; d++) {
      const bc = this.mostAdding();
      if (bc < 0) break;
      pick[d] = bc;
      this.add(bc);
      held[bc] = this.stamp;
    }
    if (d === r) this.leaf(r);
    for (let i = d - 1; i >= 0; i--) {
      this.remove(pick[i]!);
      held[pick[i]!] = 0;
    }
  }

  /** The best free member of the group whose values add the most to the spread, or -1. */
  private mostAdding(): number {
    const { K, cv, seen, seenAt, stamp, heaps } = this;
    let bc = -1;
    let bAdd = -1;
    for (let g = 0; g < this.G; g++) {
      const y = heaps.bestFree(g, this.held, stamp);
      if (y < 0) continue;
      // What y adds, as a number compared key by key (at most one new value per key).
      let gain = 0;
      for (let k = 0; k < K; k++) {
        const v = cv[y * K + k]!;
        gain = gain * 2 + (v >= 0 && (seenAt[v] !== stamp || seen[v] === 0) ? 1 : 0);
      }
      if (gain > bAdd || (gain === bAdd && heaps.before(y, bc))) {
        bAdd = gain;
        bc = y;
      }
    }
    return bc;
  }

  /** Depth-first over multisets of groups (nondecreasing group index), at most SET_SEARCH_BUDGET nodes. */
  private searchGroups(r: number): void {
    const { pick, pickGroup, held, G, heaps } = this;
    let nodes = 0;
    let d = 0;
    pickGroup[0] = -1;
    pick[0] = -1;
    while (d >= 0) {
      if (pick[d]! >= 0) {
        this.remove(pick[d]!);
        held[pick[d]!] = 0;
        pick[d] = -1;
      }
      // Next group at depth d; a group may repeat (its next member), so depth d starts at depth d-1's group.
      let g = pickGroup[d]! >= 0 ? pickGroup[d]! + 1 : d > 0 ? pickGroup[d - 1]! : 0;
      let advanced = false;
      for (; g < G && nodes < SET_SEARCH_BUDGET; g++) {
        nodes++;
        const y = heaps.bestFree(g, held, this.stamp);
        if (y < 0) continue;
        this.add(y);
        if (!this.promising(r - d - 1)) {
          this.remove(y);
          continue;
        }
        pick[d] = y;
        pickGroup[d] = g;
        held[y] = this.stamp;
        advanced = true;
        break;
      }
      if (!advanced) {
        pickGroup[d] = -1;
        d--;
        continue;
      }
      if (d + 1 === r) this.leaf(r);
      else {
        d++;
        pickGroup[d] = -1;
        pick[d] = -1;
      }
    }
  }

  /** Apply: the members that stayed, then the best set; or the released members back where they were. */
  private applySet(t: number, n: number): void {
    const { out, W, keep, oldSet, load, count, found } = this;
    let j = 0;
    if (found) for (let i = 0; i < n; i++) if (keep[i]) out[t * W + j++] = oldSet[i]!;
    for (let i = 0, b = 0; i < n; i++) {
      if (keep[i]) continue;
      const c = found ? this.best[b++]! : oldSet[i]!;
      out[t * W + (found ? j++ : i)] = c;
      load[c]!++;
      count[c]!++;
      this.heaps.grew(c);
    }
  }
}

/** Step 1: per task in TaskId order, the set of standbys with the best tag spread, if better than Kafka's (setSearch). */
function chooseSets(b: Balancing): void {
  const { p, load, count, env } = b;
  const heaps = groupHeaps(p, load, count, BY_LOAD);
  heaps.limit(env.maxCount, env.hiN, env.hiC);
  const sets = setSearch(b, heaps);
  for (let t = 0; t < p.tasks; t++) sets.search(t);
}

/** Safety bound on the repair's moves per slot; every move strictly lowers a potential, so it ends anyway (docs/standby.md). */
export const REPAIR_MOVES_PER_SLOT = 64;

/**
 * Step 2: moves standbys from clients that hold more to clients that hold
 * less, while no task's tag spread drops and every client stays inside
 * Kafka's range. A move of one standby x -> y is taken when y would end below
 * x's present load ((n_y + 1)/c_y < n_x/c_x), or equal to it with y ending
 * with fewer standbys than x has now: each move strictly lowers
 * sum n(n+1)/2c, then sum count^2, so the repair ends. Clients are visited
 * most loaded first; each sheds while it can, to the cheapest receiver of any
 * tag group that keeps the task's spread, and passes repeat until one moves
 * nothing. When no single move exists although a cheaper client of x's own
 * group exists, a two-step move through a third member of the group
 * (x -> z -> y; z keeps its load) is tried. Only standbys placed by this call move.
 *
 * A copy that is the only one of its task with its value on every key, on
 * keys whose every value the task already holds, can only move inside its own
 * tag group (any other group loses a value); such "rigid" slots are counted
 * per client, so a client whose slots are all rigid is checked against its
 * own group only.
 */
function repair(b: Balancing): void {
  new Repair(b.p, b.out, b.load, b.count, b.env).run();
}

/** Which groups markReceivers found a receiver in. */
const OWN_GROUP = 1;
const OTHER_GROUPS = 2;

class Repair {
  private readonly C: number;
  private readonly K: number;
  private readonly G: number;
  private readonly W: number;
  private readonly S: number;
  private readonly cap: Int32Array;
  private readonly cv: Int32Array;
  private readonly heaps: GroupHeaps;
  /** Per-client doubly linked lists of the slots it holds; placed[c]: slots in c's list. */
  private readonly head: Int32Array;
  private readonly next: Int32Array;
  private readonly prev: Int32Array;
  private readonly placed: Int32Array;
  /** Members per group, ascending index (for the two-step move): members[mStart[g] .. mStart[g + 1]). */
  private readonly mStart: Int32Array;
  private readonly members: Int32Array;
  /** held[c] === stamp: c holds the task visited (or is the client shedding). */
  private readonly held: Int32Array;
  /** The visited task's copies per value (valid where seenAt[v] === stamp), and distinct values per key. */
  private readonly seen: Int32Array;
  private readonly seenAt: Int32Array;
  private readonly cur: Int32Array;
  /** okAt[g] === the shedding client's stamp: group g has a receiver that lowers the potential. */
  private readonly okAt: Int32Array;
  private readonly rigid: Uint8Array;
  private readonly rigidCount: Int32Array;
  private stamp = 0;

  constructor(
    private readonly p: StandbyProblem,
    private readonly out: Int32Array,
    private readonly load: Int32Array,
    private readonly count: Int32Array,
    private readonly env: Envelope,
  ) {
    const C = (this.C = p.clients), G = (this.G = p.groups);
    this.K = p.keys;
    this.W = p.width;
    const S = (this.S = p.tasks * p.width);
    this.cap = p.capacity;
    this.cv = p.clientValues;
    this.heaps = groupHeaps(p, load, count, BY_COST);
    this.heaps.limit(env.maxCount, env.hiN, env.hiC);
    this.head = new Int32Array(C).fill(-1);
    this.next = new Int32Array(S);
    this.prev = new Int32Array(S);
    this.placed = new Int32Array(C);
    for (let s = S - 1; s >= 0; s--) if (out[s]! >= 0) this.link(out[s]!, s);
    const mStart = (this.mStart = new Int32Array(G + 1));
    for (let c = 0; c < C; c++) mStart[p.groupOf[c]! + 1]!++;
    for (let g = 0; g < G; g++) mStart[g + 1]! += mStart[g]!;
    this.members = new Int32Array(C);
    const fill = mStart.slice(0, G);
    for (let c = 0; c < C; c++) this.members[fill[p.groupOf[c]!]!++] = c;
    this.held = new Int32Array(C);
    this.seen = new Int32Array(p.values);
    this.seenAt = new Int32Array(p.values);
    this.okAt = new Int32Array(G);
    this.cur = new Int32Array(p.keys);
    this.rigid = new Uint8Array(S);
    this.rigidCount = new Int32Array(C);
    for (let t = 0; t < p.tasks; t++) {
      this.visitTask(t);
      this.setRigid(t, true);
    }
  }

  /** Passes over the clients, most loaded first, until one moves nothing (or the safety bound). */
  run(): void {
    const { C, head, load, cap } = this;
    const order = new Int32Array(C);
    // Heavier first; equal loads by index.
    const heavier = (a: number, b: number): boolean => lessLoad(load[b]!, cap[b]!, load[a]!, cap[a]!) || (!lessLoad(load[a]!, cap[a]!, load[b]!, cap[b]!) && a < b);
    const maxMoves = REPAIR_MOVES_PER_SLOT * this.S;
    let moves = 0;
    for (;;) {
      let n = 0;
      for (let c = 0; c < C; c++) if (head[c]! >= 0) order[n++] = c;
      sortBy(order, n, heavier);
      let moved = false;
      for (let i = 0; i < n; i++) {
        const x = order[i]!;
        while (moves < maxMoves && this.shed(x)) {
          moves++;
          moved = true;
        }
      }
      if (!moved || moves >= maxMoves) break;
    }
  }

  private link(c: number, s: number): void {
    const { head, next, prev } = this;
    prev[s] = -1;
    next[s] = head[c]!;
    if (head[c]! >= 0) prev[head[c]!] = s;
    head[c] = s;
    this.placed[c]!++;
  }

  private unlink(c: number, s: number): void {
    const { head, next, prev } = this;
    if (prev[s]! >= 0) next[prev[s]!] = next[s]!;
    else head[c] = next[s]!;
    if (next[s]! >= 0) prev[next[s]!] = prev[s]!;
    this.placed[c]!--;
  }

  /** y taking one standby from x lowers the potential. */
  private improves(y: number, x: number): boolean {
    const { load, cap } = this;
    return lessLoad(load[y]! + 1, cap[y]!, load[x]!, cap[x]!) || (!lessLoad(load[x]!, cap[x]!, load[y]! + 1, cap[y]!) && this.count[y]! + 1 < this.count[x]!);
  }

  private holds(c: number, t: number): boolean {
    const { p, out, W } = this;
    if (p.active[t] === c) return true;
    for (let h = p.holderStart[t]!; h < p.holderStart[t + 1]!; h++) if (p.holders[h] === c) return true;
    for (let j = 0; j < W; j++) if (out[t * W + j] === c) return true;
    return false;
  }

  /** Marks task t's holders with a new stamp and counts its copies per value into seen[] and cur[]. */
  private visitTask(t: number): void {
    const { p, out, W } = this;
    this.stamp++;
    this.cur.fill(0);
    if (p.active[t]! >= 0) this.see(p.active[t]!);
    for (let h = p.holderStart[t]!; h < p.holderStart[t + 1]!; h++) this.see(p.holders[h]!);
    for (let j = 0; j < W; j++) if (out[t * W + j]! >= 0) this.see(out[t * W + j]!);
  }

  private see(c: number): void {
    const { K, cv, seen, seenAt, cur, stamp } = this;
    this.held[c] = stamp;
    for (let k = 0; k < K; k++) {
      const v = cv[c * K + k]!;
      if (v < 0) continue;
      if (seenAt[v] !== stamp) {
        seenAt[v] = stamp;
        seen[v] = 0;
      }
      if (seen[v]++ === 0) cur[k]!++;
    }
  }

  /** Recomputes the rigid flags of task t's slots (after visitTask(t)); `on` false only removes them from the counts. */
  private setRigid(t: number, on: boolean): void {
    const { K, W, cv, out, rigid, rigidCount, seen, cur } = this;
    for (let j = 0; j < W; j++) {
      const s = t * W + j;
      const c = out[s]!;
      if (c < 0) continue;
      if (!on) {
        rigidCount[c]! -= rigid[s]!;
        rigid[s] = 0;
        continue;
      }
      let r = K > 0 ? 1 : 0;
      for (let k = 0; k < K && r; k++) {
        const v = cv[c * K + k]!;
        if (v < 0 || seen[v] !== 1 || cur[k] !== this.p.distinct[k]) r = 0;
      }
      rigid[s] = r;
      rigidCount[c]! += r;
    }
  }

  private move(s: number, x: number, y: number): void {
    const { load, count, heaps } = this;
    const t = (s / this.W) | 0;
    this.setRigid(t, false);
    this.unlink(x, s);
    this.link(y, s);
    this.out[s] = y;
    load[x]!--;
    count[x]!--;
    heaps.shrank(x);
    load[y]!++;
    count[y]!++;
    heaps.grew(y);
    this.visitTask(t);
    this.setRigid(t, true);
  }

  /** Task t's spread with x replaced by a member of group g is at least its present spread (after visitTask(t)). */
  private keepsSpread(x: number, g: number): boolean {
    const { K, cv, seen, seenAt, stamp } = this;
    const gv = this.p.groupValues;
    for (let k = 0; k < K; k++) {
      const xv = cv[x * K + k]!;
      const w = gv[g * K + k]!;
      const lost = xv >= 0 && seen[xv] === 1 ? 1 : 0;
      const left = w < 0 ? 1 : w === xv ? seen[w]! - 1 : seenAt[w] === stamp ? seen[w]! : 0;
      const gained = w >= 0 && left === 0 ? 1 : 0;
      if (gained !== lost) return gained > lost;
    }
    return true;
  }

  /** One move away from x, if any lowers the potential. */
  private shed(x: number): boolean {
    if (this.head[x]! < 0 || !mayGive(this.p, this.load, this.count, this.env, x)) return false;
    // Groups whose cheapest receiver (other than x) would lower the potential: x's own, then (when x has slots that are not rigid) the others.
    this.stamp++;
    this.held[x] = this.stamp;
    const xs = this.stamp;
    const own = this.p.groupOf[x]!;
    const marked = this.markReceivers(x, xs, own);
    if (marked === 0) return false;
    const okOwn = (marked & OWN_GROUP) !== 0;
    for (let s = this.head[x]!; s >= 0; s = this.next[s]!) {
      if (this.rigid[s] && !okOwn) continue;
      const best = this.receiver(s, x, xs, own);
      if (best >= 0) {
        this.move(s, x, best);
        return true;
      }
    }
    return okOwn && this.twoStep(x);
  }

  /** Marks okAt for the groups whose cheapest receiver lowers the potential; returns OWN_GROUP and OTHER_GROUPS for the groups marked. */
  private markReceivers(x: number, xs: number, own: number): number {
    const { heaps, held, okAt } = this;
    const yo = heaps.bestFree(own, held, xs);
    let marked = 0;
    if (yo >= 0 && this.improves(yo, x)) {
      okAt[own] = xs;
      marked = OWN_GROUP;
    }
    if (this.rigidCount[x]! < this.placed[x]!) {
      for (let g = 0; g < this.G; g++) {
        if (g === own) continue;
        const y = heaps.bestFree(g, held, xs);
        if (y >= 0 && this.improves(y, x)) {
          okAt[g] = xs;
          marked |= OTHER_GROUPS;
        }
      }
    }
    return marked;
  }

  /** The cheapest receiver of slot s (held by x) among the marked groups that keep its task's spread, or -1. A rigid slot stays in x's group. */
  private receiver(s: number, x: number, xs: number, own: number): number {
    const { heaps, rigid } = this;
    const t = (s / this.W) | 0;
    this.visitTask(t);
    let best = -1;
    for (let g = rigid[s] ? own : 0; g < (rigid[s] ? own + 1 : this.G); g++) {
      if (this.okAt[g] !== xs || (g !== own && !this.keepsSpread(x, g))) continue;
      const y = heaps.bestFree(g, this.held, this.stamp);
      if (y < 0 || !this.improves(y, x)) continue;
      if (best < 0 || heaps.before(y, best)) best = y;
    }
    return best;
  }

  /** x -> z -> y inside x's group, y its cheapest receiver: for when y already holds every task x could give it. */
  private twoStep(x: number): boolean {
    const { head, next, members, W } = this;
    const g = this.p.groupOf[x]!;
    this.stamp++;
    this.held[x] = this.stamp;
    const y = this.heaps.bestFree(g, this.held, this.stamp);
    if (y < 0 || !this.improves(y, x)) return false;
    for (let i = this.mStart[g]!; i < this.mStart[g + 1]!; i++) {
      const z = members[i]!;
      if (z === x || z === y) continue;
      for (let s2 = head[z]!; s2 >= 0; s2 = next[s2]!) {
        if (this.holds(y, (s2 / W) | 0)) continue;
        for (let s1 = head[x]!; s1 >= 0; s1 = next[s1]!) {
          if (this.holds(z, (s1 / W) | 0)) continue;
          this.move(s2, z, y);
          this.move(s1, x, z);
          return true;
        }
      }
    }
    return false;
  }
}

/** Recomputes each standby's key mask (keys on which it differs from every copy before it) after moves. */
function remask(p: StandbyProblem, out: Int32Array): void {
  const K = p.keys, T = p.tasks, W = p.width;
  const seen = new Int32Array(p.values);
  const see = (c: number, stamp: number): void => {
    for (let k = 0; k < K; k++) {
      const v = p.clientValues[c * K + k]!;
      if (v >= 0) seen[v] = stamp;
    }
  };
  for (let t = 0; t < T; t++) {
    const stamp = t + 1;
    if (p.active[t]! >= 0) see(p.active[t]!, stamp);
    for (let h = p.holderStart[t]!; h < p.holderStart[t + 1]!; h++) see(p.holders[h]!, stamp);
    for (let j = 0; j < W; j++) {
      const c = out[t * W + j]!;
      if (c < 0) continue;
      let mask = 0;
      for (let k = 0; k < K; k++) {
        const v = p.clientValues[c * K + k]!;
        if (v >= 0 && seen[v] !== stamp) mask |= 1 << k;
      }
      out[T * W + t * W + j] = mask;
      see(c, stamp);
    }
  }
}

/** Shell sort of order[0..n) by a strict total order (same sequence as the AS twin). */
function sortBy(order: Int32Array, n: number, first: (a: number, b: number) => boolean): void {
  let gap = 1;
  while (gap < n / 3) gap = 3 * gap + 1;
  for (; gap >= 1; gap = (gap / 3) | 0) {
    for (let i = gap; i < n; i++) {
      const x = order[i]!;
      let j = i;
      while (j >= gap && first(x, order[j - gap]!)) {
        order[j] = order[j - gap]!;
        j -= gap;
      }
      order[j] = x;
    }
  }
}

// ---------------------------------------------------------------- kafka

function standbyKafka(p: StandbyProblem, flags: number, fallbackOrder: Int32Array): Int32Array {
  const kafka = new KafkaPlacement(p);
  const tagAware = (flags & KAFKA_TAG_AWARE) !== 0;
  if (tagAware) kafka.tagAwarePass((flags & NEED_EXACT) !== 0);
  // DefaultStandbyTaskAssignor, or the tag-blind fallback of the tag-aware one.
  kafka.fallbackPass(tagAware ? fallbackOrder : undefined);
  return kafka.out;
}

/** Kafka mode's state: the placement so far, the clients' loads, and the task being visited. */
class KafkaPlacement {
  /** The result: T*W clients (-1: empty), then T*W key masks. */
  readonly out: Int32Array;
  private readonly K: number;
  private readonly T: number;
  private readonly W: number;
  private readonly load: Int32Array;
  private readonly remaining: Int32Array;
  private readonly filled: Int32Array;
  /** Stamps: the client holds the task being visited; a value is in Kafka's usedEntries; a value of any copy (for the report mask). */
  private readonly held: Int32Array;
  private readonly usedVal: Int32Array;
  private readonly seenVal: Int32Array;
  private readonly exhausted: Uint8Array;
  private readonly heaps: GroupHeaps;
  private stamp = 0;

  constructor(private readonly p: StandbyProblem) {
    const K = (this.K = p.keys), T = (this.T = p.tasks), W = (this.W = p.width);
    this.out = new Int32Array(2 * T * W).fill(-1, 0, T * W);
    this.load = p.load.slice();
    this.remaining = p.need.slice();
    this.filled = new Int32Array(T);
    this.held = new Int32Array(p.clients);
    this.usedVal = new Int32Array(p.values);
    this.seenVal = new Int32Array(p.values);
    this.exhausted = new Uint8Array(K);
    this.heaps = groupHeaps(p, this.load, this.load, BY_LOAD);
  }

  /** ClientTagAwareStandbyTaskAssignor's pass: per task in TaskId order, each standby outside the values used so far. */
  tagAwarePass(needExact: boolean): void {
    const { p, K, remaining, exhausted, usedVal } = this;
    for (let t = 0; t < this.T; t++) {
      const a = p.active[t]!;
      if (a < 0) continue; // no active owner: left for the fallback
      if (remaining[t]! <= 0 && needExact) continue;
      this.visit(t);
      exhausted.fill(0);
      let usedCount = 1;
      let last = a;
      let rem = remaining[t]!;
      do {
        // usedEntries update with the last used client's configured tags.
        for (let k = 0; k < K; k++) {
          const v = p.clientValues[last * K + k]!;
          if (v < 0) continue;
          if (p.distinct[k]! <= usedCount) exhausted[k] = 1;
          else usedVal[v] = this.stamp;
        }
        const c = this.poll(true);
        if (c < 0) break;
        this.assign(t, c);
        usedCount++;
        rem--;
        last = c;
      } while (rem > 0);
      remaining[t] = rem;
    }
  }

  /** The tag-blind pass over the tasks in `order` (TaskId order when undefined): the least loaded free client for each standby left. */
  fallbackPass(order: Int32Array | undefined): void {
    const remaining = this.remaining;
    for (let i = 0; i < this.T; i++) {
      const t = order !== undefined ? order[i]! : i;
      if (remaining[t]! <= 0) continue;
      this.visit(t);
      while (remaining[t]! > 0) {
        const c = this.poll(false);
        if (c < 0) break;
        this.assign(t, c);
        remaining[t]!--;
      }
    }
  }

  private markHolder(c: number): void {
    const { K, p, seenVal } = this;
    this.held[c] = this.stamp;
    for (let k = 0; k < K; k++) {
      const v = p.clientValues[c * K + k]!;
      if (v >= 0) seenVal[v] = this.stamp;
    }
  }

  private visit(t: number): void {
    const p = this.p;
    this.stamp++;
    if (p.active[t]! >= 0) this.markHolder(p.active[t]!);
    for (let h = p.holderStart[t]!; h < p.holderStart[t + 1]!; h++) this.markHolder(p.holders[h]!);
    for (let j = 0; j < this.filled[t]!; j++) this.markHolder(this.out[t * this.W + j]!);
  }

  private assign(t: number, c: number): void {
    const { K, T, W, p, out } = this;
    let mask = 0;
    for (let k = 0; k < K; k++) {
      const v = p.clientValues[c * K + k]!;
      if (v >= 0 && this.seenVal[v] !== this.stamp) mask |= 1 << k;
    }
    const j = this.filled[t]!++;
    out[t * W + j] = c;
    out[T * W + t * W + j] = mask;
    this.load[c]!++;
    this.heaps.grew(c);
    this.markHolder(c);
  }

  /**
   * Least loaded client not holding the task; with `tags`, also outside
   * usedEntries. Kafka's filter reads only a client's values, so it passes or
   * fails whole tag groups: the answer is the best of the passing groups' least
   * loaded free members, the same client a scan of all clients finds.
   */
  private poll(tags: boolean): number {
    const { K, p, heaps, exhausted, usedVal, stamp } = this;
    let best = -1;
    for (let g = 0; g < p.groups; g++) {
      if (tags) {
        let ok = true;
        for (let k = 0; k < K && ok; k++) {
          if (exhausted[k]) continue;
          const v = p.groupValues[g * K + k]!;
          if (v >= 0 && usedVal[v] === stamp) ok = false;
        }
        if (!ok) continue;
      }
      const c = heaps.bestFree(g, this.held, stamp);
      if (c >= 0 && (best < 0 || heaps.before(c, best))) best = c;
    }
    return best;
  }
}
