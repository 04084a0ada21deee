// Standby-selection kernels: the pure-TS twin of
// assembly/standby.ts. Written in the same flat, index-based style as the
// AssemblyScript so the two can be read side by side.
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
  const C = p.clients, G = p.groups;
  const cap = p.capacity;
  const gStart = new Int32Array(G + 1);
  for (let c = 0; c < C; c++) gStart[p.groupOf[c]! + 1]!++;
  for (let g = 0; g < G; g++) gStart[g + 1]! += gStart[g]!;
  const gSize = new Int32Array(G);
  const heap = new Int32Array(C);
  const pos = new Int32Array(C);
  const stack = new Int32Array(C + 1);
  const m = mode === BY_COST ? 1 : 0;
  let limited = false, maxCount = 0, hiN = 0, hiC = 1;
  const before = (a: number, b: number): boolean => {
    const na = load[a]! + m, nb = load[b]! + m;
    if (lessLoad(na, cap[a]!, nb, cap[b]!)) return true;
    if (lessLoad(nb, cap[b]!, na, cap[a]!)) return false;
    if (m !== 0 && count[a] !== count[b]) return count[a]! < count[b]!;
    return a < b;
  };
  const siftUp = (g: number, i: number): void => {
    const base = gStart[g]!;
    const c = heap[base + i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pc = heap[base + parent]!;
      if (!before(c, pc)) break;
      heap[base + i] = pc;
      pos[pc] = i;
      i = parent;
    }
    heap[base + i] = c;
    pos[c] = i;
  };
  const siftDown = (g: number, i: number): void => {
    const base = gStart[g]!;
    const n = gSize[g]!;
    const c = heap[base + i]!;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap[base + child + 1]!, heap[base + child]!)) child++;
      const cc = heap[base + child]!;
      if (!before(cc, c)) break;
      heap[base + i] = cc;
      pos[cc] = i;
      i = child;
    }
    heap[base + i] = c;
    pos[c] = i;
  };
  for (let c = 0; c < C; c++) {
    const g = p.groupOf[c]!;
    heap[gStart[g]! + gSize[g]!] = c;
    gSize[g]!++;
    siftUp(g, gSize[g]! - 1);
  }
  return {
    before,
    grew: (c) => siftDown(p.groupOf[c]!, pos[c]!),
    shrank: (c) => siftUp(p.groupOf[c]!, pos[c]!),
    limit(mc, hn, hc) {
      limited = true;
      maxCount = mc;
      hiN = hn;
      hiC = hc;
    },
    bestFree(g, held, stamp) {
      const base = gStart[g]!;
      const n = gSize[g]!;
      let best = -1;
      let sp = 0;
      if (n > 0) stack[sp++] = 0;
      while (sp > 0) {
        const i = stack[--sp]!;
        const c = heap[base + i]!;
        if (held[c] !== stamp && (!limited || (count[c]! < maxCount && !lessLoad(hiN, hiC, load[c]! + 1, cap[c]!)))) {
          if (best < 0 || before(c, best)) best = c;
          continue;
        }
        const l = 2 * i + 1;
        if (l < n) stack[sp++] = l;
        if (l + 1 < n) stack[sp++] = l + 1;
      }
      return best;
    },
  };
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
  const env = envelope(p, load, count);
  if (p.keys > 0 && p.width > 0) chooseSets(p, out, load, count, env);
  if (p.width > 0) repair(p, out, load, count, env);
  remask(p, out);
  return keep ? withKafkaDiff(out, kafka, p.tasks, p.width) : out;
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
function setSearch(p: StandbyProblem, out: Int32Array, load: Int32Array, count: Int32Array, env: Envelope, heaps: GroupHeaps): SetSearch {
  const C = p.clients, K = p.keys, G = p.groups, W = p.width;
  const cv = p.clientValues, cap = p.capacity;
  const held = new Int32Array(C);
  const seen = new Int32Array(p.values); // copies per value: active, existing, staying members, picks
  const seenAt = new Int32Array(p.values); // stamp of seen[]
  const vec = new Int32Array(K);
  const ub = new Int32Array(K);
  const bestVec = new Int32Array(K);
  const curVec = new Int32Array(K);
  const oldSet = new Int32Array(W);
  const keep = new Uint8Array(W);
  const pick = new Int32Array(W); // client picked at depth d
  const pickGroup = new Int32Array(W);
  const best = new Int32Array(W);
  const sortB = new Int32Array(W);
  let stamp = 0;

  const add = (c: number): void => {
    for (let k = 0; k < K; k++) {
      const v = cv[c * K + k]!;
      if (v < 0) continue;
      if (seenAt[v] !== stamp) {
        seenAt[v] = stamp;
        seen[v] = 0;
      }
      if (seen[v]++ === 0) vec[k]!++;
    }
  };
  const remove = (c: number): void => {
    for (let k = 0; k < K; k++) {
      const v = cv[c * K + k]!;
      if (v >= 0 && --seen[v]! === 0) vec[k]!--;
    }
  };
  /** The spread the remaining `r` picks could reach at most, against bestVec: can the search still win? An equal spread wins only once a better one was found (a less loaded set). */
  const promising = (r: number, found: boolean): boolean => {
    for (let k = 0; k < K; k++) {
      const b = Math.min(ub[k]!, vec[k]! + r);
      if (b !== bestVec[k]) return b > bestVec[k]!;
    }
    return found;
  };
  /** Heavier after taking one more standby (exact). */
  const heavierAfter = (a: number, b: number): boolean => lessLoad(load[b]! + 1, cap[b]!, load[a]! + 1, cap[a]!);
  /** Sorts xs[0..n) heaviest-after first (insertion sort: n <= W, small). */
  const sortHeavy = (xs: Int32Array, n: number): void => {
    for (let i = 1; i < n; i++) {
      const c = xs[i]!;
      let j = i;
      while (j > 0 && heavierAfter(c, xs[j - 1]!)) {
        xs[j] = xs[j - 1]!;
        j--;
      }
      xs[j] = c;
    }
  };

  return {
    search(t) {
      let n = 0;
      while (n < W && out[t * W + n]! >= 0) n++;
      if (n === 0) return false;
      stamp++;
      vec.fill(0);
      const a = p.active[t]!;
      if (a >= 0) {
        add(a);
        held[a] = stamp;
      }
      for (let h = p.holderStart[t]!; h < p.holderStart[t + 1]!; h++) {
        add(p.holders[h]!);
        held[p.holders[h]!] = stamp;
      }
      // Upper bound per key: every value of it, or one new value per standby.
      for (let k = 0; k < K; k++) ub[k] = Math.min(p.distinct[k]!, vec[k]! + n);
      for (let j = 0; j < n; j++) add(out[t * W + j]!);
      curVec.set(vec);
      if (compareSpread(curVec, ub, K) === 0) return false; // no set can do better
      // Release the members that may leave; the others stay (keep[j]).
      let r = 0;
      for (let j = 0; j < n; j++) {
        const c = out[t * W + j]!;
        oldSet[j] = c;
        remove(c);
        if (mayGive(p, load, count, env, c)) {
          keep[j] = 0;
          load[c]!--;
          count[c]!--;
          heaps.shrank(c);
          r++;
        } else {
          keep[j] = 1;
          add(c);
          held[c] = stamp;
        }
      }
      bestVec.set(curVec);
      let found = false;
      let bestHeavy = -1;
      const leaf = (): void => {
        const cmp = compareSpread(vec, bestVec, K);
        if (cmp < 0) return;
        for (let i = 0; i < r; i++) sortB[i] = pick[i]!;
        sortHeavy(sortB, r);
        const h = sortB[0]!;
        if (cmp === 0 && !(found && heavierAfter(bestHeavy, h))) return;
        found = true;
        bestVec.set(vec);
        bestHeavy = h;
        best.set(pick.subarray(0, r));
      };
      if (r > 0) {
        // A greedy first guess: each pick the group adding the most (ties: the heaps' order).
        let d = 0;
        for (; d < r; d++) {
          let bc = -1;
          let bAdd = -1;
          for (let g = 0; g < G; g++) {
            const y = heaps.bestFree(g, held, stamp);
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
          if (bc < 0) break;
          pick[d] = bc;
          add(bc);
          held[bc] = stamp;
        }
        if (d === r) leaf();
        for (let i = d - 1; i >= 0; i--) {
          remove(pick[i]!);
          held[pick[i]!] = 0;
        }
        // Depth-first over multisets of groups (nondecreasing group index).
        let nodes = 0;
        d = 0;
        pickGroup[0] = -1;
        pick[0] = -1;
        while (d >= 0) {
          if (pick[d]! >= 0) {
            remove(pick[d]!);
            held[pick[d]!] = 0;
            pick[d] = -1;
          }
          // Next group at depth d; a group may repeat (its next member), so depth d starts at depth d-1's group.
          let g = pickGroup[d]! >= 0 ? pickGroup[d]! + 1 : d > 0 ? pickGroup[d - 1]! : 0;
          let advanced = false;
          for (; g < G && nodes < SET_SEARCH_BUDGET; g++) {
            nodes++;
            const y = heaps.bestFree(g, held, stamp);
            if (y < 0) continue;
            add(y);
            if (!promising(r - d - 1, found)) {
              remove(y);
              continue;
            }
            pick[d] = y;
            pickGroup[d] = g;
            held[y] = stamp;
            advanced = true;
            break;
          }
          if (!advanced) {
            pickGroup[d] = -1;
            d--;
            continue;
          }
          if (d + 1 === r) leaf();
          else {
            d++;
            pickGroup[d] = -1;
            pick[d] = -1;
          }
        }
      }
      // Apply: the members that stayed, then the best set; or the released members back where they were.
      let j = 0;
      if (found) for (let i = 0; i < n; i++) if (keep[i]) out[t * W + j++] = oldSet[i]!;
      for (let i = 0, b = 0; i < n; i++) {
        if (keep[i]) continue;
        const c = found ? best[b++]! : oldSet[i]!;
        out[t * W + (found ? j++ : i)] = c;
        load[c]!++;
        count[c]!++;
        heaps.grew(c);
      }
      return found;
    },
  };
}

/** Step 1: per task in TaskId order, the set of standbys with the best tag spread, if better than Kafka's (setSearch). */
function chooseSets(p: StandbyProblem, out: Int32Array, load: Int32Array, count: Int32Array, env: Envelope): void {
  const heaps = groupHeaps(p, load, count, BY_LOAD);
  heaps.limit(env.maxCount, env.hiN, env.hiC);
  const sets = setSearch(p, out, load, count, env, heaps);
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
function repair(p: StandbyProblem, out: Int32Array, load: Int32Array, count: Int32Array, env: Envelope): void {
  const C = p.clients, K = p.keys, G = p.groups, T = p.tasks, W = p.width;
  const cap = p.capacity, cv = p.clientValues, gv = p.groupValues;
  const S = T * W;
  const heaps = groupHeaps(p, load, count, BY_COST);
  heaps.limit(env.maxCount, env.hiN, env.hiC);
  // Per-client doubly linked lists of the slots it holds.
  const head = new Int32Array(C).fill(-1);
  const next = new Int32Array(S);
  const prev = new Int32Array(S);
  const placed = new Int32Array(C); // slots in the client's list
  const link = (c: number, s: number): void => {
    prev[s] = -1;
    next[s] = head[c]!;
    if (head[c]! >= 0) prev[head[c]!] = s;
    head[c] = s;
    placed[c]!++;
  };
  const unlink = (c: number, s: number): void => {
    if (prev[s]! >= 0) next[prev[s]!] = next[s]!;
    else head[c] = next[s]!;
    if (next[s]! >= 0) prev[next[s]!] = prev[s]!;
    placed[c]!--;
  };
  for (let s = S - 1; s >= 0; s--) if (out[s]! >= 0) link(out[s]!, s);
  // Members per group, ascending index (for the two-step move).
  const mStart = new Int32Array(G + 1);
  for (let c = 0; c < C; c++) mStart[p.groupOf[c]! + 1]!++;
  for (let g = 0; g < G; g++) mStart[g + 1]! += mStart[g]!;
  const members = new Int32Array(C);
  const fill = mStart.slice(0, G);
  for (let c = 0; c < C; c++) members[fill[p.groupOf[c]!]!++] = c;

  const held = new Int32Array(C);
  const seen = new Int32Array(p.values);
  const seenAt = new Int32Array(p.values);
  const okAt = new Int32Array(G);
  const cur = new Int32Array(K);
  const rigid = new Uint8Array(S);
  const rigidCount = new Int32Array(C);
  let stamp = 0;

  /** y taking one standby from x lowers the potential. */
  const improves = (y: number, x: number): boolean =>
    lessLoad(load[y]! + 1, cap[y]!, load[x]!, cap[x]!) || (!lessLoad(load[x]!, cap[x]!, load[y]! + 1, cap[y]!) && count[y]! + 1 < count[x]!);
  const holds = (c: number, t: number): boolean => {
    if (p.active[t] === c) return true;
    for (let h = p.holderStart[t]!; h < p.holderStart[t + 1]!; h++) if (p.holders[h] === c) return true;
    for (let j = 0; j < W; j++) if (out[t * W + j] === c) return true;
    return false;
  };
  /** Marks task t's holders with a new stamp and counts its copies per value into seen[] and cur[]. */
  const visitTask = (t: number): void => {
    stamp++;
    cur.fill(0);
    const see = (c: number): void => {
      held[c] = stamp;
      for (let k = 0; k < K; k++) {
        const v = cv[c * K + k]!;
        if (v < 0) continue;
        if (seenAt[v] !== stamp) {
          seenAt[v] = stamp;
          seen[v] = 0;
        }
        if (seen[v]++ === 0) cur[k]!++;
      }
    };
    if (p.active[t]! >= 0) see(p.active[t]!);
    for (let h = p.holderStart[t]!; h < p.holderStart[t + 1]!; h++) see(p.holders[h]!);
    for (let j = 0; j < W; j++) if (out[t * W + j]! >= 0) see(out[t * W + j]!);
  };
  /** Recomputes the rigid flags of task t's slots (after visitTask(t)); sign -1 first removes them from the counts. */
  const setRigid = (t: number, on: boolean): void => {
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
        if (v < 0 || seen[v] !== 1 || cur[k] !== p.distinct[k]) r = 0;
      }
      rigid[s] = r;
      rigidCount[c]! += r;
    }
  };
  for (let t = 0; t < T; t++) {
    visitTask(t);
    setRigid(t, true);
  }
  const move = (s: number, x: number, y: number): void => {
    const t = (s / W) | 0;
    setRigid(t, false);
    unlink(x, s);
    link(y, s);
    out[s] = y;
    load[x]!--;
    count[x]!--;
    heaps.shrank(x);
    load[y]!++;
    count[y]!++;
    heaps.grew(y);
    visitTask(t);
    setRigid(t, true);
  };
  /** Task t's spread with x replaced by a member of group g is at least its present spread (after visitTask(t)). */
  const keepsSpread = (x: number, g: number): boolean => {
    for (let k = 0; k < K; k++) {
      const xv = cv[x * K + k]!;
      const w = gv[g * K + k]!;
      const lost = xv >= 0 && seen[xv] === 1 ? 1 : 0;
      const left = w < 0 ? 1 : w === xv ? seen[w]! - 1 : seenAt[w] === stamp ? seen[w]! : 0;
      const gained = w >= 0 && left === 0 ? 1 : 0;
      if (gained !== lost) return gained > lost;
    }
    return true;
  };
  /** One move away from x, if any lowers the potential. */
  const shed = (x: number): boolean => {
    if (head[x]! < 0 || !mayGive(p, load, count, env, x)) return false;
    // Groups whose cheapest receiver (other than x) would lower the potential: x's own, then (when x has slots that are not rigid) the others.
    stamp++;
    held[x] = stamp;
    const xs = stamp;
    const own = p.groupOf[x]!;
    const yo = heaps.bestFree(own, held, xs);
    const okOwn = yo >= 0 && improves(yo, x);
    if (okOwn) okAt[own] = xs;
    let others = false;
    if (rigidCount[x]! < placed[x]!) {
      for (let g = 0; g < G; g++) {
        if (g === own) continue;
        const y = heaps.bestFree(g, held, xs);
        if (y >= 0 && improves(y, x)) {
          okAt[g] = xs;
          others = true;
        }
      }
    }
    if (!okOwn && !others) return false;
    for (let s = head[x]!; s >= 0; s = next[s]!) {
      if (rigid[s] && !okOwn) continue;
      const t = (s / W) | 0;
      visitTask(t);
      let best = -1;
      for (let g = rigid[s] ? own : 0; g < (rigid[s] ? own + 1 : G); g++) {
        if (okAt[g] !== xs || (g !== own && !keepsSpread(x, g))) continue;
        const y = heaps.bestFree(g, held, stamp);
        if (y < 0 || !improves(y, x)) continue;
        if (best < 0 || heaps.before(y, best)) best = y;
      }
      if (best >= 0) {
        move(s, x, best);
        return true;
      }
    }
    return okOwn && twoStep(x);
  };
  /** x -> z -> y inside x's group, y its cheapest receiver: for when y already holds every task x could give it. */
  const twoStep = (x: number): boolean => {
    const g = p.groupOf[x]!;
    stamp++;
    held[x] = stamp;
    const y = heaps.bestFree(g, held, stamp);
    if (y < 0 || !improves(y, x)) return false;
    for (let i = mStart[g]!; i < mStart[g + 1]!; i++) {
      const z = members[i]!;
      if (z === x || z === y) continue;
      for (let s2 = head[z]!; s2 >= 0; s2 = next[s2]!) {
        if (holds(y, (s2 / W) | 0)) continue;
        for (let s1 = head[x]!; s1 >= 0; s1 = next[s1]!) {
          if (holds(z, (s1 / W) | 0)) continue;
          move(s2, z, y);
          move(s1, x, z);
          return true;
        }
      }
    }
    return false;
  };

  const order = new Int32Array(C);
  // Heavier first; equal loads by index.
  const heavier = (a: number, b: number): boolean => lessLoad(load[b]!, cap[b]!, load[a]!, cap[a]!) || (!lessLoad(load[a]!, cap[a]!, load[b]!, cap[b]!) && a < b);
  const maxMoves = REPAIR_MOVES_PER_SLOT * S;
  let moves = 0;
  for (;;) {
    let n = 0;
    for (let c = 0; c < C; c++) if (head[c]! >= 0) order[n++] = c;
    sortBy(order, n, heavier);
    let moved = false;
    for (let i = 0; i < n; i++) {
      const x = order[i]!;
      while (moves < maxMoves && shed(x)) {
        moves++;
        moved = true;
      }
    }
    if (!moved || moves >= maxMoves) break;
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
  const C = p.clients, K = p.keys, G = p.groups, T = p.tasks, W = p.width;
  const out = new Int32Array(2 * T * W).fill(-1, 0, T * W);
  const load = p.load.slice();
  const tagAware = (flags & KAFKA_TAG_AWARE) !== 0;
  const remaining = p.need.slice();
  const filled = new Int32Array(T);
  const held = new Int32Array(C); // stamp: client holds the task being visited
  const usedVal = new Int32Array(p.values); // stamp: value in Kafka's usedEntries
  const seenVal = new Int32Array(p.values); // stamp: value of any copy (for the report mask)
  const exhausted = new Uint8Array(K);
  let stamp = 0;

  const markHolder = (c: number): void => {
    held[c] = stamp;
    for (let k = 0; k < K; k++) {
      const v = p.clientValues[c * K + k]!;
      if (v >= 0) seenVal[v] = stamp;
    }
  };
  const visit = (t: number): void => {
    stamp++;
    if (p.active[t]! >= 0) markHolder(p.active[t]!);
    for (let h = p.holderStart[t]!; h < p.holderStart[t + 1]!; h++) markHolder(p.holders[h]!);
    for (let j = 0; j < filled[t]!; j++) markHolder(out[t * W + j]!);
  };
  const assign = (t: number, c: number): void => {
    let mask = 0;
    for (let k = 0; k < K; k++) {
      const v = p.clientValues[c * K + k]!;
      if (v >= 0 && seenVal[v] !== stamp) mask |= 1 << k;
    }
    const j = filled[t]!++;
    out[t * W + j] = c;
    out[T * W + t * W + j] = mask;
    load[c]!++;
    heaps.grew(c);
    markHolder(c);
  };
  const heaps = groupHeaps(p, load, load, BY_LOAD);
  /**
   * Least loaded client not holding the task; with `tags`, also outside
   * usedEntries. Kafka's filter reads only a client's values, so it passes or
   * fails whole tag groups: the answer is the best of the passing groups' least
   * loaded free members, the same client a scan of all clients finds.
   */
  const poll = (tags: boolean): number => {
    let best = -1;
    for (let g = 0; g < G; g++) {
      if (tags) {
        let ok = true;
        for (let k = 0; k < K && ok; k++) {
          if (exhausted[k]) continue;
          const v = p.groupValues[g * K + k]!;
          if (v >= 0 && usedVal[v] === stamp) ok = false;
        }
        if (!ok) continue;
      }
      const c = heaps.bestFree(g, held, stamp);
      if (c >= 0 && (best < 0 || heaps.before(c, best))) best = c;
    }
    return best;
  };

  if (tagAware) {
    for (let t = 0; t < T; t++) {
      const a = p.active[t]!;
      if (a < 0) continue; // no active owner: left for the fallback
      if (remaining[t]! <= 0 && (flags & NEED_EXACT) !== 0) continue;
      visit(t);
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
          else usedVal[v] = stamp;
        }
        const c = poll(true);
        if (c < 0) break;
        assign(t, c);
        usedCount++;
        rem--;
        last = c;
      } while (rem > 0);
      remaining[t] = rem;
    }
  }
  // DefaultStandbyTaskAssignor, or the tag-blind fallback of the tag-aware one.
  for (let i = 0; i < T; i++) {
    const t = tagAware ? fallbackOrder[i]! : i;
    if (remaining[t]! <= 0) continue;
    visit(t);
    while (remaining[t]! > 0) {
      const c = poll(false);
      if (c < 0) break;
      assign(t, c);
      remaining[t]!--;
    }
  }
  return out;
}
