// Consumer-group balancing kernel (issue 9): the AssemblyScript twin of
// src/engine/reference/group.ts, line for line where possible (read that file for the why).
// Pointer ABI: every array is i32 in linear memory; scratch comes from the arena (reset per
// call) and is initialised here, since the arena is not zeroed.

import { ld, st, inc, dec, scratch, unfilled } from './mem';

const INF: i32 = 0x3fffffff;

// ---------------------------------------------------------------- extras flow of one class

let fT: i32 = 0;
let fS: i32 = 0;
let fBase: usize = 0;
let fR: usize = 0;
let fLo: i32 = 0;
let fRb: i32 = 0;
let fGain: usize = 0;
let fX: usize = 0;
let fV: i32 = 0;
let fBonus: i32 = 0;
let fSink: i32 = 0;
let fSt: usize = 0;
let fMs: usize = 0;
let fMb: usize = 0;
let fBz: i32 = 0;
let fPot: usize = 0;
let fDist: usize = 0;
let fLevel: usize = 0;
let fCur: usize = 0;
let fDone: usize = 0;
let fHeapD: usize = 0;
let fHeapV: usize = 0;
let fHeapN: i32 = 0;
// The sparse arcs (SparseArcs in the reference); fSparse 0: every (topic, member) pair is an arc.
let fSparse: i32 = 0;
let fLightIn: i32 = 0; // light members whose arcs are in the sparse graph
let fTopicStart: usize = 0;
let fTopicMember: usize = 0;
let fMemberStart: usize = 0;
let fMemberTopic: usize = 0;

// @ts-ignore: decorator
@inline function memberAt(i: i32, a: i32): i32 {
  return fSparse == 0 ? a : ld(fTopicMember, ld(fTopicStart, i) + a);
}

// @ts-ignore: decorator
@inline function topicAt(j: i32, a: i32): i32 {
  return fSparse == 0 ? a - 2 : ld(fMemberTopic, ld(fMemberStart, j) + a - 2);
}

function arcCount(u: i32): i32 {
  if (u == 0) return fT;
  if (u <= fT) return fSparse == 0 ? fS : ld(fTopicStart, u) - ld(fTopicStart, u - 1);
  if (u <= fT + fS) return 2 + (fSparse == 0 ? fT : ld(fMemberStart, u - fT) - ld(fMemberStart, u - 1 - fT));
  if (u == fBonus) return 1 + fS;
  return 0;
}

function arcHead(u: i32, a: i32): i32 {
  if (u == 0) return ld(fSt, a) < ld(fR, a) ? 1 + a : -1;
  if (u <= fT) {
    const j = memberAt(u - 1, a);
    return ld(fX, ld(fBase, u - 1) + j) == 0 ? 1 + fT + j : -1;
  }
  if (u <= fT + fS) {
    const j = u - 1 - fT;
    if (a == 0) return ld(fMs, j) < fLo ? fSink : -1;
    if (a == 1) return ld(fMb, j) == 0 ? fBonus : -1;
    const i = topicAt(j, a);
    return ld(fX, ld(fBase, i) + j) == 1 ? 1 + i : -1;
  }
  if (u == fBonus) {
    if (a == 0) return fBz < fRb ? fSink : -1;
    return ld(fMb, a - 1) == 1 ? 1 + fT + (a - 1) : -1;
  }
  return -1;
}

function arcCost(u: i32, a: i32): i32 {
  if (u >= 1 && u <= fT) return -ld(fGain, ld(fBase, u - 1) + memberAt(u - 1, a));
  if (u > fT && u <= fT + fS && a >= 2) return ld(fGain, ld(fBase, topicAt(u - 1 - fT, a)) + (u - 1 - fT));
  return 0;
}

function pushArc(u: i32, a: i32): void {
  if (u == 0) inc(fSt, a);
  else if (u <= fT) st(fX, ld(fBase, u - 1) + memberAt(u - 1, a), 1);
  else if (u <= fT + fS) {
    const j = u - 1 - fT;
    if (a == 0) inc(fMs, j);
    else if (a == 1) st(fMb, j, 1);
    else st(fX, ld(fBase, topicAt(j, a)) + j, 0);
  } else if (a == 0) fBz++;
  else st(fMb, a - 1, 0);
}

function initPotentials(): void {
  for (let i = 0; i < fT; i++) {
    const n = arcCount(1 + i);
    for (let a = 0; a < n; a++) {
      const v = arcHead(1 + i, a);
      const cost = arcCost(1 + i, a);
      if (cost < ld(fPot, v)) st(fPot, v, cost);
    }
  }
  let minMember = 0;
  for (let j = 0; j < fS; j++) if (ld(fPot, 1 + fT + j) < minMember) minMember = ld(fPot, 1 + fT + j);
  st(fPot, fBonus, minMember);
  st(fPot, fSink, minMember);
}

// @ts-ignore: decorator
@inline function heapLess(i: i32, j: i32): bool {
  const di = ld(fHeapD, i), dj = ld(fHeapD, j);
  return di < dj || (di == dj && ld(fHeapV, i) < ld(fHeapV, j));
}

function heapSwap(i: i32, j: i32): void {
  const d = ld(fHeapD, i);
  st(fHeapD, i, ld(fHeapD, j));
  st(fHeapD, j, d);
  const v = ld(fHeapV, i);
  st(fHeapV, i, ld(fHeapV, j));
  st(fHeapV, j, v);
}

function heapPush(d: i32, v: i32): void {
  st(fHeapD, fHeapN, d);
  st(fHeapV, fHeapN, v);
  let i = fHeapN++;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!heapLess(i, parent)) break;
    heapSwap(i, parent);
    i = parent;
  }
}

function heapPop(): void {
  const last = fHeapN - 1;
  heapSwap(0, last);
  fHeapN--;
  let i = 0;
  const n = fHeapN;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    let c = l;
    if (l + 1 < n && heapLess(l + 1, l)) c = l + 1;
    if (!heapLess(c, i)) break;
    heapSwap(c, i);
    i = c;
  }
}

function dijkstra(): bool {
  for (let v = 0; v < fV; v++) {
    st(fDist, v, INF);
    st(fDone, v, 0);
  }
  fHeapN = 0;
  st(fDist, 0, 0);
  heapPush(0, 0);
  while (fHeapN > 0) {
    const d = ld(fHeapD, 0);
    const u = ld(fHeapV, 0);
    heapPop();
    if (ld(fDone, u) == 1 || d > ld(fDist, u)) continue;
    st(fDone, u, 1);
    if (u == fSink) continue;
    const n = arcCount(u);
    for (let a = 0; a < n; a++) {
      const v = arcHead(u, a);
      if (v < 0 || ld(fDone, v) == 1) continue;
      const nd = d + arcCost(u, a) + ld(fPot, u) - ld(fPot, v);
      if (nd < ld(fDist, v)) {
        st(fDist, v, nd);
        heapPush(nd, v);
      }
    }
  }
  const D = ld(fDist, fSink);
  if (D >= INF) return false;
  for (let v = 0; v < fV; v++) {
    const dv = ld(fDist, v);
    st(fPot, v, ld(fPot, v) + (dv < D ? dv : D));
  }
  return true;
}

function admissible(u: i32, a: i32): i32 {
  const v = arcHead(u, a);
  if (v < 0) return -1;
  return arcCost(u, a) + ld(fPot, u) - ld(fPot, v) == 0 ? v : -1;
}

function levels(queue: usize): bool {
  for (let v = 0; v < fV; v++) st(fLevel, v, -1);
  st(fLevel, 0, 0);
  let head = 0;
  let tail = 0;
  st(queue, tail++, 0);
  while (head < tail) {
    const u = ld(queue, head++);
    if (u == fSink) continue;
    const n = arcCount(u);
    for (let a = 0; a < n; a++) {
      const v = admissible(u, a);
      if (v >= 0 && ld(fLevel, v) < 0) {
        st(fLevel, v, ld(fLevel, u) + 1);
        st(queue, tail++, v);
      }
    }
  }
  return ld(fLevel, fSink) >= 0;
}

function blocking(stack: usize): i32 {
  for (let v = 0; v < fV; v++) st(fCur, v, 0);
  let pushed = 0;
  let sp = 0;
  st(stack, sp++, 0);
  while (sp > 0) {
    const u = ld(stack, sp - 1);
    if (u == fSink) {
      for (let k = 0; k < sp - 1; k++) pushArc(ld(stack, k), ld(fCur, ld(stack, k)));
      pushed++;
      sp = 1;
      continue;
    }
    const n = arcCount(u);
    let advanced = false;
    while (ld(fCur, u) < n) {
      const v = admissible(u, ld(fCur, u));
      if (v >= 0 && ld(fLevel, v) == ld(fLevel, u) + 1) {
        st(stack, sp++, v);
        advanced = true;
        break;
      }
      inc(fCur, u);
    }
    if (!advanced) {
      st(fLevel, u, -1);
      sp--;
      if (sp > 0) inc(fCur, ld(stack, sp - 1));
    }
  }
  return pushed;
}

/** The flow's arrays, zero; fT, fS, fBase, fR, fLo, fRb, fGain, fX and the arcs are set. */
function flowArrays(): void {
  fV = 3 + fT + fS;
  fBonus = 1 + fT + fS;
  fSink = 2 + fT + fS;
  fSt = scratch(fT, 0);
  fMs = scratch(fS, 0);
  fMb = scratch(fS, 0);
  fBz = 0;
  fPot = scratch(fV, 0);
  fDist = scratch(fV, 0);
  fLevel = scratch(fV, 0);
  fCur = scratch(fV, 0);
  fDone = scratch(fV, 0);
  // Lazy Dijkstra pushes at most once per relaxed arc, plus the source.
  const arcs = fSparse == 0 ? fT + 2 * fT * fS + 3 * fS + 2 : fT + 2 * ld(fTopicStart, fT) + 3 * fS + 2;
  fHeapD = scratch(arcs, 0);
  fHeapV = scratch(arcs, 0);
}

/** Places every extra (the flow on every arc); false when it cannot (a bug). */
function flowRun(total: i32): bool {
  flowArrays();
  initPotentials();
  const queue = scratch(fV, 0);
  const stack = scratch(fV + 1, 0);
  let flow = 0;
  while (flow < total) {
    if (!dijkstra()) return false;
    while (flow < total && levels(queue)) flow += blocking(stack);
  }
  return true;
}

/** Places extras while that loses nothing (pot[sink] is then the best path's cost, <= 0), from the flow in the arrays. */
function flowRunWhileFree(total: i32): void {
  initPotentials();
  const queue = scratch(fV, 0);
  const stack = scratch(fV + 1, 0);
  let flow = 0;
  for (let k = 0; k < fT; k++) flow += ld(fSt, k);
  while (flow < total && dijkstra() && ld(fPot, fSink) <= 0) {
    while (flow < total && levels(queue)) flow += blocking(stack);
  }
}

// ---------------------------------------------------------------- the rest of the assignment

// takeLowest's choice (the twin's Lowest): lOut[0 .. lLen) are the positions chosen so far.
let lKey: usize = 0;
let lMembers: usize = 0;
let lHist: usize = 0;
let lOut: usize = 0;
let lLen: i32 = 0;

function takeLowest(cand: usize, count: i32, need: i32): void {
  const key = lKey, members = lMembers, hist = lHist, out = lOut;
  let outLen = lLen;
  if (need <= 0) return;
  if (need >= count) {
    for (let k = 0; k < count; k++) st(out, outLen++, ld(cand, k));
    lLen = outLen;
    return;
  }
  let lo = INF;
  let hi = -1;
  for (let k = 0; k < count; k++) {
    const v = ld(key, ld(members, ld(cand, k)));
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  for (let k = 0; k <= hi - lo; k++) st(hist, k, 0);
  for (let k = 0; k < count; k++) inc(hist, ld(key, ld(members, ld(cand, k))) - lo);
  let th = lo;
  let below = 0;
  while (below + ld(hist, th - lo) < need) below += ld(hist, th++ - lo);
  let ties = need - below;
  for (let k = 0; k < count; k++) {
    const v = ld(key, ld(members, ld(cand, k)));
    if (v < th || (v == th && ties-- > 0)) st(out, outLen++, ld(cand, k));
  }
  lLen = outLen;
}

// ---------------------------------------------------------------- the problem and its quotas
// The steps below mirror src/engine/reference/group.ts helper for helper. The problem and the
// per-slot state are module globals (one call at a time); each step copies the ones it loops
// over into locals first.

let gM: i32 = 0;
let gT: i32 = 0;
let gRackCount: i32 = 0;
let gMemberRack: usize = 0;
let gTopicClass: usize = 0;
let gTopicWeight: usize = 0;
let gSubStart: usize = 0;
let gSubs: usize = 0;
let gSubBase: usize = 0; // per topic: where its subscribers start in gSubs (topics may share a list)
let gItemStart: usize = 0;
let gPrevOwner: usize = 0;
let gSoftOwner: usize = 0;
let gNSoft: i32 = 0;
let gRackStart: usize = 0;
let gRacks: usize = 0;
let gOwner: usize = 0;
let gSubList: usize = 0; // per topic: the first topic with its subscriber list (its list id)

let qHeld: usize = 0;
let qExtra: usize = 0;
let qGain: usize = 0;
let qItemSlot: usize = 0;
let qPosOf: usize = 0;
let qPosTopic: usize = 0; // per member: the list id (gSubList) qPosOf is for
let qIndexed: i32 = -1;
let qFloor: usize = 0;
let qRem: usize = 0;
let qInFlow: usize = 0;
let qKept: usize = 0;
let qRoom: usize = 0;

function hasRack(item: i32, rack: i32): bool {
  if (rack < 0) return false;
  const rackStart = gRackStart;
  const racks = gRacks;
  for (let k = ld(rackStart, item); k < ld(rackStart, item + 1); k++) if (ld(racks, k) == rack) return true;
  return false;
}

// The balancing problem: 18 i32 slots in linear memory, written by group-plan.ts (the fields of
// GroupProblem in src/engine/abi.ts, plus N, nSoft and the owner output).
export const B_MEMBERS = 0;
export const B_TOPICS = 1;
export const B_ITEMS = 2;
export const B_RACK_COUNT = 3;
export const B_MEMBER_RACK = 4;
export const B_TOPIC_CLASS = 5;
export const B_TOPIC_WEIGHT = 6;
export const B_SUB_START = 7;
export const B_SUBS = 8;
export const B_ITEM_START = 9;
export const B_PREV_OWNER = 10;
export const B_SOFT_OWNER = 11;
export const B_HAS_SOFT = 12;
export const B_RACK_START = 13;
export const B_RACKS = 14;
export const B_OWNER = 15;
export const B_SUB_LIST = 16;
export const B_SUB_BASE = 17;
export const B_SLOTS = 18;

/**
 * Writes the owner (B_ITEMS i32): the member of every item, -1 for topics without subscribers.
 * Returns 0, or 1 when an extras flow could not be completed (a broken invariant).
 */
export function groupAssign(b: usize): i32 {
  gM = ld(b, B_MEMBERS);
  gT = ld(b, B_TOPICS);
  gRackCount = ld(b, B_RACK_COUNT);
  gMemberRack = ld(b, B_MEMBER_RACK);
  gTopicClass = ld(b, B_TOPIC_CLASS);
  gTopicWeight = ld(b, B_TOPIC_WEIGHT);
  gSubStart = ld(b, B_SUB_START);
  gSubs = ld(b, B_SUBS);
  gSubBase = ld(b, B_SUB_BASE);
  gItemStart = ld(b, B_ITEM_START);
  gPrevOwner = ld(b, B_PREV_OWNER);
  gSoftOwner = ld(b, B_SOFT_OWNER);
  gNSoft = ld(b, B_HAS_SOFT);
  gRackStart = ld(b, B_RACK_START);
  gRacks = ld(b, B_RACKS);
  gOwner = ld(b, B_OWNER);
  gSubList = ld(b, B_SUB_LIST);
  const N = ld(b, B_ITEMS);
  quotas(N);
  countHeld();
  if (!extrasOfBalancedClasses()) return 1;
  extrasOfOtherTopics();
  keepAndPlace();
  return 0;
}

function quotas(N: i32): void {
  const P = ld(gSubStart, gT);
  const maxS = widest(gSubStart);
  for (let i = 0; i < N; i++) st(gOwner, i, -1);
  qHeld = scratch(maxS, 0);
  qExtra = scratch(P, 0);
  qGain = scratch(P, 0);
  qItemSlot = scratch(N, -1);
  qPosOf = scratch(gM, 0);
  qPosTopic = scratch(gM, -1);
  qIndexed = -1;
  qFloor = scratch(gT, 0);
  qRem = scratch(gT, 0);
  qInFlow = scratch(gT, 0);
  qKept = scratch(maxS, 0);
  qRoom = unfilled(maxS); // written per topic before it is read
}

/** Makes topic t's subscribers the ones qPosOf / qPosTopic answer for (indexed again only when its list differs from the last one's). */
function indexSubscribers(t: i32): void {
  const list = ld(gSubList, t);
  if (qIndexed == list) return;
  qIndexed = list;
  const subs = subscribersOf(t);
  const S = ld(gSubStart, t + 1) - ld(gSubStart, t);
  for (let j = 0; j < S; j++) {
    st(qPosOf, ld(subs, j), j);
    st(qPosTopic, ld(subs, j), list);
  }
}

/** The address of topic t's subscribers, subStart[t + 1] - subStart[t] of them. */
function subscribersOf(t: i32): usize {
  return gSubs + (<usize>ld(gSubBase, t) << 2);
}

/**
 * Per list of subStart / subs (L lists; group-plan.ts passes the problem's subscriber lists): the
 * first list equal to it, so that equal lists share one id wherever they stand (topics are numbered
 * by id, which interleaves the lists of a heterogeneous group). A list equal to the one before
 * takes its id; any other is looked up by a hash of its members.
 */
export function subscriberListIds(subStart: usize, subs: usize, L: i32): usize {
  const first = scratch(L, 0);
  let size = 2;
  while (size < 2 * L) size <<= 1;
  const slots = scratch(size, -1); // open addressing: a topic whose list no earlier topic has
  const hashes = scratch(L, 0);
  for (let t = 0; t < L; t++) {
    st(first, t, t);
    if (t > 0 && sameList(subStart, subs, t - 1, t)) {
      st(first, t, ld(first, t - 1));
      continue;
    }
    const h = listHash(subStart, subs, t);
    st(hashes, t, h);
    let at = h & (size - 1);
    while (ld(slots, at) >= 0) {
      const u = ld(slots, at);
      if (ld(hashes, u) == h && sameList(subStart, subs, u, t)) break;
      at = (at + 1) & (size - 1);
    }
    if (ld(slots, at) >= 0) st(first, t, ld(slots, at));
    else st(slots, at, t);
  }
  return first;
}

/** FNV-1a over a topic's subscriber count and members. */
function listHash(subStart: usize, subs: usize, t: i32): i32 {
  const a = ld(subStart, t);
  const b = ld(subStart, t + 1);
  let h: u32 = (0x811c9dc5 ^ <u32>(b - a)) * 0x01000193;
  for (let i = a; i < b; i++) h = (h ^ <u32>ld(subs, i)) * 0x01000193;
  return <i32>(h & 0x7fffffff);
}

/** True when topics t and u of subStart / subs have the same subscriber list. */
export function sameList(subStart: usize, subs: usize, t: i32, u: i32): bool {
  const a = ld(subStart, t);
  const b = ld(subStart, u);
  const n = ld(subStart, t + 1) - a;
  if (ld(subStart, u + 1) - b != n) return false;
  // Two subscribers per load: in a homogeneous group every slot is read here (10M at 10,000
  // members x 1,000 topics), and this was the kernel's largest cost. The loops stay statements:
  // a comparison loop inlined into an expression once left a value on the JVM stack at the loop,
  // and Chicory's output was then never compiled by the JVM (no on-stack replacement with a
  // non-empty stack): 1 s at 10M subscriber slots.
  const pa = subs + (<usize>a << 2);
  const pb = subs + (<usize>b << 2);
  const pairs = <usize>(n >> 1) << 3;
  let at: usize = 0;
  while (at < pairs && load<i64>(pa + at) == load<i64>(pb + at)) at += 8;
  let j = <i32>(at >> 2);
  while (j < n && ld(subs, a + j) == ld(subs, b + j)) j++;
  return j == n;
}

/** 1. Held items per slot; quotas; gains. */
function countHeld(): void {
  const M = gM;
  const subStart = gSubStart;
  const itemStart = gItemStart;
  const prevOwner = gPrevOwner;
  const held = qHeld;
  const itemSlot = qItemSlot;
  const posOf = qPosOf;
  const posTopic = qPosTopic;
  for (let t = 0; t < gT; t++) {
    const s0 = ld(subStart, t);
    const S = ld(subStart, t + 1) - s0;
    indexSubscribers(t);
    for (let i = ld(itemStart, t); i < ld(itemStart, t + 1); i++) {
      const m = ld(prevOwner, i);
      if (m >= 0 && m < M && ld(posTopic, m) == ld(gSubList, t)) {
        st(itemSlot, i, s0 + ld(posOf, m));
        inc(held, ld(posOf, m));
      }
    }
    if (S == 0) continue;
    const n = ld(itemStart, t + 1) - ld(itemStart, t);
    st(qFloor, t, n / S);
    st(qRem, t, n % S);
    // Only a slot that holds something can hold more than the floor.
    const floor = ld(qFloor, t);
    const w = ld(gTopicWeight, t);
    for (let i = ld(itemStart, t); i < ld(itemStart, t + 1); i++) {
      const slot = ld(itemSlot, i);
      if (slot < 0 || ld(held, slot - s0) == 0) continue;
      if (ld(held, slot - s0) > floor) st(qGain, slot, w);
      st(held, slot - s0, 0);
    }
  }
}

let cStart: usize = 0;
let cByClass: usize = 0;

/** Topics by class id (counting sort): class c is cByClass[cStart[c] .. cStart[c + 1]). */
function topicsByClass(): void {
  const T = gT;
  cStart = scratch(T + 1, 0);
  for (let t = 0; t < T; t++) {
    const c = ld(gTopicClass, t);
    if (c >= 0 && c < T) inc(cStart, c + 1);
  }
  for (let c = 0; c < T; c++) st(cStart, c + 1, ld(cStart, c + 1) + ld(cStart, c));
  cByClass = scratch(ld(cStart, T), 0);
  const fillAt = scratch(T, 0);
  for (let c = 0; c < T; c++) st(fillAt, c, ld(cStart, c));
  for (let t = 0; t < T; t++) {
    const c = ld(gTopicClass, t);
    if (c >= 0 && c < T) {
      st(cByClass, ld(fillAt, c), t);
      inc(fillAt, c);
    }
  }
}

/** Whether the topics of class positions a..b have one subscriber list (equal lists have one id). */
function sameSubscribers(a: i32, b: i32): bool {
  const t0 = ld(cByClass, a);
  if (ld(gSubStart, t0 + 1) == ld(gSubStart, t0)) return false;
  for (let k = a + 1; k < b; k++) if (ld(gSubList, ld(cByClass, k)) != ld(gSubList, t0)) return false;
  return true;
}

/** 2a. Balanced classes; false when an extras flow failed. */
function extrasOfBalancedClasses(): bool {
  topicsByClass();
  for (let c = 0; c < gT; c++) {
    const a = ld(cStart, c);
    const b = ld(cStart, c + 1);
    if (b == a || !sameSubscribers(a, b)) continue;
    for (let k = a; k < b; k++) st(qInFlow, ld(cByClass, k), 1);
    if (!extrasOfClass(a, b)) return false;
  }
  return true;
}

function extrasOfClass(a: i32, b: i32): bool {
  const t0 = ld(cByClass, a);
  const S = ld(gSubStart, t0 + 1) - ld(gSubStart, t0);
  const Tc = b - a;
  const base = scratch(Tc, 0);
  const r = scratch(Tc, 0);
  let X = 0;
  for (let k = 0; k < Tc; k++) {
    const t = ld(cByClass, a + k);
    st(base, k, ld(gSubStart, t));
    st(r, k, ld(qRem, t));
    X += ld(qRem, t);
  }
  if (X == 0) return true;
  fT = Tc;
  fS = S;
  fBase = base;
  fR = r;
  fLo = X / S;
  fRb = X % S;
  fGain = qGain;
  fX = qExtra;
  if (sparseArcs(a, false) == 0) {
    dealRoundRobin();
    return true;
  }
  // The reference's extrasOfClass says why: a flow on sparse arcs and a fill, maybe again with
  // the light members' arcs, and the exact flow on every arc when the fill gets stuck.
  if (placeSparse(X)) return true;
  if (fLightIn == 0 && sparseArcs(a, true) > 0 && fLightIn > 0 && placeSparse(X)) return true;
  fSparse = 0;
  return flowRun(X);
}

/** The sparse flow and the fill; false (and no extra taken) when the fill gets stuck. */
function placeSparse(X: i32): bool {
  fSparse = 1;
  flowArrays();
  const all = takeUseful();
  if (all && completeExtras()) return true;
  if (all || !sameGain()) {
    clearExtras();
    flowArrays();
  }
  flowRunWhileFree(X);
  if (completeExtras()) return true;
  clearExtras();
  return false;
}

function clearExtras(): void {
  for (let k = 0; k < fT; k++) memory.fill(fX + (<usize>ld(fBase, k) << 2), 0, <usize>fS << 2);
}

/** Useful extras, greedily (takeUseful in the reference); true when it took them all. */
function takeUseful(): bool {
  const T = fT;
  const lo = fLo;
  let all = true;
  for (let k = 0; k < T; k++) {
    const b = ld(fBase, k);
    const r = ld(fR, k);
    for (let a = ld(fTopicStart, k); a < ld(fTopicStart, k + 1); a++) {
      const j = ld(fTopicMember, a);
      if (ld(fGain, b + j) == 0) continue;
      if (ld(fSt, k) < r && ld(fMs, j) < lo) inc(fMs, j);
      else if (ld(fSt, k) < r && ld(fMb, j) == 0 && fBz < fRb) {
        st(fMb, j, 1);
        fBz++;
      } else {
        all = false;
        continue;
      }
      st(fX, b + j, 1);
      inc(fSt, k);
    }
  }
  return all;
}

/** True when every useful extra of the class saves the same. */
function sameGain(): bool {
  let g = 0;
  for (let k = 0; k < fT; k++) {
    const b = ld(fBase, k);
    for (let a = ld(fTopicStart, k); a < ld(fTopicStart, k + 1); a++) {
      const v = ld(fGain, b + ld(fTopicMember, a));
      if (v == 0) continue;
      if (g != 0 && v != g) return false;
      g = v;
    }
  }
  return true;
}

/**
 * The sparse graph of the class cByClass[a ..) (sparseArcs in the reference), fLightIn the light
 * members it has; returns its arcs, 0 when no extra saves anything.
 */
function sparseArcs(a: i32, allLight: bool): i32 {
  const T = fT;
  const S = fS;
  const mark = scratch(S, -1);
  const useful = scratch(S, 0);
  const usefulStart = scratch(T + 1, 0);
  let items = 0;
  for (let k = 0; k < T; k++) {
    const t = ld(cByClass, a + k);
    items += ld(gItemStart, t + 1) - ld(gItemStart, t);
  }
  const usefulMember = scratch(items, 0);
  let nu = 0;
  for (let k = 0; k < T; k++) {
    const t = ld(cByClass, a + k);
    const b = ld(fBase, k);
    for (let i = ld(gItemStart, t); i < ld(gItemStart, t + 1); i++) {
      const slot = ld(qItemSlot, i);
      if (slot < 0 || ld(fGain, slot) == 0 || ld(mark, slot - b) == k) continue;
      st(mark, slot - b, k);
      st(usefulMember, nu++, slot - b);
      inc(useful, slot - b);
    }
    st(usefulStart, k + 1, nu);
  }
  if (nu == 0) return 0;
  const light = scratch(S, 0);
  let nl = 0;
  for (let j = 0; j < S; j++) if (ld(useful, j) < fLo) st(light, nl++, j);
  if (!allLight && <i64>T * <i64>nl > <i64>nu) nl = 0;
  fLightIn = nl;
  fTopicStart = scratch(T + 1, 0);
  fTopicMember = scratch(nu + T * nl, 0);
  fMemberStart = scratch(S + 1, 0);
  let at = 0;
  for (let k = 0; k < T; k++) {
    for (let e = ld(usefulStart, k); e < ld(usefulStart, k + 1); e++) {
      const j = ld(usefulMember, e);
      st(fTopicMember, at++, j);
      st(mark, j, T + k); // useful in k, for the light members' pass
    }
    for (let e = 0; e < nl; e++) {
      const j = ld(light, e);
      if (ld(mark, j) != T + k) st(fTopicMember, at++, j);
    }
    st(fTopicStart, k + 1, at);
  }
  for (let e = 0; e < at; e++) inc(fMemberStart, ld(fTopicMember, e) + 1);
  for (let j = 0; j < S; j++) st(fMemberStart, j + 1, ld(fMemberStart, j + 1) + ld(fMemberStart, j));
  fMemberTopic = scratch(at, 0);
  const fill = scratch(S, 0);
  for (let j = 0; j < S; j++) st(fill, j, ld(fMemberStart, j));
  for (let k = 0; k < T; k++) {
    for (let e = ld(fTopicStart, k); e < ld(fTopicStart, k + 1); e++) {
      const j = ld(fTopicMember, e);
      st(fMemberTopic, ld(fill, j), k);
      inc(fill, j);
    }
  }
  return at;
}

/** No extra saves anything: deal them round-robin (each topic's to distinct members). */
function dealRoundRobin(): void {
  let cursor = 0;
  for (let k = 0; k < fT; k++) {
    for (let e = 0; e < ld(fR, k); e++) {
      st(fX, ld(fBase, k) + cursor, 1);
      cursor = cursor + 1 == fS ? 0 : cursor + 1;
    }
  }
}

// Need buckets (NeedBuckets in the reference): members by the extras they still must take.
let nHead: usize = 0;
let nTail: usize = 0;
let nNext: usize = 0;
let nPrev: usize = 0;
let nNeed: usize = 0;

function needAppend(j: i32, b: i32): void {
  st(nNeed, j, b);
  st(nNext, j, -1);
  const t = ld(nTail, b);
  st(nPrev, j, t);
  if (t >= 0) st(nNext, t, j);
  else st(nHead, b, j);
  st(nTail, b, j);
}

function needUnlink(j: i32): void {
  const b = ld(nNeed, j);
  const p = ld(nPrev, j);
  const n = ld(nNext, j);
  if (p >= 0) st(nNext, p, n);
  else st(nHead, b, n);
  if (n >= 0) st(nPrev, n, p);
  else st(nTail, b, p);
}

/** Fills the extras the sparse flow left (completeExtras in the reference). */
function completeExtras(): bool {
  const S = fS;
  nHead = scratch(fLo + 1, -1);
  nTail = scratch(fLo + 1, -1);
  nNext = scratch(S, 0);
  nPrev = scratch(S, 0);
  nNeed = scratch(S, 0);
  let top = fLo;
  let needLeft = 0;
  for (let j = 0; j < S; j++) {
    const need = fLo - ld(fMs, j);
    needLeft += need;
    if (need > 0 || ld(fMb, j) == 0) needAppend(j, need);
  }
  let bonusLeft = fRb - fBz;
  const stamp = scratch(S, -1);
  const picked = scratch(S, 0);
  for (let k = 0; k < fT; k++) {
    const want = ld(fR, k) - ld(fSt, k);
    if (want == 0) continue;
    const bk = ld(fBase, k);
    for (let a = ld(fTopicStart, k); a < ld(fTopicStart, k + 1); a++) {
      const j = ld(fTopicMember, a);
      if (ld(fX, bk + j) == 1) st(stamp, j, k);
    }
    let n = 0;
    while (top > 0 && ld(nHead, top) == -1) top--;
    for (let b = top; b >= 0 && n < want; b--) {
      for (let j = ld(nHead, b); j >= 0 && n < want && (b > 0 || bonusLeft > 0); j = ld(nNext, j)) {
        if (ld(stamp, j) == k) continue;
        st(stamp, j, k);
        st(picked, n++, j);
        if (b == 0) bonusLeft--;
      }
    }
    if (n < want) return false;
    for (let e = 0; e < n; e++) {
      const j = ld(picked, e);
      const b = ld(nNeed, j);
      st(fX, bk + j, 1);
      needUnlink(j);
      if (b == 0) continue;
      needLeft--;
      if (b > 1 || ld(fMb, j) == 0) needAppend(j, b - 1);
    }
  }
  return needLeft == 0 && bonusLeft == 0;
}

function widest(start: usize): i32 {
  let max = 0;
  for (let t = 0; t < gT; t++) {
    const n = ld(start, t + 1) - ld(start, t);
    if (n > max) max = n;
  }
  return max;
}

/** 2b. Other topics. */
function extrasOfOtherTopics(): void {
  const T = gT;
  const extrasSoFar = scratch(gM, 0);
  const maxS = widest(gSubStart);
  const candUseful = scratch(maxS, 0);
  const candOther = scratch(maxS, 0);
  const chosen = scratch(maxS, 0);
  const hist = scratch(T + 1, 0);
  for (let t = 0; t < T; t++) {
    if (ld(qInFlow, t) == 1 || ld(qRem, t) == 0) continue;
    const s0 = ld(gSubStart, t);
    const S = ld(gSubStart, t + 1) - s0;
    let nu = 0;
    let no = 0;
    for (let j = 0; j < S; j++) {
      if (ld(qGain, s0 + j) > 0) st(candUseful, nu++, j);
      else st(candOther, no++, j);
    }
    const members = subscribersOf(t);
    lKey = extrasSoFar;
    lMembers = members;
    lHist = hist;
    lOut = chosen;
    lLen = 0;
    takeLowest(candUseful, nu, ld(qRem, t));
    takeLowest(candOther, no, ld(qRem, t) - lLen);
    const len = lLen;
    for (let k = 0; k < len; k++) {
      st(qExtra, s0 + ld(chosen, k), 1);
      inc(extrasSoFar, ld(members, ld(chosen, k)));
    }
  }
}

/** 3. Keep, in topic t. */
function keepHeld(t: i32): void {
  const itemStart = gItemStart;
  const owner = gOwner;
  const itemSlot = qItemSlot;
  const kept = qKept;
  const extra = qExtra;
  const memberRack = gMemberRack;
  const quota = ld(qFloor, t);
  const s0 = ld(gSubStart, t);
  const subs = subscribersOf(t);
  for (let pass = gRackCount > 0 ? 0 : 1; pass < 2; pass++) {
    for (let i = ld(itemStart, t); i < ld(itemStart, t + 1); i++) {
      const slot = ld(itemSlot, i);
      if (slot < 0 || ld(owner, i) >= 0) continue;
      const m = ld(subs, slot - s0);
      if (pass == 0 && !hasRack(i, ld(memberRack, m))) continue;
      if (ld(kept, slot - s0) < quota + ld(extra, slot)) {
        st(owner, i, m);
        inc(kept, slot - s0);
      }
    }
  }
}

// Scratch of step 4 (see Placement in the reference).
let wFree: usize = 0;
let wNf: i32 = 0;
let wRoomy: usize = 0; // the current topic's subscriber positions with room, ascending
let wNr: i32 = 0;
let wOrder: usize = 0;
let wCandCount: usize = 0;
let wByCount: usize = 0;
let wRackHead: usize = 0;
let wRackEnd: usize = 0;
let wRackCnt: usize = 0;
let wRackMembers: usize = 0;
let wBucket: usize = 0;

/** 3 and 4, topic by topic (held, kept and room are per position in the current topic). */
function keepAndPlace(): void {
  const T = gT;
  const maxN = widest(gItemStart);
  const maxS = widest(gSubStart);
  wFree = scratch(maxN, 0);
  wRoomy = scratch(maxS, 0);
  wOrder = scratch(maxN, 0);
  wCandCount = scratch(maxN, 0);
  wByCount = scratch(maxN, 0);
  wRackHead = scratch(gRackCount, -1);
  wRackEnd = scratch(gRackCount, 0);
  wRackCnt = scratch(gRackCount, 0);
  wRackMembers = scratch(maxS, 0);
  wBucket = scratch(maxS + 2, 0);
  for (let t = 0; t < T; t++) {
    const s0 = ld(gSubStart, t);
    if (ld(gSubStart, t + 1) == s0) continue;
    keepHeld(t);
    if (placeFree(t)) continue; // roomOf cleared kept
    for (let i = ld(gItemStart, t); i < ld(gItemStart, t + 1); i++) if (ld(qItemSlot, i) >= 0) st(qKept, ld(qItemSlot, i) - s0, 0);
  }
}

/** 4. Place topic t's free items; false when it had none. */
function placeFree(t: i32): bool {
  const owner = gOwner;
  let nf = 0;
  for (let i = ld(gItemStart, t); i < ld(gItemStart, t + 1); i++) if (ld(owner, i) < 0) st(wFree, nf++, i);
  wNf = nf;
  if (nf == 0) return false; // the topics with nothing free cost no pass over their subscribers
  roomOf(t);
  if (gNSoft > 0) {
    indexSubscribers(t);
    placeWithSoftOwners(t);
  }
  if (bucketRackMembers(t) > 0) placeByRack(t);
  placeRest(t);
  return true;
}

/** Topic t's room per subscriber, and the positions that have some. */
function roomOf(t: i32): void {
  const s0 = ld(gSubStart, t);
  const S = ld(gSubStart, t + 1) - s0;
  const floor = ld(qFloor, t);
  const room = qRoom;
  const extra = qExtra;
  const kept = qKept;
  const roomy = wRoomy;
  let nr = 0;
  for (let j = 0; j < S; j++) {
    const r = floor + ld(extra, s0 + j) - ld(kept, j);
    st(room, j, r);
    st(kept, j, 0);
    if (r > 0) st(roomy, nr++, j);
  }
  wNr = nr;
}

/** 4a. Soft owners. */
function placeWithSoftOwners(t: i32): void {
  const s0 = ld(gSubStart, t);
  for (let k = 0; k < wNf; k++) {
    const i = ld(wFree, k);
    const m = ld(gSoftOwner, i);
    if (m >= 0 && m < gM && ld(qPosTopic, m) == ld(gSubList, t) && ld(qRoom, ld(qPosOf, m)) > 0) {
      st(gOwner, i, m);
      dec(qRoom, ld(qPosOf, m));
    }
  }
}

/** 4b, first half: members with room by rack. */
function bucketRackMembers(t: i32): i32 {
  const rackCount = gRackCount;
  const memberRack = gMemberRack;
  const subs = subscribersOf(t);
  const roomy = wRoomy;
  const nr = wNr;
  let racked = 0;
  for (let k = 0; k < nr; k++) {
    const rk = ld(memberRack, ld(subs, ld(roomy, k)));
    if (rk >= 0 && rk < rackCount) st(wRackCnt, rk, 0);
  }
  for (let k = 0; k < nr; k++) {
    const j = ld(roomy, k);
    const rk = ld(memberRack, ld(subs, j));
    if (rk >= 0 && rk < rackCount && ld(qRoom, j) > 0) {
      inc(wRackCnt, rk);
      racked++;
    }
  }
  if (racked == 0) return 0;
  let at = 0;
  for (let k = 0; k < nr; k++) {
    const j = ld(roomy, k);
    const rk = ld(memberRack, ld(subs, j));
    if (rk >= 0 && rk < rackCount && ld(qRoom, j) > 0) {
      if (ld(wRackHead, rk) < 0) {
        st(wRackHead, rk, at);
        st(wRackEnd, rk, at);
        at += ld(wRackCnt, rk);
      }
      st(wRackMembers, ld(wRackEnd, rk), j);
      inc(wRackEnd, rk);
    }
  }
  return racked;
}

/** 4b. Racks. */
function placeByRack(t: i32): void {
  const subs = subscribersOf(t);
  const rackCount = gRackCount;
  const rackStart = gRackStart;
  const racks = gRacks;
  const rackHead = wRackHead;
  const rackEnd = wRackEnd;
  const nc = itemsByRackCandidates();
  for (let k = 0; k < nc; k++) {
    const i = ld(wByCount, k);
    for (let q = ld(rackStart, i); q < ld(rackStart, i + 1); q++) {
      const rk = ld(racks, q);
      if (rk < 0 || rk >= rackCount || ld(rackHead, rk) < 0) continue;
      while (ld(rackHead, rk) < ld(rackEnd, rk) && ld(qRoom, ld(wRackMembers, ld(rackHead, rk))) == 0) inc(rackHead, rk);
      if (ld(rackHead, rk) < ld(rackEnd, rk)) {
        const j = ld(wRackMembers, ld(rackHead, rk));
        st(gOwner, i, ld(subs, j));
        dec(qRoom, j);
        break;
      }
    }
  }
  for (let k = 0; k < wNr; k++) {
    const rk = ld(gMemberRack, ld(subs, ld(wRoomy, k)));
    if (rk >= 0 && rk < rackCount) st(rackHead, rk, -1);
  }
}

function itemsByRackCandidates(): i32 {
  const rackCount = gRackCount;
  const rackStart = gRackStart;
  const racks = gRacks;
  let nc = 0;
  let maxC = 0;
  for (let k = 0; k < wNf; k++) {
    const i = ld(wFree, k);
    if (ld(gOwner, i) >= 0) continue;
    let c = 0;
    for (let q = ld(rackStart, i); q < ld(rackStart, i + 1); q++) {
      const rk = ld(racks, q);
      if (rk >= 0 && rk < rackCount && ld(wRackHead, rk) >= 0) c += ld(wRackCnt, rk);
    }
    if (c > 0) {
      st(wCandCount, nc, c);
      st(wOrder, nc++, i);
      if (c > maxC) maxC = c;
    }
  }
  for (let c = 0; c < maxC + 2; c++) st(wBucket, c, 0);
  for (let k = 0; k < nc; k++) inc(wBucket, ld(wCandCount, k) + 1);
  for (let c = 0; c <= maxC; c++) st(wBucket, c + 1, ld(wBucket, c + 1) + ld(wBucket, c));
  for (let k = 0; k < nc; k++) {
    const c = ld(wCandCount, k);
    st(wByCount, ld(wBucket, c), ld(wOrder, k));
    inc(wBucket, c);
  }
  return nc;
}

/** 4c. The rest. */
function placeRest(t: i32): void {
  const owner = gOwner;
  const room = qRoom;
  const subs = subscribersOf(t);
  const roomy = wRoomy;
  let at = 0;
  for (let k = 0; k < wNf; k++) {
    const i = ld(wFree, k);
    if (ld(owner, i) >= 0) continue;
    while (ld(room, ld(roomy, at)) == 0) at++;
    const j = ld(roomy, at);
    st(owner, i, ld(subs, j));
    dec(room, j);
  }
}
