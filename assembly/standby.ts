// Standby-selection kernels (issue 5): the AssemblyScript twin of
// src/engine/reference/standby.ts, line for line where possible.
// Pointer ABI: every array is i32 in linear memory; scratch space comes from
// the arena (reset per call) and is initialised here, since it is not zeroed.
// Clients are indices in ProcessId order, so "smallest index" is Kafka's tie-break.
export const STANDBY_KERNELS_VERSION: i32 = 1;
export const STANDBY_KAFKA_TAG_AWARE: i32 = 1;
/** Internal (balanced's first phase): a task with need 0 gets nothing, not the X04 do-while's one standby. */
const NEED_EXACT: i32 = 2;

// @ts-ignore: decorator
@inline function ld(p: usize, i: i32): i32 {
  return load<i32>(p + (<usize>i << 2));
}
// @ts-ignore: decorator
@inline function st(p: usize, i: i32, v: i32): void {
  store<i32>(p + (<usize>i << 2), v);
}

function scratch(n: i32, fill: i32): usize {
  const m: i32 = n > 0 ? n : 1;
  const bytes = <usize>m << 2;
  const p = heap.alloc(bytes);
  if (fill == 0) memory.fill(p, 0, bytes);
  else for (let i = 0; i < n; i++) st(p, i, fill);
  return p;
}

/** na/ca < nb/cb exactly (i64 products). */
// @ts-ignore: decorator
@inline function lessLoad(na: i32, ca: i32, nb: i32, cb: i32): bool {
  return <i64>na * <i64>cb < <i64>nb * <i64>ca;
}

/** More differing keys first, then keys of higher precedence (key 0 most significant). */
function maskScore(mask: i32, k: i32): i32 {
  let rev = 0;
  for (let i = 0; i < k; i++) if ((mask >>> i) & 1) rev |= 1 << (k - 1 - i);
  return (<i32>popcnt<u32>(<u32>mask) << k) | rev;
}

// ---------------------------------------------------------------- shared state of one call
let gLoad: usize = 0;
let gCap: usize = 0;
let gGroupOf: usize = 0;
let gStart: usize = 0;
let gSize: usize = 0;
let gHeap: usize = 0;
let gPos: usize = 0;

// @ts-ignore: decorator
@inline function before(a: i32, b: i32): bool {
  const na = ld(gLoad, a), ca = ld(gCap, a), nb = ld(gLoad, b), cb = ld(gCap, b);
  return lessLoad(na, ca, nb, cb) || (!lessLoad(nb, cb, na, ca) && a < b);
}

function siftUp(g: i32, i: i32): void {
  const base = ld(gStart, g);
  const c = ld(gHeap, base + i);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const pc = ld(gHeap, base + parent);
    if (!before(c, pc)) break;
    st(gHeap, base + i, pc);
    st(gPos, pc, i);
    i = parent;
  }
  st(gHeap, base + i, c);
  st(gPos, c, i);
}

function siftDown(g: i32, i: i32): void {
  const base = ld(gStart, g);
  const n = ld(gSize, g);
  const c = ld(gHeap, base + i);
  for (;;) {
    let child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && before(ld(gHeap, base + child + 1), ld(gHeap, base + child))) child++;
    const cc = ld(gHeap, base + child);
    if (!before(cc, c)) break;
    st(gHeap, base + i, cc);
    st(gPos, cc, i);
    i = child;
  }
  st(gHeap, base + i, c);
  st(gPos, c, i);
}

function push(c: i32): void {
  const g = ld(gGroupOf, c);
  const n = ld(gSize, g);
  st(gHeap, ld(gStart, g) + n, c);
  st(gSize, g, n + 1);
  siftUp(g, n);
}

/** One binary min-heap per tag group over (load, index), stored in one array. */
function initHeaps(C: i32, G: i32, groupOf: usize, load: usize, cap: usize): void {
  gLoad = load;
  gCap = cap;
  gGroupOf = groupOf;
  gStart = scratch(G + 1, 0);
  for (let c = 0; c < C; c++) st(gStart, ld(groupOf, c) + 1, ld(gStart, ld(groupOf, c) + 1) + 1);
  for (let g = 0; g < G; g++) st(gStart, g + 1, ld(gStart, g + 1) + ld(gStart, g));
  gSize = scratch(G, 0);
  gHeap = scratch(C, 0);
  gPos = scratch(C, 0);
  for (let c = 0; c < C; c++) push(c);
}

// ---------------------------------------------------------------- balanced

let bHeld: usize = 0;
let bStack: usize = 0;
let bStamp: i32 = 0;

function holdClient(c: i32, K: i32, clientValues: usize, usedVal: usize): void {
  st(bHeld, c, bStamp);
  for (let k = 0; k < K; k++) {
    const v = ld(clientValues, c * K + k);
    if (v >= 0) st(usedVal, v, bStamp);
  }
}

/**
 * Least-loaded member of group g without a copy: the heap top, unless it holds
 * one; then search below the holders only (a task has few copies).
 */
function bestFree(g: i32): i32 {
  const base = ld(gStart, g);
  const n = ld(gSize, g);
  let best = -1;
  let sp = 0;
  if (n > 0) st(bStack, sp++, 0);
  while (sp > 0) {
    const i = ld(bStack, --sp);
    const c = ld(gHeap, base + i);
    if (ld(bHeld, c) != bStamp) {
      if (best < 0 || before(c, best)) best = c;
      continue;
    }
    const l = 2 * i + 1;
    if (l < n) st(bStack, sp++, l);
    if (l + 1 < n) st(bStack, sp++, l + 1);
  }
  return best;
}

// Kafka's range (see envelope() in the reference): least/most load as count/capacity, fewest/most standbys.
let eLoN: i32 = 0;
let eLoC: i32 = 1;
let eHiN: i32 = 0;
let eHiC: i32 = 1;
let eMinCount: i32 = 0;
let eMaxCount: i32 = 0;
let gCount: usize = 0; // standbys per client (existing and placed)

function envelope(C: i32, load: usize, cap: usize, count: usize): void {
  let lo = 0, hi = 0;
  let minCount = C > 0 ? ld(count, 0) : 0, maxCount = minCount;
  for (let c = 1; c < C; c++) {
    if (lessLoad(ld(load, c), ld(cap, c), ld(load, lo), ld(cap, lo))) lo = c;
    if (lessLoad(ld(load, hi), ld(cap, hi), ld(load, c), ld(cap, c))) hi = c;
    const n = ld(count, c);
    if (n < minCount) minCount = n;
    if (n > maxCount) maxCount = n;
  }
  eLoN = C > 0 ? ld(load, lo) : 0;
  eLoC = C > 0 ? ld(cap, lo) : 1;
  eHiN = C > 0 ? ld(load, hi) : 0;
  eHiC = C > 0 ? ld(cap, hi) : 1;
  eMinCount = minCount;
  eMaxCount = maxCount;
}

/** Moving one standby x -> y keeps both clients inside Kafka's range of loads and of standby counts. */
function insideEnvelope(x: i32, y: i32): bool {
  if (ld(gCount, y) + 1 > eMaxCount || ld(gCount, x) - 1 < eMinCount) return false;
  if (lessLoad(eHiN, eHiC, ld(gLoad, y) + 1, ld(gCap, y))) return false;
  return !lessLoad(ld(gLoad, x) - 1, ld(gCap, x), eLoN, eLoC);
}

/** Lexicographic comparison of two spread vectors (key 0 first). */
function compareSpread(a: usize, b: usize, K: i32): i32 {
  for (let k = 0; k < K; k++) {
    const d = ld(a, k) - ld(b, k);
    if (d != 0) return d;
  }
  return 0;
}

let iUsed: usize = 0;
let iWithout: usize = 0;
let iU: i32 = 0;

function markSpread(c: i32, K: i32, clientValues: usize): void {
  for (let k = 0; k < K; k++) {
    const v = ld(clientValues, c * K + k);
    if (v >= 0 && ld(iUsed, v) != iU) {
      st(iUsed, v, iU);
      st(iWithout, k, ld(iWithout, k) + 1);
    }
  }
}

function withValues(vec: usize, values: usize, base: i32, K: i32): void {
  for (let k = 0; k < K; k++) {
    const v = ld(values, base + k);
    st(vec, k, ld(iWithout, k) + (v >= 0 && ld(iUsed, v) != iU ? 1 : 0));
  }
}

/** improve() of the reference: raise each task's spread vector by single-standby replacements inside Kafka's range. */
function improve(C: i32, K: i32, G: i32, T: i32, W: i32, V: i32, clientValues: usize, groupValues: usize, active: usize, holderStart: usize, holders: usize, out: usize): void {
  if (K == 0 || W == 0) return;
  bHeld = scratch(C, 0);
  iUsed = scratch(V, 0);
  iWithout = scratch(K, 0);
  iU = 0;
  const cur = scratch(K, 0);
  const cand = scratch(K, 0);
  const bestVec = scratch(K, 0);
  for (let t = 0; t < T; t++) {
    bStamp = t + 1;
    const a = ld(active, t);
    if (a >= 0) st(bHeld, a, bStamp);
    const h0 = ld(holderStart, t), h1 = ld(holderStart, t + 1);
    for (let h = h0; h < h1; h++) st(bHeld, ld(holders, h), bStamp);
    for (let j = 0; j < W; j++) if (ld(out, t * W + j) >= 0) st(bHeld, ld(out, t * W + j), bStamp);
    let moved = true;
    while (moved) {
      moved = false;
      for (let j = 0; j < W; j++) {
        const x = ld(out, t * W + j);
        if (x < 0) continue;
        iU++;
        for (let k = 0; k < K; k++) st(iWithout, k, 0);
        if (a >= 0) markSpread(a, K, clientValues);
        for (let h = h0; h < h1; h++) markSpread(ld(holders, h), K, clientValues);
        for (let i = 0; i < W; i++) if (i != j && ld(out, t * W + i) >= 0) markSpread(ld(out, t * W + i), K, clientValues);
        withValues(cur, clientValues, x * K, K);
        for (let k = 0; k < K; k++) st(bestVec, k, ld(cur, k));
        let best = -1;
        for (let g = 0; g < G; g++) {
          withValues(cand, groupValues, g * K, K);
          const cmp = compareSpread(cand, bestVec, K);
          if (cmp < 0 || (cmp == 0 && best < 0)) continue;
          const y = bestFree(g);
          if (y < 0 || (cmp == 0 && !before(y, best))) continue;
          if (!insideEnvelope(x, y)) continue;
          best = y;
          for (let k = 0; k < K; k++) st(bestVec, k, ld(cand, k));
        }
        if (best < 0) continue;
        st(out, t * W + j, best);
        st(bHeld, x, 0);
        st(bHeld, best, bStamp);
        st(gLoad, x, ld(gLoad, x) - 1);
        st(gCount, x, ld(gCount, x) - 1);
        siftUp(ld(gGroupOf, x), ld(gPos, x));
        st(gLoad, best, ld(gLoad, best) + 1);
        st(gCount, best, ld(gCount, best) + 1);
        siftDown(ld(gGroupOf, best), ld(gPos, best));
        moved = true;
      }
    }
  }
}

/** Recomputes each standby's key mask after moves (keys on which it differs from every copy before it). */
function remask(K: i32, T: i32, W: i32, V: i32, clientValues: usize, active: usize, holderStart: usize, holders: usize, out: usize): void {
  const seen = scratch(V, 0);
  const TW = T * W;
  for (let t = 0; t < T; t++) {
    const stamp = t + 1;
    const a = ld(active, t);
    if (a >= 0) seeValues(a, K, clientValues, seen, stamp);
    const h1 = ld(holderStart, t + 1);
    for (let h = ld(holderStart, t); h < h1; h++) seeValues(ld(holders, h), K, clientValues, seen, stamp);
    for (let j = 0; j < W; j++) {
      const c = ld(out, t * W + j);
      if (c < 0) continue;
      let mask = 0;
      for (let k = 0; k < K; k++) {
        const v = ld(clientValues, c * K + k);
        if (v >= 0 && ld(seen, v) != stamp) mask |= 1 << k;
      }
      st(out, TW + t * W + j, mask);
      seeValues(c, K, clientValues, seen, stamp);
    }
  }
}

function seeValues(c: i32, K: i32, clientValues: usize, seen: usize, stamp: i32): void {
  for (let k = 0; k < K; k++) {
    const v = ld(clientValues, c * K + k);
    if (v >= 0) st(seen, v, stamp);
  }
}

/**
 * Balanced mode: Kafka's placement (standbyKafka with balanced's counts), then
 * improve() and rebalance() inside Kafka's range, then the masks again.
 * Same output layout as standbyKafka.
 */
export function standbyBalanced(
  C: i32, K: i32, G: i32, T: i32, W: i32, V: i32,
  clientValues: usize, distinct: usize, groupOf: usize, groupValues: usize,
  load: usize, cap: usize, active: usize, need: usize, holderStart: usize, holders: usize,
  flags: i32, fallbackOrder: usize, out: usize,
): void {
  // standbyKafka works on its own copy of the loads; keep the input's for the counts below.
  const kLoad = scratch(C, 0);
  for (let c = 0; c < C; c++) st(kLoad, c, ld(load, c));
  standbyKafka(C, K, G, T, W, V, clientValues, distinct, groupOf, groupValues, kLoad, cap, active, need, holderStart, holders, flags | NEED_EXACT, fallbackOrder, out);
  // kLoad now holds the loads after Kafka's placement.
  gCount = scratch(C, 0);
  const hEnd = ld(holderStart, T);
  for (let h = 0; h < hEnd; h++) st(gCount, ld(holders, h), ld(gCount, ld(holders, h)) + 1);
  const TW = T * W;
  for (let s = 0; s < TW; s++) {
    const c = ld(out, s);
    if (c >= 0) st(gCount, c, ld(gCount, c) + 1);
  }
  envelope(C, kLoad, cap, gCount);
  initHeaps(C, G, groupOf, kLoad, cap);
  bStack = scratch(C + 1, 0);
  improve(C, K, G, T, W, V, clientValues, groupValues, active, holderStart, holders, out);
  rebalance(C, G, T, W, groupOf, kLoad, cap, active, holderStart, holders, out);
  remask(K, T, W, V, clientValues, active, holderStart, holders, out);
}

// Linked lists of slots per client, for the rebalance pass.
let rHead: usize = 0;
let rNext: usize = 0;
let rPrev: usize = 0;

function link(c: i32, s: i32): void {
  st(rPrev, s, -1);
  const h = ld(rHead, c);
  st(rNext, s, h);
  if (h >= 0) st(rPrev, h, s);
  st(rHead, c, s);
}

function unlink(c: i32, s: i32): void {
  const p = ld(rPrev, s), n = ld(rNext, s);
  if (p >= 0) st(rNext, p, n);
  else st(rHead, c, n);
  if (n >= 0) st(rPrev, n, p);
}

function holds(c: i32, t: i32, W: i32, active: usize, holderStart: usize, holders: usize, out: usize): bool {
  if (ld(active, t) == c) return true;
  const e = ld(holderStart, t + 1);
  for (let h = ld(holderStart, t); h < e; h++) if (ld(holders, h) == c) return true;
  for (let j = 0; j < W; j++) if (ld(out, t * W + j) == c) return true;
  return false;
}

function moveSlot(s: i32, from: i32, to: i32, out: usize): void {
  unlink(from, s);
  link(to, s);
  st(out, s, to);
  st(gLoad, from, ld(gLoad, from) - 1);
  st(gLoad, to, ld(gLoad, to) + 1);
  st(gCount, from, ld(gCount, from) - 1);
  st(gCount, to, ld(gCount, to) + 1);
}

/** Moves one standby src -> dst that dst does not hold yet. */
function moveOne(src: i32, dst: i32, W: i32, active: usize, holderStart: usize, holders: usize, out: usize): bool {
  for (let s = ld(rHead, src); s >= 0; s = ld(rNext, s)) {
    if (holds(dst, s / W, W, active, holderStart, holders, out)) continue;
    moveSlot(s, src, dst, out);
    return true;
  }
  return false;
}

/** src -> mid and mid -> dst (mid's load unchanged), for when every task of src is already on dst. */
function chain(src: i32, dst: i32, members: usize, base: i32, n: i32, W: i32, active: usize, holderStart: usize, holders: usize, out: usize): bool {
  for (let i = 0; i < n; i++) {
    const mid = ld(members, base + i);
    if (mid == src || mid == dst) continue;
    for (let s2 = ld(rHead, mid); s2 >= 0; s2 = ld(rNext, s2)) {
      if (holds(dst, s2 / W, W, active, holderStart, holders, out)) continue;
      for (let s1 = ld(rHead, src); s1 >= 0; s1 = ld(rNext, s1)) {
        if (holds(mid, s1 / W, W, active, holderStart, holders, out)) continue;
        moveSlot(s2, mid, dst, out);
        moveSlot(s1, src, mid, out);
        return true;
      }
    }
  }
  return false;
}

/** Heavier first; equal loads by index. */
// @ts-ignore: decorator
@inline function heavier(a: i32, b: i32): bool {
  const na = ld(gLoad, a), ca = ld(gCap, a), nb = ld(gLoad, b), cb = ld(gCap, b);
  return lessLoad(nb, cb, na, ca) || (!lessLoad(na, ca, nb, cb) && a < b);
}

/** Shell sort by `heavier` (a strict total order, so the result is unique). */
function sortHeavier(order: usize, n: i32): void {
  let gap = 1;
  while (<f64>gap < <f64>n / 3) gap = 3 * gap + 1;
  for (; gap >= 1; gap = gap / 3) {
    for (let i = gap; i < n; i++) {
      const x = ld(order, i);
      let j = i;
      while (j >= gap && heavier(x, ld(order, j - gap))) {
        st(order, j, ld(order, j - gap));
        j -= gap;
      }
      st(order, j, x);
    }
  }
}

/**
 * Evens out load inside each tag group (identical tags, so no task's spread
 * changes): moves a standby from a heavier to a lighter member while
 * (n_src - 1)/cap_src >= (n_dst + 1)/cap_dst; each move lowers sum(n^2/cap).
 */
function rebalance(C: i32, G: i32, T: i32, W: i32, groupOf: usize, load: usize, cap: usize, active: usize, holderStart: usize, holders: usize, out: usize): void {
  const S = T * W;
  rHead = scratch(C, -1);
  rNext = scratch(S, 0);
  rPrev = scratch(S, 0);
  for (let s = S - 1; s >= 0; s--) {
    const c = ld(out, s);
    if (c >= 0) link(c, s);
  }
  const mStart = scratch(G + 1, 0);
  for (let c = 0; c < C; c++) st(mStart, ld(groupOf, c) + 1, ld(mStart, ld(groupOf, c) + 1) + 1);
  for (let g = 0; g < G; g++) st(mStart, g + 1, ld(mStart, g + 1) + ld(mStart, g));
  const members = scratch(C, 0);
  const fill = scratch(G, 0);
  for (let g = 0; g < G; g++) st(fill, g, ld(mStart, g));
  for (let c = 0; c < C; c++) {
    const g = ld(groupOf, c);
    const f = ld(fill, g);
    st(members, f, c);
    st(fill, g, f + 1);
  }
  const order = scratch(C, 0);
  for (let g = 0; g < G; g++) {
    const base = ld(mStart, g);
    const n = ld(mStart, g + 1) - base;
    if (n < 2) continue;
    for (;;) {
      for (let i = 0; i < n; i++) st(order, i, ld(members, base + i));
      sortHeavier(order, n);
      let moved = false;
      // Direct moves first; only when none exists, a two-step chain through a third member.
      for (let pass = 0; pass < 2 && !moved; pass++) {
        for (let a = 0; a < n && !moved; a++) {
          const src = ld(order, a);
          if (ld(rHead, src) < 0) continue;
          for (let b = n - 1; b > a && !moved; b--) {
            const dst = ld(order, b);
            if (lessLoad(ld(load, src) - 1, ld(cap, src), ld(load, dst) + 1, ld(cap, dst))) continue;
            // ... and the standby counts stay inside Kafka's range.
            if (ld(gCount, dst) + 1 > eMaxCount || ld(gCount, src) - 1 < eMinCount) continue;
            moved = pass == 0
              ? moveOne(src, dst, W, active, holderStart, holders, out)
              : chain(src, dst, members, base, n, W, active, holderStart, holders, out);
          }
        }
      }
      if (!moved) break;
    }
  }
}

// ---------------------------------------------------------------- kafka

// Holders of the visited task are marked in bHeld with bStamp (as bestFree reads them).
let kSeen: usize = 0;

function markHolder(c: i32, K: i32, clientValues: usize): void {
  st(bHeld, c, bStamp);
  for (let k = 0; k < K; k++) {
    const v = ld(clientValues, c * K + k);
    if (v >= 0) st(kSeen, v, bStamp);
  }
}

function visit(t: i32, K: i32, W: i32, clientValues: usize, active: usize, holderStart: usize, holders: usize, filled: usize, out: usize): void {
  bStamp++;
  const a = ld(active, t);
  if (a >= 0) markHolder(a, K, clientValues);
  const e = ld(holderStart, t + 1);
  for (let h = ld(holderStart, t); h < e; h++) markHolder(ld(holders, h), K, clientValues);
  const f = ld(filled, t);
  for (let j = 0; j < f; j++) markHolder(ld(out, t * W + j), K, clientValues);
}

function assignSlot(t: i32, c: i32, K: i32, T: i32, W: i32, clientValues: usize, load: usize, filled: usize, out: usize): void {
  let mask = 0;
  for (let k = 0; k < K; k++) {
    const v = ld(clientValues, c * K + k);
    if (v >= 0 && ld(kSeen, v) != bStamp) mask |= 1 << k;
  }
  const j = ld(filled, t);
  st(filled, t, j + 1);
  st(out, t * W + j, c);
  st(out, T * W + t * W + j, mask);
  st(load, c, ld(load, c) + 1);
  siftDown(ld(gGroupOf, c), ld(gPos, c)); // its key grew: move it down
  markHolder(c, K, clientValues);
}

/**
 * Least loaded client not holding the task; with `tags`, also outside Kafka's
 * usedEntries. The filter reads only a client's values, so it passes or fails
 * whole tag groups: the best of the passing groups' least loaded free members
 * is the client a scan of all clients finds.
 */
function poll(tags: bool, G: i32, K: i32, groupValues: usize, usedVal: usize, exhausted: usize): i32 {
  let best = -1;
  for (let g = 0; g < G; g++) {
    if (tags) {
      let ok = true;
      for (let k = 0; k < K; k++) {
        if (ld(exhausted, k) != 0) continue;
        const v = ld(groupValues, g * K + k);
        if (v >= 0 && ld(usedVal, v) == bStamp) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
    }
    const c = bestFree(g);
    if (c >= 0 && (best < 0 || before(c, best))) best = c;
  }
  return best;
}

/**
 * Kafka mode (ClientTagAwareStandbyTaskAssignor with flag 1, else
 * DefaultStandbyTaskAssignor); same output layout as standbyBalanced.
 */
export function standbyKafka(
  C: i32, K: i32, G: i32, T: i32, W: i32, V: i32,
  clientValues: usize, distinct: usize, groupOf: usize, groupValues: usize,
  load: usize, cap: usize, active: usize, need: usize, holderStart: usize, holders: usize,
  flags: i32, fallbackOrder: usize, out: usize,
): void {
  const TW = T * W;
  for (let s = 0; s < TW; s++) {
    st(out, s, -1);
    st(out, TW + s, 0);
  }
  const tagAware = (flags & STANDBY_KAFKA_TAG_AWARE) != 0;
  const remaining = scratch(T, 0);
  for (let t = 0; t < T; t++) st(remaining, t, ld(need, t));
  const filled = scratch(T, 0);
  initHeaps(C, G, groupOf, load, cap);
  bHeld = scratch(C, 0);
  bStack = scratch(C + 1, 0);
  bStamp = 0;
  kSeen = scratch(V, 0);
  const usedVal = scratch(V, 0);
  const exhausted = scratch(K, 0);

  if (tagAware) {
    for (let t = 0; t < T; t++) {
      const a = ld(active, t);
      if (a < 0) continue; // no active owner: left for the fallback
      if (ld(remaining, t) <= 0 && (flags & NEED_EXACT) != 0) continue;
      visit(t, K, W, clientValues, active, holderStart, holders, filled, out);
      for (let k = 0; k < K; k++) st(exhausted, k, 0);
      let usedCount = 1;
      let last = a;
      let rem = ld(remaining, t);
      do {
        for (let k = 0; k < K; k++) {
          const v = ld(clientValues, last * K + k);
          if (v < 0) continue;
          if (ld(distinct, k) <= usedCount) st(exhausted, k, 1);
          else st(usedVal, v, bStamp);
        }
        const c = poll(true, G, K, groupValues, usedVal, exhausted);
        if (c < 0) break;
        assignSlot(t, c, K, T, W, clientValues, load, filled, out);
        usedCount++;
        rem--;
        last = c;
      } while (rem > 0);
      st(remaining, t, rem);
    }
  }
  for (let i = 0; i < T; i++) {
    const t = tagAware ? ld(fallbackOrder, i) : i;
    if (ld(remaining, t) <= 0) continue;
    visit(t, K, W, clientValues, active, holderStart, holders, filled, out);
    while (ld(remaining, t) > 0) {
      const c = poll(false, G, K, groupValues, usedVal, exhausted);
      if (c < 0) break;
      assignSlot(t, c, K, T, W, clientValues, load, filled, out);
      st(remaining, t, ld(remaining, t) - 1);
    }
  }
}
