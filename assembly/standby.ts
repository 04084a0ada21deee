// Standby-selection kernels (issue 5): the AssemblyScript twin of
// src/engine/reference/standby.ts, line for line where possible.
// Pointer ABI: every array is i32 in linear memory; scratch space comes from
// the arena (reset per call) and is initialised here, since it is not zeroed.
// Clients are indices in ProcessId order, so "smallest index" is Kafka's tie-break.
export const STANDBY_KERNELS_VERSION: i32 = 1;
export const STANDBY_KAFKA_TAG_AWARE: i32 = 1;
/** Internal (balanced's first phase): a task with need 0 gets nothing, not the X04 do-while's one standby. */
const NEED_EXACT: i32 = 2;
/**
 * Balanced only: after the 2*T*W ints, `out` receives Kafka's placement (before it is improved)
 * as its differences: D, then D records (task, Kafka's W slots, Kafka's W masks); room for
 * 1 + T*(1 + 2W) ints. Same layout as withKafkaDiff() in the reference.
 */
const STANDBY_KEEP_KAFKA: i32 = 4;

// @ts-ignore: decorator
@inline function ld(p: usize, i: i32): i32 {
  return load<i32>(p + (<usize>i << 2));
}
// @ts-ignore: decorator
@inline function st(p: usize, i: i32, v: i32): void {
  store<i32>(p + (<usize>i << 2), v);
}

// The problem, from the header both exports take (STANDBY_HEADER of src/engine/abi.ts; byte
// offsets of i32 slots). Every step reads what it needs from these; balanced mode points hLoad
// at its own copy of the loads, which the Kafka phase raises.
let hC: i32 = 0; // clients
let hK: i32 = 0; // tag keys
let hG: i32 = 0; // tag groups
let hT: i32 = 0; // stateful tasks
let hW: i32 = 0; // output slots per task
let hV: i32 = 0; // global value ids
let hClientValues: usize = 0; // C*K value ids, -1: no value
let hDistinct: usize = 0; // K: distinct values per key
let hGroupOf: usize = 0; // C: tag group per client
let hGroupValues: usize = 0; // G*K value ids
let hLoad: usize = 0; // C: tasks held
let hCap: usize = 0; // C: stream threads
let hActive: usize = 0; // T: client of the active, -1: none
let hNeed: usize = 0; // T: standbys to place
let hHolderStart: usize = 0; // T + 1: existing holders of task t are hHolders[hHolderStart[t] .. hHolderStart[t+1])
let hHolders: usize = 0;
let hFlags: i32 = 0; // STANDBY_KAFKA_TAG_AWARE, NEED_EXACT, STANDBY_KEEP_KAFKA
let hFallbackOrder: usize = 0; // T: task indices in Kafka's fallback order
let hOut: usize = 0; // 2*T*W (+ Kafka's differences with STANDBY_KEEP_KAFKA)

function readProblem(h: usize): void {
  hC = ld(h, 0);
  hK = ld(h, 1);
  hG = ld(h, 2);
  hT = ld(h, 3);
  hW = ld(h, 4);
  hV = ld(h, 5);
  hClientValues = <usize>ld(h, 6);
  hDistinct = <usize>ld(h, 7);
  hGroupOf = <usize>ld(h, 8);
  hGroupValues = <usize>ld(h, 9);
  hLoad = <usize>ld(h, 10);
  hCap = <usize>ld(h, 11);
  hActive = <usize>ld(h, 12);
  hNeed = <usize>ld(h, 13);
  hHolderStart = <usize>ld(h, 14);
  hHolders = <usize>ld(h, 15);
  hFlags = ld(h, 16);
  hFallbackOrder = <usize>ld(h, 17);
  hOut = <usize>ld(h, 18);
}

/**
 * The clients of each tag group, ascending, written to `members` (C entries): group g's are
 * members[start[g] .. start[g + 1]), a counting sort by groupOf. Returns start (G + 1 entries).
 */
function groupMembers(C: i32, G: i32, groupOf: usize, members: usize): usize {
  const start = scratch(G + 1, 0);
  for (let c = 0; c < C; c++) st(start, ld(groupOf, c) + 1, ld(start, ld(groupOf, c) + 1) + 1);
  for (let g = 0; g < G; g++) st(start, g + 1, ld(start, g + 1) + ld(start, g));
  const fill = scratch(G, 0);
  for (let g = 0; g < G; g++) st(fill, g, ld(start, g));
  for (let c = 0; c < C; c++) {
    const g = ld(groupOf, c);
    const f = ld(fill, g);
    st(members, f, c);
    st(fill, g, f + 1);
  }
  return start;
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

// ---------------------------------------------------------------- group heaps (one call's state)
let gLoad: usize = 0;
let gCap: usize = 0;
let gGroupOf: usize = 0;
let gStart: usize = 0;
let gSize: usize = 0;
let gHeap: usize = 0;
let gPos: usize = 0;
let gCount: usize = 0; // standbys per client (existing and placed); balanced only
/** Heap order: 0 = by load n/c (Kafka's least loaded); 1 = by (n+1)/c, then fewer standbys (the repair's cheapest receiver). Both end on the index. */
let gMode: i32 = 0;
// With limits, bestFree passes over clients with count >= gMaxCount or (n+1)/c above gHiN/gHiC.
let gLimited: bool = false;
let gMaxCount: i32 = 0;
let gHiN: i32 = 0;
let gHiC: i32 = 1;
let gStack: usize = 0;

// Each heap member's key (load + mode) / capacity as an f64, kept beside the heaps so a
// comparison reads two doubles instead of four ints and two i64 products. Division
// rounds monotonically, so different doubles order the clients exactly as the
// rationals do; equal doubles are equal rationals when gKeysExact (capacities <= 2^12
// and loads < 2^24: distinct rationals then differ by >= 2^-24, far above one ulp),
// else they are compared exactly.
let gKey: usize = 0;
let gKeysExact: bool = false;
/** Most standbys one call can add to a client (set by the kernels before initHeaps), for gKeysExact. */
let gHeadroom: i32 = 0;
/** Largest capacity (set by initHeaps). */
let gMaxCap: i32 = 1;

// In mode 0 the key can carry the whole order. Take M, the least power of two >= (largest
// capacity)^2: distinct loads n/c differ by at least 1/M, so the ranks floor(n * M / c) of
// distinct loads differ, in the same order, and equal loads have equal ranks. When
// rank * 2^gShift + c (gShift: bits of the largest index) stays below 2^53, that is the key,
// an exact integer in the double: keys are unique and compare in before()'s order without a
// tie-break. The Kafka phase's group streams (below) are sorted by these ranks.
let gPacked: bool = false;
let gMBits: i64 = 0;
let gShift: i64 = 0;

/** floor(n * M / c), exact (gPacked only). */
// @ts-ignore: decorator
@inline function rankOf(n: i32, c: i32): i64 {
  return (<i64>n << gMBits) / <i64>c;
}

// @ts-ignore: decorator
@inline function keyOf(c: i32): f64 {
  if (gPacked) return <f64>((rankOf(ld(gLoad, c), ld(gCap, c)) << gShift) | <i64>c);
  return <f64>(ld(gLoad, c) + gMode) / <f64>ld(gCap, c);
}

// @ts-ignore: decorator
@inline function rekey(c: i32): void {
  store<f64>(gKey + (<usize>c << 3), keyOf(c));
}

// @ts-ignore: decorator
@inline function before(a: i32, b: i32): bool {
  const ka = load<f64>(gKey + (<usize>a << 3)), kb = load<f64>(gKey + (<usize>b << 3));
  if (ka != kb) return ka < kb;
  const m = gMode;
  if (!gKeysExact) {
    const na = ld(gLoad, a) + m, ca = ld(gCap, a), nb = ld(gLoad, b) + m, cb = ld(gCap, b);
    if (lessLoad(na, ca, nb, cb)) return true;
    if (lessLoad(nb, cb, na, ca)) return false;
  }
  if (m != 0) {
    const xa = ld(gCount, a), xb = ld(gCount, b);
    if (xa != xb) return xa < xb;
  }
  return a < b;
}

/** Moves the member at i (whose load just changed, or which was just added) up; its key is refreshed first. */
function siftUp(g: i32, i: i32): void {
  const base = ld(gStart, g);
  const c = ld(gHeap, base + i);
  rekey(c);
  climb(base, c, i, 0);
}

/** Puts c in the hole at j, after moving it up past the parents it comes before (no higher than top). */
// @ts-ignore: decorator
@inline function climb(base: i32, c: i32, j: i32, top: i32): void {
  while (j > top) {
    const parent = (j - 1) >> 1;
    const pc = ld(gHeap, base + parent);
    if (!before(c, pc)) break;
    st(gHeap, base + j, pc);
    st(gPos, pc, j);
    j = parent;
  }
  st(gHeap, base + j, c);
  st(gPos, c, j);
}

/** Moves the member at i (whose load just changed) down; its key is refreshed first. */
function siftDown(g: i32, i: i32): void {
  const base = ld(gStart, g);
  const n = ld(gSize, g);
  const c = ld(gHeap, base + i);
  rekey(c);
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

/**
 * siftDown for a member whose key grew past most of its heap (Kafka's picks take
 * the least loaded client, which then usually sinks to the bottom): the hole goes
 * down to a leaf along the smaller children (one comparison per level), then the
 * member climbs back from there (usually not at all). Same heap property, so the
 * same picks; about half siftDown's comparisons for a deep sink.
 */
function sinkDeep(g: i32, i: i32): void {
  const base = ld(gStart, g);
  const n = ld(gSize, g);
  const c = ld(gHeap, base + i);
  rekey(c);
  let j = i;
  for (;;) {
    let child = 2 * j + 1;
    if (child >= n) break;
    if (child + 1 < n && before(ld(gHeap, base + child + 1), ld(gHeap, base + child))) child++;
    const cc = ld(gHeap, base + child);
    st(gHeap, base + j, cc);
    st(gPos, cc, j);
    j = child;
  }
  climb(base, c, j, i);
}

/** c's key grew: move it down its heap. */
// @ts-ignore: decorator
@inline function grew(c: i32): void {
  siftDown(ld(gGroupOf, c), ld(gPos, c));
}

/** c's key fell: move it up its heap. */
// @ts-ignore: decorator
@inline function shrank(c: i32): void {
  siftUp(ld(gGroupOf, c), ld(gPos, c));
}

function push(c: i32): void {
  const g = ld(gGroupOf, c);
  const n = ld(gSize, g);
  st(gHeap, ld(gStart, g) + n, c);
  st(gSize, g, n + 1);
  siftUp(g, n);
}

/** One binary min-heap per tag group in the given order, stored in one array; no limits. */
function initHeaps(count: usize, mode: i32): void {
  const C = hC, G = hG, groupOf = hGroupOf, load = hLoad, cap = hCap;
  gLoad = load;
  gCap = cap;
  gGroupOf = groupOf;
  gCount = count;
  gMode = mode;
  gLimited = false;
  gStart = scratch(G + 1, 0);
  for (let c = 0; c < C; c++) st(gStart, ld(groupOf, c) + 1, ld(gStart, ld(groupOf, c) + 1) + 1);
  for (let g = 0; g < G; g++) st(gStart, g + 1, ld(gStart, g + 1) + ld(gStart, g));
  gSize = scratch(G, 0);
  gHeap = scratch(C, 0);
  gPos = scratch(C, 0);
  gStack = scratch(C + 1, 0);
  const keys: i32 = C > 0 ? C : 1;
  gKey = heap.alloc(<usize>keys << 3);
  let maxCap = 0, maxLoad = 0;
  for (let c = 0; c < C; c++) {
    if (ld(cap, c) > maxCap) maxCap = ld(cap, c);
    if (ld(load, c) > maxLoad) maxLoad = ld(load, c);
  }
  gKeysExact = maxCap <= 1 << 12 && <i64>maxLoad + <i64>gHeadroom + 2 < (<i64>1 << 24);
  let shift = 0;
  while (shift < 31 && (1 << shift) < C) shift++;
  let mBits = 0;
  while (mBits < 62 && (<i64>1 << mBits) < <i64>maxCap * <i64>maxCap) mBits++;
  gShift = shift;
  gMBits = mBits;
  // The largest key, (maxLoad + headroom) * M shifted, below 2^53 (checked in doubles, no i64 overflow).
  gPacked = mode == 0 && (<f64>maxLoad + <f64>gHeadroom + 2) * <f64>(<i64>1 << gMBits) * <f64>(<i64>1 << gShift) < 9007199254740992.0;
  gMaxCap = maxCap;
  for (let c = 0; c < C; c++) push(c);
}

function limitHeaps(maxCount: i32, hiN: i32, hiC: i32): void {
  gLimited = true;
  gMaxCount = maxCount;
  gHiN = hiN;
  gHiC = hiC;
}

/**
 * Best member of group g with held[c] != stamp (and inside the limits, if
 * set): the heap top, unless it is passed over; then search below the passed
 * over members only (a task has few copies).
 */
function bestFree(g: i32, held: usize, stamp: i32): i32 {
  const base = ld(gStart, g);
  const n = ld(gSize, g);
  let best = -1;
  let sp = 0;
  if (n > 0) st(gStack, sp++, 0);
  while (sp > 0) {
    const i = ld(gStack, --sp);
    const c = ld(gHeap, base + i);
    if (ld(held, c) != stamp && (!gLimited || (ld(gCount, c) < gMaxCount && !lessLoad(gHiN, gHiC, ld(gLoad, c) + 1, ld(gCap, c))))) {
      if (best < 0 || before(c, best)) best = c;
      continue;
    }
    const l = 2 * i + 1;
    if (l < n) st(gStack, sp++, l);
    if (l + 1 < n) st(gStack, sp++, l + 1);
  }
  return best;
}

// ---------------------------------------------------------------- balanced

// Kafka's range (see envelope() in the reference): least/most load as count/capacity, fewest/most standbys.
let eLoN: i32 = 0;
let eLoC: i32 = 1;
let eHiN: i32 = 0;
let eHiC: i32 = 1;
let eMinCount: i32 = 0;
let eMaxCount: i32 = 0;

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

/** Client x may give up one standby without leaving Kafka's range (fewest standbys, least load). */
// @ts-ignore: decorator
@inline function mayGive(x: i32): bool {
  return ld(gCount, x) - 1 >= eMinCount && !lessLoad(ld(gLoad, x) - 1, ld(gCap, x), eLoN, eLoC);
}

/** Lexicographic comparison of two spread vectors (key 0 first). */
function compareSpread(a: usize, b: usize, K: i32): i32 {
  for (let k = 0; k < K; k++) {
    const d = ld(a, k) - ld(b, k);
    if (d != 0) return d;
  }
  return 0;
}

/** Most nodes (candidate groups tried) of one set search (SET_SEARCH_BUDGET in the reference). */
const SET_SEARCH_BUDGET: i32 = 4096;

// setSearch() of the reference: its scratch and the problem's arrays.
let sK: i32 = 0;
let sT: i32 = 0;
let sG: i32 = 0;
let sW: i32 = 0;
let sCv: usize = 0;
let sDistinct: usize = 0;
let sActive: usize = 0;
let sHolderStart: usize = 0;
let sHolders: usize = 0;
let sOut: usize = 0;
let sHeld: usize = 0;
let sSeen: usize = 0;
let sSeenAt: usize = 0;
let sVec: usize = 0;
let sUb: usize = 0;
let sBestVec: usize = 0;
let sCurVec: usize = 0;
let sOldSet: usize = 0;
let sKeep: usize = 0;
let sPick: usize = 0;
let sPickGroup: usize = 0;
let sBest: usize = 0;
let sSortB: usize = 0;
let sStamp: i32 = 0;
let sFound: bool = false;
let sBestHeavy: i32 = -1;

function initSetSearch(): void {
  const C = hC, K = hK, W = hW, V = hV;
  sK = K;
  sG = hG;
  sW = W;
  sCv = hClientValues;
  sDistinct = hDistinct;
  sActive = hActive;
  sHolderStart = hHolderStart;
  sHolders = hHolders;
  sOut = hOut;
  sHeld = scratch(C, 0);
  sSeen = scratch(V, 0);
  sSeenAt = scratch(V, 0);
  sVec = scratch(K, 0);
  sUb = scratch(K, 0);
  sBestVec = scratch(K, 0);
  sCurVec = scratch(K, 0);
  sOldSet = scratch(W, 0);
  sKeep = scratch(W, 0);
  sPick = scratch(W, 0);
  sPickGroup = scratch(W, 0);
  sBest = scratch(W, 0);
  sSortB = scratch(W, 0);
  sStamp = 0;
}

function sAdd(c: i32): void {
  const K = sK;
  for (let k = 0; k < K; k++) {
    const v = ld(sCv, c * K + k);
    if (v < 0) continue;
    if (ld(sSeenAt, v) != sStamp) {
      st(sSeenAt, v, sStamp);
      st(sSeen, v, 0);
    }
    const n = ld(sSeen, v);
    st(sSeen, v, n + 1);
    if (n == 0) st(sVec, k, ld(sVec, k) + 1);
  }
}

function sRemove(c: i32): void {
  const K = sK;
  for (let k = 0; k < K; k++) {
    const v = ld(sCv, c * K + k);
    if (v < 0) continue;
    const n = ld(sSeen, v) - 1;
    st(sSeen, v, n);
    if (n == 0) st(sVec, k, ld(sVec, k) - 1);
  }
}

/** The spread the remaining `r` picks could reach at most, against the best: can the search still win? */
function promising(r: i32, found: bool): bool {
  for (let k = 0; k < sK; k++) {
    const u = ld(sUb, k);
    const v = ld(sVec, k) + r;
    const b = v < u ? v : u;
    const bv = ld(sBestVec, k);
    if (b != bv) return b > bv;
  }
  return found;
}

/** Heavier after taking one more standby (exact). */
// @ts-ignore: decorator
@inline function heavierAfter(a: i32, b: i32): bool {
  return lessLoad(ld(gLoad, b) + 1, ld(gCap, b), ld(gLoad, a) + 1, ld(gCap, a));
}

function sortHeavy(xs: usize, n: i32): void {
  for (let i = 1; i < n; i++) {
    const c = ld(xs, i);
    let j = i;
    while (j > 0 && heavierAfter(c, ld(xs, j - 1))) {
      st(xs, j, ld(xs, j - 1));
      j--;
    }
    st(xs, j, c);
  }
}

function leaf(r: i32): void {
  const cmp = compareSpread(sVec, sBestVec, sK);
  if (cmp < 0) return;
  for (let i = 0; i < r; i++) st(sSortB, i, ld(sPick, i));
  sortHeavy(sSortB, r);
  const h = ld(sSortB, 0);
  if (cmp == 0 && !(sFound && heavierAfter(sBestHeavy, h))) return;
  sFound = true;
  for (let k = 0; k < sK; k++) st(sBestVec, k, ld(sVec, k));
  sBestHeavy = h;
  for (let i = 0; i < r; i++) st(sBest, i, ld(sPick, i));
}

// Tasks whose slots chooseSets or repair changed (remask recomputes only their masks: the
// others keep the masks Kafka's phase wrote, which remask would compute again).
let bDirty: usize = 0;

/**
 * searchSet's first test, from the masks Kafka's phase wrote (task t untouched so far, no
 * existing standbys): its n standbys already reach the most spread any set could. A mask bit
 * is a value no copy before it has, so the spread on key k is the active's value (if any)
 * plus the slots with bit k; the bound is the same as searchSet's.
 */
function fullSpread(t: i32, n: i32): bool {
  const K = sK, W = sW, TW = sT * W;
  const a = ld(sActive, t);
  for (let k = 0; k < K; k++) {
    const base = a >= 0 && ld(sCv, a * K + k) >= 0 ? 1 : 0;
    let cur = base;
    for (let j = 0; j < n; j++) cur += (ld(sOut, TW + t * W + j) >> k) & 1;
    const d = ld(sDistinct, k), u = base + n;
    if (cur != (d < u ? d : u)) return false;
  }
  return true;
}

/** setSearch().search(t) of the reference: task t's standbys re-chosen as the set with the best spread, if strictly better. */
function searchSet(t: i32): bool {
  const W = sW;
  let n = 0;
  while (n < W && ld(sOut, t * W + n) >= 0) n++;
  if (n == 0) return false;
  if (ld(sHolderStart, t) == ld(sHolderStart, t + 1) && fullSpread(t, n)) return false;
  if (atBound(t, n)) return false;
  const r = releaseMembers(t, n);
  for (let k = 0; k < sK; k++) st(sBestVec, k, ld(sCurVec, k));
  sFound = false;
  sBestHeavy = -1;
  if (r > 0) {
    greedyGuess(r);
    searchGroups(r);
  }
  applySet(t, n);
  return sFound;
}

// searchSet's steps, each used once: inlined, so the kernel is the one it was as a single function.

/** Counts task t's copies (a new stamp) into sCurVec; true when its n standbys already reach the most spread any set could. */
@inline function atBound(t: i32, n: i32): bool {
  const K = sK, W = sW;
  sStamp++;
  const stamp = sStamp;
  for (let k = 0; k < K; k++) st(sVec, k, 0);
  const a = ld(sActive, t);
  if (a >= 0) {
    sAdd(a);
    st(sHeld, a, stamp);
  }
  const h1 = ld(sHolderStart, t + 1);
  for (let h = ld(sHolderStart, t); h < h1; h++) {
    sAdd(ld(sHolders, h));
    st(sHeld, ld(sHolders, h), stamp);
  }
  for (let k = 0; k < K; k++) {
    const d = ld(sDistinct, k), v = ld(sVec, k) + n;
    st(sUb, k, d < v ? d : v);
  }
  for (let j = 0; j < n; j++) sAdd(ld(sOut, t * W + j));
  for (let k = 0; k < K; k++) st(sCurVec, k, ld(sVec, k));
  return compareSpread(sCurVec, sUb, K) == 0;
}

/** Releases the members that may leave (their load and count drop); the others stay (sKeep). Returns how many left. */
@inline function releaseMembers(t: i32, n: i32): i32 {
  const W = sW, stamp = sStamp;
  let r = 0;
  for (let j = 0; j < n; j++) {
    const c = ld(sOut, t * W + j);
    st(sOldSet, j, c);
    sRemove(c);
    if (mayGive(c)) {
      st(sKeep, j, 0);
      st(gLoad, c, ld(gLoad, c) - 1);
      st(gCount, c, ld(gCount, c) - 1);
      shrank(c);
      r++;
    } else {
      st(sKeep, j, 1);
      sAdd(c);
      st(sHeld, c, stamp);
    }
  }
  return r;
}

/** A greedy first guess: each pick the group adding the most (ties: the heaps' order); then the picks are undone. */
@inline function greedyGuess(r: i32): void {
  const K = sK, G = sG, stamp = sStamp;
  let d = 0;
  for (; d < r; d++) {
    let bc = -1;
    let bAdd = -1;
    for (let g = 0; g < G; g++) {
      const y = bestFree(g, sHeld, stamp);
      if (y < 0) continue;
      let gain = 0;
      for (let k = 0; k < K; k++) {
        const v = ld(sCv, y * K + k);
        gain = gain * 2 + (v >= 0 && (ld(sSeenAt, v) != stamp || ld(sSeen, v) == 0) ? 1 : 0);
      }
      if (gain > bAdd || (gain == bAdd && before(y, bc))) {
        bAdd = gain;
        bc = y;
      }
    }
    if (bc < 0) break;
    st(sPick, d, bc);
    sAdd(bc);
    st(sHeld, bc, stamp);
  }
  if (d == r) leaf(r);
  for (let i = d - 1; i >= 0; i--) {
    sRemove(ld(sPick, i));
    st(sHeld, ld(sPick, i), 0);
  }
}

/** Depth-first over multisets of groups (nondecreasing group index), at most SET_SEARCH_BUDGET nodes. */
@inline function searchGroups(r: i32): void {
  const G = sG, stamp = sStamp;
  let nodes = 0;
  let d = 0;
  st(sPickGroup, 0, -1);
  st(sPick, 0, -1);
  while (d >= 0) {
    const pd = ld(sPick, d);
    if (pd >= 0) {
      sRemove(pd);
      st(sHeld, pd, 0);
      st(sPick, d, -1);
    }
    const pg = ld(sPickGroup, d);
    let g = pg >= 0 ? pg + 1 : d > 0 ? ld(sPickGroup, d - 1) : 0;
    let advanced = false;
    for (; g < G && nodes < SET_SEARCH_BUDGET; g++) {
      nodes++;
      const y = bestFree(g, sHeld, stamp);
      if (y < 0) continue;
      sAdd(y);
      if (!promising(r - d - 1, sFound)) {
        sRemove(y);
        continue;
      }
      st(sPick, d, y);
      st(sPickGroup, d, g);
      st(sHeld, y, stamp);
      advanced = true;
      break;
    }
    if (!advanced) {
      st(sPickGroup, d, -1);
      d--;
      continue;
    }
    if (d + 1 == r) leaf(r);
    else {
      d++;
      st(sPickGroup, d, -1);
      st(sPick, d, -1);
    }
  }
}

/** Apply: the members that stayed, then the best set; or the released members back where they were. */
@inline function applySet(t: i32, n: i32): void {
  const W = sW;
  const found = sFound;
  if (found) st(bDirty, t, 1);
  let j = 0;
  if (found) for (let i = 0; i < n; i++) if (ld(sKeep, i) != 0) st(sOut, t * W + j++, ld(sOldSet, i));
  let b = 0;
  for (let i = 0; i < n; i++) {
    if (ld(sKeep, i) != 0) continue;
    const c = found ? ld(sBest, b++) : ld(sOldSet, i);
    st(sOut, t * W + (found ? j++ : i), c);
    st(gLoad, c, ld(gLoad, c) + 1);
    st(gCount, c, ld(gCount, c) + 1);
    grew(c);
  }
}

/** chooseSets() of the reference: per task in TaskId order, the set of standbys with the best spread, if better than Kafka's. */
function chooseSets(): void {
  initHeaps(gCount, 0);
  limitHeaps(eMaxCount, eHiN, eHiC);
  initSetSearch();
  sT = hT;
  for (let t = 0; t < hT; t++) searchSet(t);
}

// ---------------------------------------------------------------- repair (step 2)

let rHead: usize = 0;
let rNext: usize = 0;
let rPrev: usize = 0;
let rPlaced: usize = 0;
let rMStart: usize = 0;
let rMembers: usize = 0;
let rHeld: usize = 0;
let rSeen: usize = 0;
let rSeenAt: usize = 0;
let rOkAt: usize = 0;
let rCur: usize = 0;
let rRigid: usize = 0;
let rRigidCount: usize = 0;
let rStamp: i32 = 0;
let rK: i32 = 0;
let rG: i32 = 0;
let rW: i32 = 0;
let rCv: usize = 0;
let rGv: usize = 0;
let rDistinct: usize = 0;
let rActive: usize = 0;
let rHolderStart: usize = 0;
let rHolders: usize = 0;
let rOut: usize = 0;

function link(c: i32, s: i32): void {
  st(rPrev, s, -1);
  const h = ld(rHead, c);
  st(rNext, s, h);
  if (h >= 0) st(rPrev, h, s);
  st(rHead, c, s);
  st(rPlaced, c, ld(rPlaced, c) + 1);
}

function unlink(c: i32, s: i32): void {
  const p = ld(rPrev, s), n = ld(rNext, s);
  if (p >= 0) st(rNext, p, n);
  else st(rHead, c, n);
  if (n >= 0) st(rPrev, n, p);
  st(rPlaced, c, ld(rPlaced, c) - 1);
}

/** y taking one standby from x lowers the potential. */
// @ts-ignore: decorator
@inline function improves(y: i32, x: i32): bool {
  const ny = ld(gLoad, y) + 1, cy = ld(gCap, y), nx = ld(gLoad, x), cx = ld(gCap, x);
  return lessLoad(ny, cy, nx, cx) || (!lessLoad(nx, cx, ny, cy) && ld(gCount, y) + 1 < ld(gCount, x));
}

function holds(c: i32, t: i32): bool {
  if (ld(rActive, t) == c) return true;
  const e = ld(rHolderStart, t + 1);
  for (let h = ld(rHolderStart, t); h < e; h++) if (ld(rHolders, h) == c) return true;
  const W = rW;
  for (let j = 0; j < W; j++) if (ld(rOut, t * W + j) == c) return true;
  return false;
}

function rSee(c: i32): void {
  st(rHeld, c, rStamp);
  const K = rK;
  for (let k = 0; k < K; k++) {
    const v = ld(rCv, c * K + k);
    if (v < 0) continue;
    if (ld(rSeenAt, v) != rStamp) {
      st(rSeenAt, v, rStamp);
      st(rSeen, v, 0);
    }
    const n = ld(rSeen, v);
    st(rSeen, v, n + 1);
    if (n == 0) st(rCur, k, ld(rCur, k) + 1);
  }
}

/** Marks task t's holders with a new stamp and counts its copies per value. */
function visitTask(t: i32): void {
  rStamp++;
  for (let k = 0; k < rK; k++) st(rCur, k, 0);
  const a = ld(rActive, t);
  if (a >= 0) rSee(a);
  const e = ld(rHolderStart, t + 1);
  for (let h = ld(rHolderStart, t); h < e; h++) rSee(ld(rHolders, h));
  const W = rW;
  for (let j = 0; j < W; j++) {
    const c = ld(rOut, t * W + j);
    if (c >= 0) rSee(c);
  }
}

/** Sets (after visitTask(t)) or clears the rigid flags of task t's slots, keeping the per-client counts. */
function setRigid(t: i32, on: bool): void {
  const K = rK, W = rW;
  for (let j = 0; j < W; j++) {
    const s = t * W + j;
    const c = ld(rOut, s);
    if (c < 0) continue;
    if (!on) {
      st(rRigidCount, c, ld(rRigidCount, c) - ld(rRigid, s));
      st(rRigid, s, 0);
      continue;
    }
    let r = K > 0 ? 1 : 0;
    for (let k = 0; k < K && r != 0; k++) {
      const v = ld(rCv, c * K + k);
      if (v < 0 || ld(rSeen, v) != 1 || ld(rCur, k) != ld(rDistinct, k)) r = 0;
    }
    st(rRigid, s, r);
    st(rRigidCount, c, ld(rRigidCount, c) + r);
  }
}

function moveSlot(s: i32, x: i32, y: i32): void {
  const t = s / rW;
  st(bDirty, t, 1);
  setRigid(t, false);
  unlink(x, s);
  link(y, s);
  st(rOut, s, y);
  st(gLoad, x, ld(gLoad, x) - 1);
  st(gCount, x, ld(gCount, x) - 1);
  shrank(x);
  st(gLoad, y, ld(gLoad, y) + 1);
  st(gCount, y, ld(gCount, y) + 1);
  grew(y);
  visitTask(t);
  setRigid(t, true);
}

/** Task t's spread with x replaced by a member of group g is at least its present spread (after visitTask(t)). */
function keepsSpread(x: i32, g: i32): bool {
  const K = rK;
  for (let k = 0; k < K; k++) {
    const xv = ld(rCv, x * K + k);
    const w = ld(rGv, g * K + k);
    const lost = xv >= 0 && ld(rSeen, xv) == 1 ? 1 : 0;
    const left = w < 0 ? 1 : w == xv ? ld(rSeen, w) - 1 : ld(rSeenAt, w) == rStamp ? ld(rSeen, w) : 0;
    const gained = w >= 0 && left == 0 ? 1 : 0;
    if (gained != lost) return gained > lost;
  }
  return true;
}

/** One move away from x, if any lowers the potential. */
function shed(x: i32): bool {
  if (ld(rHead, x) < 0 || !mayGive(x)) return false;
  rStamp++;
  st(rHeld, x, rStamp);
  const xs = rStamp;
  const G = rG, W = rW;
  const own = ld(gGroupOf, x);
  const yo = bestFree(own, rHeld, xs);
  const okOwn = yo >= 0 && improves(yo, x);
  if (okOwn) st(rOkAt, own, xs);
  let others = false;
  if (ld(rRigidCount, x) < ld(rPlaced, x)) {
    for (let g = 0; g < G; g++) {
      if (g == own) continue;
      const y = bestFree(g, rHeld, xs);
      if (y >= 0 && improves(y, x)) {
        st(rOkAt, g, xs);
        others = true;
      }
    }
  }
  if (!okOwn && !others) return false;
  for (let s = ld(rHead, x); s >= 0; s = ld(rNext, s)) {
    const rg = ld(rRigid, s) != 0;
    if (rg && !okOwn) continue;
    const t = s / W;
    visitTask(t);
    let best = -1;
    const g0 = rg ? own : 0, g1 = rg ? own + 1 : G;
    for (let g = g0; g < g1; g++) {
      if (ld(rOkAt, g) != xs || (g != own && !keepsSpread(x, g))) continue;
      const y = bestFree(g, rHeld, rStamp);
      if (y < 0 || !improves(y, x)) continue;
      if (best < 0 || before(y, best)) best = y;
    }
    if (best >= 0) {
      moveSlot(s, x, best);
      return true;
    }
  }
  return okOwn && twoStep(x);
}

/** x -> z -> y inside x's group, y its cheapest receiver: for when y already holds every task x could give it. */
function twoStep(x: i32): bool {
  const g = ld(gGroupOf, x);
  const W = rW;
  rStamp++;
  st(rHeld, x, rStamp);
  const y = bestFree(g, rHeld, rStamp);
  if (y < 0 || !improves(y, x)) return false;
  const e = ld(rMStart, g + 1);
  for (let i = ld(rMStart, g); i < e; i++) {
    const z = ld(rMembers, i);
    if (z == x || z == y) continue;
    for (let s2 = ld(rHead, z); s2 >= 0; s2 = ld(rNext, s2)) {
      if (holds(y, s2 / W)) continue;
      for (let s1 = ld(rHead, x); s1 >= 0; s1 = ld(rNext, s1)) {
        if (holds(z, s1 / W)) continue;
        moveSlot(s2, z, y);
        moveSlot(s1, x, z);
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

/** Safety bound on the repair's moves per slot (REPAIR_MOVES_PER_SLOT in the reference). */
const REPAIR_MOVES_PER_SLOT: i32 = 64;

/** repair() of the reference. */
function repair(): void {
  const C = hC, K = hK, G = hG, T = hT, W = hW, V = hV, out = hOut;
  const S = T * W;
  initHeaps(gCount, 1);
  limitHeaps(eMaxCount, eHiN, eHiC);
  rK = K;
  rG = G;
  rW = W;
  rCv = hClientValues;
  rGv = hGroupValues;
  rDistinct = hDistinct;
  rActive = hActive;
  rHolderStart = hHolderStart;
  rHolders = hHolders;
  rOut = out;
  rHead = scratch(C, -1);
  rNext = scratch(S, 0);
  rPrev = scratch(S, 0);
  rPlaced = scratch(C, 0);
  for (let s = S - 1; s >= 0; s--) {
    const c = ld(out, s);
    if (c >= 0) link(c, s);
  }
  rMembers = scratch(C, 0);
  rMStart = groupMembers(C, G, hGroupOf, rMembers);
  rHeld = scratch(C, 0);
  rSeen = scratch(V, 0);
  rSeenAt = scratch(V, 0);
  rOkAt = scratch(G, 0);
  rCur = scratch(K, 0);
  rRigid = scratch(S, 0);
  rRigidCount = scratch(C, 0);
  rStamp = 0;
  for (let t = 0; t < T; t++) {
    visitTask(t);
    setRigid(t, true);
  }
  const order = scratch(C, 0);
  const maxMoves = <i64>REPAIR_MOVES_PER_SLOT * <i64>S;
  let moves: i64 = 0;
  for (;;) {
    let n = 0;
    for (let c = 0; c < C; c++) if (ld(rHead, c) >= 0) st(order, n++, c);
    sortHeavier(order, n);
    let moved = false;
    for (let i = 0; i < n; i++) {
      const x = ld(order, i);
      while (moves < maxMoves && shed(x)) {
        moves++;
        moved = true;
      }
    }
    if (!moved || moves >= maxMoves) break;
  }
}

/** Recomputes each standby's key mask after moves (keys on which it differs from every copy before it). */
function remask(): void {
  const K = hK, T = hT, W = hW, clientValues = hClientValues, active = hActive, holderStart = hHolderStart, holders = hHolders, out = hOut;
  const seen = scratch(hV, 0);
  const TW = T * W;
  for (let t = 0; t < T; t++) {
    if (ld(bDirty, t) == 0) continue;
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
 * chooseSets() and repair() inside Kafka's range, then the masks again.
 * Same output layout as standbyKafka.
 */
export function standbyBalanced(header: usize): void {
  readProblem(header);
  const C = hC, K = hK, T = hT, W = hW, flags = hFlags, out = hOut, holderStart = hHolderStart, holders = hHolders;
  gHeadroom = T * W + 1;
  // The Kafka phase works on its own copy of the loads; keep the input's for the counts below.
  const kLoad = scratch(C, 0);
  for (let c = 0; c < C; c++) st(kLoad, c, ld(hLoad, c));
  hLoad = kLoad;
  hFlags = (flags & ~STANDBY_KEEP_KAFKA) | NEED_EXACT;
  placeKafka();
  // The caller's comparison with Kafka reuses this phase instead of placing again.
  const keep = (flags & STANDBY_KEEP_KAFKA) != 0;
  let kept: usize = 0;
  if (keep) {
    kept = heap.alloc(<usize>(2 * T * W) << 2);
    memory.copy(kept, out, <usize>(2 * T * W) << 2);
  }
  // kLoad now holds the loads after Kafka's placement.
  const count = scratch(C, 0);
  const hEnd = ld(holderStart, T);
  for (let h = 0; h < hEnd; h++) st(count, ld(holders, h), ld(count, ld(holders, h)) + 1);
  const TW = T * W;
  for (let s = 0; s < TW; s++) {
    const c = ld(out, s);
    if (c >= 0) st(count, c, ld(count, c) + 1);
  }
  gCount = count;
  bDirty = scratch(T, 0);
  envelope(C, kLoad, hCap, count);
  if (K > 0 && W > 0) chooseSets();
  if (W > 0) repair();
  remask();
  if (keep) writeKafkaDiff(T, W, kept, out);
}

/** Kafka's placement (`kept`, slots then masks) after the result, as the tasks where it differs. */
function writeKafkaDiff(T: i32, W: i32, kept: usize, out: usize): void {
  const TW = T * W;
  let at = 2 * TW + 1;
  let d = 0;
  for (let t = 0; t < T; t++) {
    let differs = false;
    for (let j = 0; j < W; j++) {
      const s = t * W + j;
      if (ld(out, s) != ld(kept, s) || ld(out, TW + s) != ld(kept, TW + s)) differs = true;
    }
    if (!differs) continue;
    d++;
    st(out, at++, t);
    for (let j = 0; j < W; j++) st(out, at++, ld(kept, t * W + j));
    for (let j = 0; j < W; j++) st(out, at++, ld(kept, TW + t * W + j));
  }
  st(out, 2 * TW, d);
}

// ---------------------------------------------------------------- kafka

// Holders of the visited task are marked in bHeld with bStamp (bestFree(g, bHeld, bStamp)).
let bHeld: usize = 0;
let bStamp: i32 = 0;
let kSeen: usize = 0;

function markHolder(c: i32, K: i32, clientValues: usize): void {
  st(bHeld, c, bStamp);
  for (let k = 0; k < K; k++) {
    const v = ld(clientValues, c * K + k);
    if (v >= 0) st(kSeen, v, bStamp);
  }
}

/** Marks task t's holders (active, existing standbys, slots filled so far) and their values. */
function visit(t: i32): void {
  const K = hK, W = hW, clientValues = hClientValues, active = hActive, holderStart = hHolderStart, holders = hHolders, filled = kFilled, out = hOut;
  bStamp++;
  const a = ld(active, t);
  if (a >= 0) markHolder(a, K, clientValues);
  const e = ld(holderStart, t + 1);
  for (let h = ld(holderStart, t); h < e; h++) markHolder(ld(holders, h), K, clientValues);
  const f = ld(filled, t);
  for (let j = 0; j < f; j++) markHolder(ld(out, t * W + j), K, clientValues);
}

/** Gives task t's next slot to client c, with its mask (the keys on which it differs from every holder so far). */
function assignSlot(t: i32, c: i32): void {
  const K = hK, T = hT, W = hW, clientValues = hClientValues, load = hLoad, filled = kFilled, out = hOut;
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
  if (qOn) streamTake(c);
  else sinkDeep(ld(gGroupOf, c), ld(gPos, c)); // its key grew: move it down
  markHolder(c, K, clientValues);
}

// ---------------------------------------------------------------- group streams (Kafka phase)
//
// Without limits, Kafka's picks from a group are its members in (load n/c, index) order, each
// pick raising the member's load by one: the member comes back at (n+1)/c. So instead of a
// heap per group (a sift per pick, the phase's main cost), each group hands out a batch: every
// member's coming loads n, n+1, ... whose rank (rankOf) is below a bound R, sorted by (rank,
// index) with one stable counting sort over the ranks. A pick takes the first entry whose
// member does not hold the task (the least free member: members with no entry rank >= R, and
// a member's first entry left is its current load); a member picked out of order is marked
// taken. When the batch runs out it is rebuilt from the current loads with a new bound; when
// only members holding the task are left in it, the group's members are scanned instead.
// Same picks as the heaps (the reference keeps heaps); used when keys are packed and
// capacities small enough for the ranks' span.

let qOn: bool = false;
let qMStart: usize = 0; // per group: its members, ascending, are qMembers[qMStart[g] .. qMStart[g+1])
let qMembers: usize = 0;
let qLen: usize = 0; // per group: entries in its batch (in qEv[qMStart[g] * Q_PER ..])
let qCur: usize = 0; // per group: its first entry not taken
let qSpan: usize = 0; // per group: the span of ranks its last batch covered
let qAt: usize = 0; // per group: the entry the last pollStreams found (-1: found by scanning the members)
let qEv: usize = 0; // entries: a member, or -1 once taken
let qHeadC: usize = 0; // per group: the member of its first entry not taken
let qHeadK: usize = 0; // per group: that member's key (f64), so a poll compares groups without following the member
let qGenC: usize = 0;
let qGenR: usize = 0;
let qBucket: usize = 0;
/** A batch holds up to Q_PER entries per member (and at least Q_TARGET_MIN of them are asked for). */
const Q_PER: i32 = 8;
const Q_TARGET_MIN: i32 = 16;
const Q_MAX_SPAN: i32 = 1 << 16;
/** Streams need small capacities: the ranks a batch spans grow with M / capacity. */
const Q_MAX_CAP: i32 = 256;

function initStreams(C: i32, G: i32, groupOf: usize): void {
  qOn = gPacked && !gLimited && gMaxCap <= Q_MAX_CAP;
  if (!qOn) return;
  qMembers = scratch(C, 0);
  qMStart = groupMembers(C, G, groupOf, qMembers);
  qLen = scratch(G, 0);
  qCur = scratch(G, 0);
  qSpan = scratch(G, 1);
  qAt = scratch(G, -1);
  qEv = scratch(C * Q_PER + G * Q_TARGET_MIN, 0);
  let most = 0;
  for (let g = 0; g < G; g++) {
    const m = ld(qMStart, g + 1) - ld(qMStart, g);
    if (m > most) most = m;
  }
  qGenC = scratch(most * Q_PER + Q_TARGET_MIN, 0);
  qGenR = scratch(most * Q_PER + Q_TARGET_MIN, 0);
  qBucket = scratch(Q_MAX_SPAN + 1, 0);
  qHeadC = scratch(G, 0);
  const heads: i32 = G > 0 ? G : 1;
  qHeadK = heap.alloc(<usize>heads << 3);
  for (let g = 0; g < G; g++) setHead(g);
}

/** Moves group g's cursor past taken entries (rebuilding the batch when none is left) and records its head. */
function setHead(g: i32): void {
  const base = ld(qMStart, g) * Q_PER + g * Q_TARGET_MIN;
  let len = ld(qLen, g);
  let i = ld(qCur, g);
  while (i < len && ld(qEv, base + i) < 0) i++;
  if (i == len) {
    refill(g);
    i = 0;
  }
  st(qCur, g, i);
  const c = ld(qEv, base + i);
  st(qHeadC, g, c);
  store<f64>(qHeadK + (<usize>g << 3), load<f64>(gKey + (<usize>c << 3)));
}

/** Entries of group g with rank below r0 + span: sum over members of #{n >= load : n * M < (r0 + span) * c}. */
function streamCount(g: i32, r0: i64, span: i32): i64 {
  const R = r0 + <i64>span;
  const mask = (<i64>1 << gMBits) - 1;
  let total: i64 = 0;
  const m1 = ld(qMStart, g + 1);
  for (let i = ld(qMStart, g); i < m1; i++) {
    const c = ld(qMembers, i);
    const upto = (R * <i64>ld(gCap, c) + mask) >> gMBits; // ceil(R * c / M): loads below it have rank < R
    const d = upto - <i64>ld(gLoad, c);
    if (d > 0) total += d;
  }
  return total;
}

/** Rebuilds group g's batch from its members' current loads. */
function refill(g: i32): void {
  const m0 = ld(qMStart, g), m1 = ld(qMStart, g + 1);
  let r0: i64 = i64.MAX_VALUE;
  for (let i = m0; i < m1; i++) {
    const c = ld(qMembers, i);
    const r = rankOf(ld(gLoad, c), ld(gCap, c));
    if (r < r0) r0 = r;
  }
  const room = <i64>((m1 - m0) * Q_PER + Q_TARGET_MIN);
  const target = <i64>((m1 - m0) * 2 + Q_TARGET_MIN);
  // Rank r0 alone gives at most one entry per member (a member's ranks step by M / c >= 1).
  let span = ld(qSpan, g) >> 1;
  if (span < 1) span = 1;
  let count = streamCount(g, r0, span);
  while (count > room && span > 1) {
    span >>= 1;
    count = streamCount(g, r0, span);
  }
  while (count < target && span < Q_MAX_SPAN) {
    const more = streamCount(g, r0, span << 1);
    if (more > room) break;
    span <<= 1;
    count = more;
  }
  st(qSpan, g, span);
  const R = r0 + <i64>span;
  const M: i64 = <i64>1 << gMBits;
  // Each member's entries in load order, members ascending; then a stable counting sort by rank.
  let e = 0;
  for (let i = m0; i < m1; i++) {
    const c = ld(qMembers, i);
    const cc = <i64>ld(gCap, c);
    const lim = R * cc;
    let x = <i64>ld(gLoad, c) << gMBits;
    if (x >= lim) continue;
    let q = x / cc;
    let rem = x - q * cc;
    const dq = M / cc, dr = M - dq * cc;
    while (x < lim) {
      st(qGenC, e, c);
      st(qGenR, e, <i32>(q - r0));
      e++;
      x += M;
      q += dq;
      rem += dr;
      if (rem >= cc) {
        q++;
        rem -= cc;
      }
    }
  }
  memory.fill(qBucket, 0, <usize>(span + 1) << 2);
  for (let i = 0; i < e; i++) st(qBucket, ld(qGenR, i) + 1, ld(qBucket, ld(qGenR, i) + 1) + 1);
  for (let r = 0; r < span; r++) st(qBucket, r + 1, ld(qBucket, r + 1) + ld(qBucket, r));
  const base = m0 * Q_PER + g * Q_TARGET_MIN;
  for (let i = 0; i < e; i++) {
    const r = ld(qGenR, i);
    const at = ld(qBucket, r);
    st(qBucket, r, at + 1);
    st(qEv, base + at, ld(qGenC, i));
  }
  st(qLen, g, e);
  st(qCur, g, 0);
}

/** The least member of group g not holding the task (bHeld), or -1; qAt[g] records where it was found. */
function streamHead(g: i32): i32 {
  const base = ld(qMStart, g) * Q_PER + g * Q_TARGET_MIN;
  const len = ld(qLen, g);
  // setHead keeps qCur on an entry not taken.
  for (let i = ld(qCur, g); i < len; i++) {
    const c = ld(qEv, base + i);
    if (c >= 0 && ld(bHeld, c) != bStamp) {
      st(qAt, g, i);
      return c;
    }
  }
  // Only members holding the task are left in the batch. Scan the members: the least free one by key (its entries, if any, lie beyond the batch).
  let best = -1;
  let bk = Infinity;
  const m1 = ld(qMStart, g + 1);
  for (let i = ld(qMStart, g); i < m1; i++) {
    const c = ld(qMembers, i);
    if (ld(bHeld, c) == bStamp) continue;
    const k = load<f64>(gKey + (<usize>c << 3));
    if (k < bk) {
      bk = k;
      best = c;
    }
  }
  st(qAt, g, -1);
  return best;
}

/** c (just found by streamHead, its load just raised) is taken: mark its entry, refresh its key. */
function streamTake(c: i32): void {
  const g = ld(gGroupOf, c);
  const at = ld(qAt, g);
  rekey(c);
  if (at >= 0) {
    const base = ld(qMStart, g) * Q_PER + g * Q_TARGET_MIN;
    st(qEv, base + at, -1);
    // The head was taken: the next entry not taken (c's own next, perhaps) is the head now.
    if (at == ld(qCur, g)) setHead(g);
  }
}

/**
 * Least loaded client not holding the task; with `tags`, also outside Kafka's
 * usedEntries. The filter reads only a client's values, so it passes or fails
 * whole tag groups: the best of the passing groups' least loaded free members
 * is the client a scan of all clients finds.
 */
/** poll()'s filter: group g has no value of a key not yet exhausted that the task's copies used. */
// @ts-ignore: decorator
@inline function allowed(g: i32, K: i32, groupValues: usize, usedVal: usize, exhausted: usize): bool {
  for (let k = 0; k < K; k++) {
    if (ld(exhausted, k) != 0) continue;
    const v = ld(groupValues, g * K + k);
    if (v >= 0 && ld(usedVal, v) == bStamp) return false;
  }
  return true;
}

// The tag filter as bit sets (at most 32 groups, no key exhausted in the task yet): a value
// the task's copies used shuts out every group with it, so the passing groups are the ones
// not in pBlocked, found without checking each group's values.
let pGroupsFit: bool = false;
let pMasked: bool = false;
let pBlocked: i32 = 0;
let pValueGroups: usize = 0;

function poll(tags: bool): i32 {
  const G = hG, K = hK, groupValues = hGroupValues, usedVal = kUsedVal, exhausted = kExhausted;
  if (qOn) {
    // The least head of the passing groups; when it does not hold the task it is the answer
    // (any other group's best is no better than its head). Otherwise the loop below.
    let bestG = -1;
    let bk = Infinity;
    if (tags && pMasked) {
      let open = ~pBlocked & (G >= 32 ? -1 : (1 << G) - 1);
      while (open != 0) {
        const g = ctz(open);
        open &= open - 1;
        const k = load<f64>(qHeadK + (<usize>g << 3));
        if (k < bk) {
          bk = k;
          bestG = g;
        }
      }
    } else {
      for (let g = 0; g < G; g++) {
        if (tags && !allowed(g, K, groupValues, usedVal, exhausted)) continue;
        const k = load<f64>(qHeadK + (<usize>g << 3));
        if (k < bk) {
          bk = k;
          bestG = g;
        }
      }
    }
    if (bestG < 0) return -1;
    const c = ld(qHeadC, bestG);
    if (ld(bHeld, c) != bStamp) {
      st(qAt, bestG, ld(qCur, bestG));
      return c;
    }
  }
  let best = -1;
  let bk = Infinity;
  for (let g = 0; g < G; g++) {
    if (tags && !allowed(g, K, groupValues, usedVal, exhausted)) continue;
    if (qOn) {
      // Unique keys: the least key is the least client.
      const y = streamHead(g);
      if (y < 0) continue;
      const k = load<f64>(gKey + (<usize>y << 3));
      if (k < bk) {
        bk = k;
        best = y;
      }
      continue;
    }
    // The heap top, when it does not hold the task, is the group's best (no limits in this phase).
    const top = ld(gSize, g) > 0 ? ld(gHeap, ld(gStart, g)) : -1;
    const c = top >= 0 && !gLimited && ld(bHeld, top) != bStamp ? top : bestFree(g, bHeld, bStamp);
    if (c >= 0 && (best < 0 || before(c, best))) best = c;
  }
  return best;
}

/**
 * Kafka mode (ClientTagAwareStandbyTaskAssignor with flag 1, else
 * DefaultStandbyTaskAssignor); same output layout as standbyBalanced.
 */
export function standbyKafka(header: usize): void {
  readProblem(header);
  placeKafka();
}

// The Kafka phase's per-task state: standbys still to place, slots filled, and the tag-aware
// pass's value ids used by the task's copies (stamped bStamp) and keys exhausted.
let kRemaining: usize = 0;
let kFilled: usize = 0;
let kUsedVal: usize = 0;
let kExhausted: usize = 0;

/** Kafka's placement of the problem in the h* globals, into hOut. */
function placeKafka(): void {
  const C = hC, K = hK, G = hG, T = hT, W = hW, V = hV, need = hNeed, out = hOut, flags = hFlags;
  gHeadroom = T * W + 1;
  const TW = T * W;
  for (let s = 0; s < TW; s++) {
    st(out, s, -1);
    st(out, TW + s, 0);
  }
  const tagAware = (flags & STANDBY_KAFKA_TAG_AWARE) != 0;
  kRemaining = scratch(T, 0);
  for (let t = 0; t < T; t++) st(kRemaining, t, ld(need, t));
  kFilled = scratch(T, 0);
  initHeaps(hLoad, 0);
  initStreams(C, G, hGroupOf);
  bHeld = scratch(C, 0);
  bStamp = 0;
  kSeen = scratch(V, 0);
  kUsedVal = scratch(V, 0);
  kExhausted = scratch(K, 0);
  initValueGroups(G, K, V, hGroupValues);
  if (tagAware) tagAwarePass((flags & NEED_EXACT) != 0);
  fallbackPass(tagAware);
}

// placeKafka's steps, each used once: inlined, so the kernel is the one it was as a single function.

/** With at most 32 groups, the groups each value id shuts out, as a bit set (poll's masked test). */
@inline function initValueGroups(G: i32, K: i32, V: i32, groupValues: usize): void {
  pGroupsFit = G <= 32;
  pMasked = false;
  pValueGroups = scratch(V, 0);
  if (!pGroupsFit) return;
  for (let g = 0; g < G; g++) {
    for (let k = 0; k < K; k++) {
      const v = ld(groupValues, g * K + k);
      if (v >= 0) st(pValueGroups, v, ld(pValueGroups, v) | (1 << g));
    }
  }
}

/** ClientTagAwareStandbyTaskAssignor's pass: per task in TaskId order, each standby outside the values used so far. */
@inline function tagAwarePass(needExact: bool): void {
  const K = hK, T = hT, clientValues = hClientValues, distinct = hDistinct, active = hActive;
  const remaining = kRemaining, usedVal = kUsedVal, exhausted = kExhausted;
  for (let t = 0; t < T; t++) {
    const a = ld(active, t);
    if (a < 0) continue; // no active owner: left for the fallback
    if (ld(remaining, t) <= 0 && needExact) continue;
    visit(t);
    for (let k = 0; k < K; k++) st(exhausted, k, 0);
    pMasked = pGroupsFit;
    pBlocked = 0;
    let usedCount = 1;
    let last = a;
    let rem = ld(remaining, t);
    do {
      for (let k = 0; k < K; k++) {
        const v = ld(clientValues, last * K + k);
        if (v < 0) continue;
        if (ld(distinct, k) <= usedCount) {
          st(exhausted, k, 1);
          pMasked = false; // an exhausted key lets groups through again: poll() checks each group
        } else {
          st(usedVal, v, bStamp);
          pBlocked |= ld(pValueGroups, v);
        }
      }
      const c = poll(true);
      if (c < 0) break;
      assignSlot(t, c);
      usedCount++;
      rem--;
      last = c;
    } while (rem > 0);
    st(remaining, t, rem);
  }
}

/** DefaultStandbyTaskAssignor, or the tag-blind fallback of the tag-aware one (tasks in fallbackOrder). */
@inline function fallbackPass(tagAware: bool): void {
  const T = hT, fallbackOrder = hFallbackOrder, remaining = kRemaining;
  // The fallback visits each task with standbys left once; it can stop after the last.
  let pending = 0;
  for (let t = 0; t < T; t++) if (ld(remaining, t) > 0) pending++;
  for (let i = 0; i < T && pending > 0; i++) {
    const t = tagAware ? ld(fallbackOrder, i) : i;
    if (ld(remaining, t) <= 0) continue;
    pending--;
    visit(t);
    while (ld(remaining, t) > 0) {
      pMasked = false;
      const c = poll(false);
      if (c < 0) break;
      assignSlot(t, c);
      st(remaining, t, ld(remaining, t) - 1);
    }
  }
}
