// Standby-selection kernels: the interface and the pure-TS twin of
// assembly/standby.ts. Written in the same flat, index-based style as the
// AssemblyScript so the two can be read side by side.
//
// Clients are indices in ProcessId order, so "smallest index" is Kafka's
// tie-break. Load is the integer count (active + standby) over capacity;
// loads are compared exactly by cross-multiplication (counts and capacities
// stay far below 2^26, so the products are exact in f64 and in i64).

/** A flat standby-placement problem (built by src/standby/problem.ts). */
export interface StandbyProblem {
  /** C clients, K configured tag keys, G tag groups (distinct value tuples), T stateful tasks. */
  clients: number;
  keys: number;
  groups: number;
  tasks: number;
  /** Slots per task in the output (upper bound of standbys placed per task). */
  width: number;
  /** C*K: global value id of client c's value for key k, -1 when it lacks the key. */
  clientValues: Int32Array;
  /** V: number of global value ids (sizes the scratch arrays). */
  values: number;
  /** K: distinct values of key k over all clients (Kafka's tagKeyToValues sizes). */
  distinct: Int32Array;
  /** C: group of each client; G*K: the group's value ids. */
  groupOf: Int32Array;
  groupValues: Int32Array;
  /** C: tasks held before placement (all actives, stateless too, plus existing standbys). */
  load: Int32Array;
  /** C: stream threads (>= 1). */
  capacity: Int32Array;
  /** T: client holding the task's active, -1 for none. */
  active: Int32Array;
  /** T: standbys to place for the task. */
  need: Int32Array;
  /** Existing standby holders of task t: holders[holderStart[t] .. holderStart[t+1]). */
  holderStart: Int32Array;
  holders: Int32Array;
}

/** Kafka-mode switches. */
export const KAFKA_TAG_AWARE = 1; // ClientTagAwareStandbyTaskAssignor, else DefaultStandbyTaskAssignor
/** Internal (balanced's first phase): a task with need 0 gets nothing, not the X04 do-while's one standby. */
export const NEED_EXACT = 2;

export interface StandbyKernels {
  /**
   * Balanced mode. Returns 2*T*W ints: [0, T*W) the client of slot (t, j) or -1,
   * then [T*W, 2*T*W) the bit mask of keys (bit k = key k) on which that standby
   * differs from every copy placed before it.
   */
  standbyBalanced(p: StandbyProblem, flags: number, fallbackOrder: Int32Array): Int32Array;
  /**
   * Kafka mode, same output. `fallbackOrder` lists task indices in the order
   * Kafka's fallback loop visits them (a java.util.HashMap order).
   */
  standbyKafka(p: StandbyProblem, flags: number, fallbackOrder: Int32Array): Int32Array;
}

/** a/ca < b/cb, exactly. */
function lessLoad(na: number, ca: number, nb: number, cb: number): boolean {
  return na * cb < nb * ca;
}

/** Popcount of a key mask (K <= 5). */
function popcount(x: number): number {
  let n = 0;
  while (x !== 0) {
    n += x & 1;
    x >>>= 1;
  }
  return n;
}

/**
 * Preference score of a mask of differing keys: more keys first, then keys of
 * higher precedence (key 0 is the most significant). Higher is better.
 */
export function maskScore(mask: number, k: number): number {
  let rev = 0;
  for (let i = 0; i < k; i++) if ((mask >>> i) & 1) rev |= 1 << (k - 1 - i);
  return (popcount(mask) << k) | rev;
}

export function referenceStandby(): StandbyKernels {
  return { standbyBalanced, standbyKafka };
}

// ---------------------------------------------------------------- balanced

/**
 * One binary min-heap per tag group over (load, index), stored in one array:
 * the least-loaded member of a group without a copy of the current task is
 * found below the heap's holders only (a task has few copies). `held[c] ===
 * stamp` marks the clients holding the current task.
 */
interface GroupHeaps {
  /** Least-loaded member of group g with held[c] !== stamp, or -1. */
  bestFree(g: number, held: Int32Array, stamp: number): number;
  /** c's load grew by one: move it down its heap. */
  grew(c: number): void;
  /** c's load fell by one: move it up its heap. */
  shrank(c: number): void;
  before(a: number, b: number): boolean;
}

function groupHeaps(p: StandbyProblem, load: Int32Array): GroupHeaps {
  const C = p.clients, G = p.groups;
  const cap = p.capacity;
  const gStart = new Int32Array(G + 1);
  for (let c = 0; c < C; c++) gStart[p.groupOf[c]! + 1]!++;
  for (let g = 0; g < G; g++) gStart[g + 1]! += gStart[g]!;
  const gSize = new Int32Array(G);
  const heap = new Int32Array(C);
  const pos = new Int32Array(C);
  const stack = new Int32Array(C + 1);
  const before = (a: number, b: number): boolean => lessLoad(load[a]!, cap[a]!, load[b]!, cap[b]!) || (!lessLoad(load[b]!, cap[b]!, load[a]!, cap[a]!) && a < b);
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
    bestFree(g, held, stamp) {
      const base = gStart[g]!;
      const n = gSize[g]!;
      let best = -1;
      let sp = 0;
      if (n > 0) stack[sp++] = 0;
      while (sp > 0) {
        const i = stack[--sp]!;
        const c = heap[base + i]!;
        if (held[c] !== stamp) {
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
 * at least Kafka's and every client inside Kafka's range of loads and standby
 * counts, so the result is never worse than Kafka's on either (docs/standby.md).
 *   1. improve: per task, replace a standby by the least-loaded client of a group
 *      that raises the task's spread (distinct values per key, in precedence order);
 *   2. rebalance: even loads inside groups of identical tags (no spread changes).
 */
function standbyBalanced(p: StandbyProblem, flags: number, fallbackOrder: Int32Array): Int32Array {
  const out = standbyKafka(p, flags | NEED_EXACT, fallbackOrder);
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
  improve(p, out, load, count, env);
  rebalance(p, out, load, count, env);
  remask(p, out);
  return out;
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

/** Moving one standby x -> y keeps both clients inside Kafka's range of loads and of standby counts. */
function insideEnvelope(p: StandbyProblem, load: Int32Array, count: Int32Array, e: Envelope, x: number, y: number): boolean {
  const cap = p.capacity;
  if (count[y]! + 1 > e.maxCount || count[x]! - 1 < e.minCount) return false;
  if (lessLoad(e.hiN, e.hiC, load[y]! + 1, cap[y]!)) return false;
  return !lessLoad(load[x]! - 1, cap[x]!, e.loN, e.loC);
}

/** Lexicographic comparison of two spread vectors (distinct values per key, key 0 first). */
function compareSpread(a: Int32Array, b: Int32Array, K: number): number {
  for (let k = 0; k < K; k++) if (a[k] !== b[k]) return a[k]! - b[k]!;
  return 0;
}

/**
 * Raises tasks' tag spread: for each standby of a task, the least-loaded free
 * member of the group that raises the task's spread vector most (ties: least
 * loaded) takes its place, if the move stays inside Kafka's range. Every move
 * strictly raises one task's vector, which is bounded, so the pass ends.
 */
function improve(p: StandbyProblem, out: Int32Array, load: Int32Array, count: Int32Array, env: Envelope): void {
  const C = p.clients, K = p.keys, G = p.groups, T = p.tasks, W = p.width;
  if (K === 0 || W === 0) return;
  const heaps = groupHeaps(p, load);
  const held = new Int32Array(C);
  const usedVal = new Int32Array(p.values);
  const without = new Int32Array(K);
  const cur = new Int32Array(K);
  const cand = new Int32Array(K);
  const bestVec = new Int32Array(K);
  let u = 0;
  const mark = (c: number): void => {
    for (let k = 0; k < K; k++) {
      const v = p.clientValues[c * K + k]!;
      if (v >= 0 && usedVal[v] !== u) {
        usedVal[v] = u;
        without[k]!++;
      }
    }
  };
  const withValues = (vec: Int32Array, values: Int32Array, base: number): void => {
    for (let k = 0; k < K; k++) {
      const v = values[base + k]!;
      vec[k] = without[k]! + (v >= 0 && usedVal[v] !== u ? 1 : 0);
    }
  };
  for (let t = 0; t < T; t++) {
    const stamp = t + 1;
    const a = p.active[t]!;
    if (a >= 0) held[a] = stamp;
    for (let h = p.holderStart[t]!; h < p.holderStart[t + 1]!; h++) held[p.holders[h]!] = stamp;
    for (let j = 0; j < W; j++) if (out[t * W + j]! >= 0) held[out[t * W + j]!] = stamp;
    for (let moved = true; moved; ) {
      moved = false;
      for (let j = 0; j < W; j++) {
        const x = out[t * W + j]!;
        if (x < 0) continue;
        // The task's spread without slot j's copy, then with x (now) and with each group instead.
        u++;
        without.fill(0);
        if (a >= 0) mark(a);
        for (let h = p.holderStart[t]!; h < p.holderStart[t + 1]!; h++) mark(p.holders[h]!);
        for (let i = 0; i < W; i++) if (i !== j && out[t * W + i]! >= 0) mark(out[t * W + i]!);
        withValues(cur, p.clientValues, x * K);
        bestVec.set(cur);
        let best = -1;
        for (let g = 0; g < G; g++) {
          withValues(cand, p.groupValues, g * K);
          const cmp = compareSpread(cand, bestVec, K);
          if (cmp < 0 || (cmp === 0 && best < 0)) continue;
          const y = heaps.bestFree(g, held, stamp);
          if (y < 0 || (cmp === 0 && !heaps.before(y, best))) continue;
          if (!insideEnvelope(p, load, count, env, x, y)) continue;
          best = y;
          bestVec.set(cand);
        }
        if (best < 0) continue;
        out[t * W + j] = best;
        held[x] = 0;
        held[best] = stamp;
        load[x]!--;
        count[x]!--;
        heaps.shrank(x);
        load[best]!++;
        count[best]!++;
        heaps.grew(best);
        moved = true;
      }
    }
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

/**
 * Evens out load inside each tag group (identical tags, so no task's tag
 * spread changes): move a standby from the most to a less loaded member while
 * (n_src - 1)/cap_src >= (n_dst + 1)/cap_dst, which strictly lowers
 * sum(n^2/cap), so it terminates. Only standbys placed by this call move.
 */
function rebalance(p: StandbyProblem, out: Int32Array, load: Int32Array, count: Int32Array, env: Envelope): void {
  const C = p.clients, G = p.groups, T = p.tasks, W = p.width;
  const cap = p.capacity;
  const S = T * W;
  // Per-client doubly linked lists of the slots it holds.
  const head = new Int32Array(C).fill(-1);
  const next = new Int32Array(S);
  const prev = new Int32Array(S);
  const link = (c: number, s: number): void => {
    prev[s] = -1;
    next[s] = head[c]!;
    if (head[c]! >= 0) prev[head[c]!] = s;
    head[c] = s;
  };
  const unlink = (c: number, s: number): void => {
    if (prev[s]! >= 0) next[prev[s]!] = next[s]!;
    else head[c] = next[s]!;
    if (next[s]! >= 0) prev[next[s]!] = prev[s]!;
  };
  for (let s = S - 1; s >= 0; s--) if (out[s]! >= 0) link(out[s]!, s);
  const holds = (c: number, t: number): boolean => {
    if (p.active[t] === c) return true;
    for (let h = p.holderStart[t]!; h < p.holderStart[t + 1]!; h++) if (p.holders[h] === c) return true;
    for (let j = 0; j < W; j++) if (out[t * W + j] === c) return true;
    return false;
  };
  // Members per group, ascending index.
  const mStart = new Int32Array(G + 1);
  for (let c = 0; c < C; c++) mStart[p.groupOf[c]! + 1]!++;
  for (let g = 0; g < G; g++) mStart[g + 1]! += mStart[g]!;
  const members = new Int32Array(C);
  const fill = mStart.slice(0, G);
  for (let c = 0; c < C; c++) members[fill[p.groupOf[c]!]!++] = c;
  const order = new Int32Array(C);
  // Heavier first; equal loads by index.
  const heavier = (a: number, b: number): boolean => lessLoad(load[b]!, cap[b]!, load[a]!, cap[a]!) || (!lessLoad(load[a]!, cap[a]!, load[b]!, cap[b]!) && a < b);
  const move = (s: number, from: number, to: number): void => {
    unlink(from, s);
    link(to, s);
    out[s] = to;
    load[from]!--;
    load[to]!++;
    count[from]!--;
    count[to]!++;
  };
  /** Moves one standby src -> dst that dst does not hold yet. */
  const moveOne = (src: number, dst: number): boolean => {
    for (let s = head[src]!; s >= 0; s = next[s]!) {
      if (holds(dst, (s / W) | 0)) continue;
      move(s, src, dst);
      return true;
    }
    return false;
  };
  /** src -> mid and mid -> dst (mid's load unchanged), for when every task of src is already on dst. */
  const chain = (src: number, dst: number, base: number, n: number): boolean => {
    for (let i = 0; i < n; i++) {
      const mid = members[base + i]!;
      if (mid === src || mid === dst) continue;
      for (let s2 = head[mid]!; s2 >= 0; s2 = next[s2]!) {
        if (holds(dst, (s2 / W) | 0)) continue;
        for (let s1 = head[src]!; s1 >= 0; s1 = next[s1]!) {
          if (holds(mid, (s1 / W) | 0)) continue;
          move(s2, mid, dst);
          move(s1, src, mid);
          return true;
        }
      }
    }
    return false;
  };
  for (let g = 0; g < G; g++) {
    const base = mStart[g]!;
    const n = mStart[g + 1]! - base;
    if (n < 2) continue;
    for (;;) {
      for (let i = 0; i < n; i++) order[i] = members[base + i]!;
      sortBy(order, n, heavier);
      let moved = false;
      // Direct moves first; only when none exists, a two-step chain through a third member.
      for (let pass = 0; pass < 2 && !moved; pass++) {
        for (let a = 0; a < n && !moved; a++) {
          const src = order[a]!;
          if (head[src]! < 0) continue;
          for (let b = n - 1; b > a && !moved; b--) {
            const dst = order[b]!;
            // Worth moving only if the source stays at least as loaded as the destination becomes.
            if (lessLoad(load[src]! - 1, cap[src]!, load[dst]! + 1, cap[dst]!)) continue;
            // ... and the standby counts stay inside Kafka's range.
            if (count[dst]! + 1 > env.maxCount || count[src]! - 1 < env.minCount) continue;
            moved = pass === 0 ? moveOne(src, dst) : chain(src, dst, base, n);
          }
        }
      }
      if (!moved) break;
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
  const heaps = groupHeaps(p, load);
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
