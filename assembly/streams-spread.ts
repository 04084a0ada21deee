// Standbys moved over the tags (issue 31): the AssemblyScript twin of
// src/engine/reference/streams-spread.ts (read that file for the why), step for step. One entry,
// streamsSpread(header): the header's layout is SPREAD_HEADER in src/engine/abi.ts. It rewrites
// standbyMember and memberLoad in place (the caller's copies in linear memory).
import { ld, st, inc, dec, scratch } from './mem';

const H_PROCESSES = 0;
const H_KEYS = 4;
const H_TASKS = 8;
const H_WIDTH = 12;
const H_PROCESS_START = 16;
const H_PROCESS_VALUES = 20;
const H_MEMBER_LOAD = 24;
const H_ACTIVE_MEMBER = 28;
const H_STANDBY_MEMBER = 32;

let P: i32 = 0;
let K: i32 = 0;
let W: i32 = 0;
let processStart: usize = 0;
let processValues: usize = 0;
let memberLoad: usize = 0;
let activeMember: usize = 0;
let out: usize = 0;

let processOf: usize = 0;
let load: usize = 0;
let now: usize = 0;
let best: usize = 0;
let trial: usize = 0;
let partnerNow: usize = 0;
let partnerAfter: usize = 0;
let distinct: usize = 0;
let G: i32 = 0;
let takers: i32 = 0;
let groupStart: usize = 0;
let groupProcs: usize = 0;
let slotStart: usize = 0;
let slotList: usize = 0;
let slotPos: usize = 0;
let minN: i64 = 0;
let minC: i64 = 1;
let maxN: i64 = 0;
let maxC: i64 = 1;

export function streamsSpread(h: usize): i32 {
  P = ld(h, H_PROCESSES >> 2);
  K = ld(h, H_KEYS >> 2);
  const T = ld(h, H_TASKS >> 2);
  W = ld(h, H_WIDTH >> 2);
  processStart = <usize>ld(h, H_PROCESS_START >> 2);
  processValues = <usize>ld(h, H_PROCESS_VALUES >> 2);
  memberLoad = <usize>ld(h, H_MEMBER_LOAD >> 2);
  activeMember = <usize>ld(h, H_ACTIVE_MEMBER >> 2);
  out = <usize>ld(h, H_STANDBY_MEMBER >> 2);
  const M = ld(processStart, P);
  processOf = scratch(M, 0);
  load = scratch(P, 0);
  now = scratch(K, 0);
  best = scratch(K, 0);
  trial = scratch(K, 0);
  partnerNow = scratch(K, 0);
  partnerAfter = scratch(K, 0);
  slotStart = scratch(P + 1, 0);
  slotPos = scratch(T * W, 0);
  for (let q = 0; q < P; q++) {
    for (let m = ld(processStart, q); m < ld(processStart, q + 1); m++) {
      st(processOf, m, q);
      st(load, q, ld(load, q) + ld(memberLoad, m));
    }
  }
  loadRange();
  takers = 0;
  for (let q = 0; q < P; q++) if (canTake(q)) takers++;
  distinctValues();
  valueGroups();
  for (let t = 0; t < T; t++) while (moveOnce(t));
  indexSlots(T * W);
  for (let t = 0; t < T; t++) while (swapOnce(t));
  return 0;
}

function size(q: i32): i64 {
  return <i64>(ld(processStart, q + 1) - ld(processStart, q));
}

function canTake(q: i32): bool {
  return (<i64>ld(load, q) + 1) * maxC <= maxN * size(q);
}

function loadRange(): void {
  if (P == 0) return;
  minN = maxN = <i64>ld(load, 0);
  minC = maxC = size(0);
  for (let q = 1; q < P; q++) {
    const n = <i64>ld(load, q);
    if (n * minC < minN * size(q)) {
      minN = n;
      minC = size(q);
    }
    if (n * maxC > maxN * size(q)) {
      maxN = n;
      maxC = size(q);
    }
  }
}

function distinctValues(): void {
  distinct = scratch(K, 0);
  let most = -1;
  for (let i = 0; i < P * K; i++) if (ld(processValues, i) > most) most = ld(processValues, i);
  const seen = scratch(most + 1, -1);
  for (let k = 0; k < K; k++) {
    let n = 0;
    for (let q = 0; q < P; q++) {
      const v = ld(processValues, q * K + k);
      if (v >= 0 && ld(seen, v) != k) {
        st(seen, v, k);
        n++;
      }
    }
    st(distinct, k, n);
  }
}

function valueGroups(): void {
  const groupOf = scratch(P, 0);
  const reps = scratch(P, 0);
  G = 0;
  for (let q = 0; q < P; q++) {
    let g = 0;
    while (g < G && !sameValues(ld(reps, g), q)) g++;
    if (g == G) {
      st(reps, G, q);
      G++;
    }
    st(groupOf, q, g);
  }
  groupStart = scratch(G + 1, 0);
  for (let q = 0; q < P; q++) inc(groupStart, ld(groupOf, q) + 1);
  for (let g = 0; g < G; g++) st(groupStart, g + 1, ld(groupStart, g + 1) + ld(groupStart, g));
  groupProcs = scratch(P, 0);
  const at = scratch(G, 0);
  for (let g = 0; g < G; g++) st(at, g, ld(groupStart, g));
  for (let q = 0; q < P; q++) {
    const g = ld(groupOf, q);
    st(groupProcs, ld(at, g), q);
    inc(at, g);
  }
}

function sameValues(a: i32, b: i32): bool {
  for (let k = 0; k < K; k++) if (ld(processValues, a * K + k) != ld(processValues, b * K + k)) return false;
  return true;
}

function widest(x: i32, vec: usize): bool {
  let copies = 1;
  for (let j = 0; j < W; j++) if (ld(out, x * W + j) >= 0) copies++;
  for (let k = 0; k < K; k++) if (ld(vec, k) < min(copies, ld(distinct, k))) return false;
  return true;
}

function copyAt(x: i32, a: i32, j: i32, q: i32): i32 {
  if (a == 0) return ld(processOf, ld(activeMember, x));
  if (a == j + 1) return q;
  const m = ld(out, x * W + a - 1);
  return m < 0 ? -1 : ld(processOf, m);
}

function holds(x: i32, q: i32): bool {
  for (let a = 0; a <= W; a++) if (copyAt(x, a, -1, -1) == q) return true;
  return false;
}

function valueAt(x: i32, a: i32, j: i32, q: i32, k: i32): i32 {
  const qa = copyAt(x, a, j, q);
  return qa < 0 ? -1 : ld(processValues, qa * K + k);
}

function spreadOf(x: i32, j: i32, q: i32, into: usize): void {
  const n = W + 1;
  for (let k = 0; k < K; k++) {
    let distinct = 0;
    for (let a = 0; a < n; a++) {
      const v = valueAt(x, a, j, q, k);
      if (v < 0) continue;
      let seen = false;
      for (let b = 0; b < a && !seen; b++) seen = valueAt(x, b, j, q, k) == v;
      if (!seen) distinct++;
    }
    st(into, k, distinct);
  }
}

function compare(a: usize, b: usize): i32 {
  for (let k = 0; k < K; k++) if (ld(a, k) != ld(b, k)) return ld(a, k) - ld(b, k);
  return 0;
}

function copyKeys(into: usize, from: usize): void {
  memory.copy(into, from, <usize>K << 2);
}

function moveOnce(t: i32): bool {
  if (takers == 0) return false;
  spreadOf(t, -1, -1, now);
  if (widest(t, now)) return false;
  copyKeys(best, now);
  let bestJ = -1;
  let bestQ = -1;
  for (let j = 0; j < W; j++) {
    const from = copyAt(t, j + 1, -1, -1);
    if (from < 0 || (<i64>ld(load, from) - 1) * minC < minN * size(from)) continue;
    for (let g = 0; g < G; g++) {
      spreadOf(t, j, ld(groupProcs, ld(groupStart, g)), trial);
      const d = compare(trial, best);
      if (d < 0 || (d == 0 && bestQ < 0)) continue;
      const q = lightestTaker(t, g);
      if (q < 0) continue;
      const lighter: i64 = bestQ >= 0 ? <i64>ld(load, q) * size(bestQ) - <i64>ld(load, bestQ) * size(q) : -1;
      if (d > 0 || lighter < 0 || (lighter == 0 && j == bestJ && q < bestQ)) {
        copyKeys(best, trial);
        bestJ = j;
        bestQ = q;
      }
    }
  }
  if (bestJ < 0) return false;
  const i = t * W + bestJ;
  const old = ld(out, i);
  const from = ld(processOf, old);
  takers -= <i32>canTake(from) + <i32>canTake(bestQ);
  dec(memberLoad, old);
  dec(load, from);
  let to = ld(processStart, bestQ);
  for (let m = to + 1; m < ld(processStart, bestQ + 1); m++) if (ld(memberLoad, m) < ld(memberLoad, to)) to = m;
  inc(memberLoad, to);
  inc(load, bestQ);
  takers += <i32>canTake(from) + <i32>canTake(bestQ);
  st(out, i, to);
  return true;
}

function lightestTaker(t: i32, g: i32): i32 {
  let q = -1;
  for (let k = ld(groupStart, g); k < ld(groupStart, g + 1); k++) {
    const x = ld(groupProcs, k);
    if (!canTake(x) || holds(t, x)) continue;
    if (q < 0 || <i64>ld(load, x) * size(q) < <i64>ld(load, q) * size(x)) q = x;
  }
  return q;
}

function indexSlots(n: i32): void {
  for (let i = 0; i < n; i++) if (ld(out, i) >= 0) inc(slotStart, ld(processOf, ld(out, i)) + 1);
  for (let q = 0; q < P; q++) st(slotStart, q + 1, ld(slotStart, q + 1) + ld(slotStart, q));
  slotList = scratch(ld(slotStart, P), 0);
  const at = scratch(P, 0);
  for (let q = 0; q < P; q++) st(at, q, ld(slotStart, q));
  for (let i = 0; i < n; i++) {
    if (ld(out, i) < 0) continue;
    const q = ld(processOf, ld(out, i));
    st(slotPos, i, ld(at, q));
    st(slotList, ld(at, q), i);
    inc(at, q);
  }
}

function swapOnce(t: i32): bool {
  spreadOf(t, -1, -1, now);
  if (widest(t, now)) return false;
  copyKeys(best, now);
  let bestJ = -1;
  let bestQ = -1;
  let bestPartner = -1;
  for (let j = 0; j < W; j++) {
    const from = copyAt(t, j + 1, -1, -1);
    if (from < 0) continue;
    for (let g = 0; g < G; g++) {
      spreadOf(t, j, ld(groupProcs, ld(groupStart, g)), trial);
      const d = compare(trial, best);
      if (d <= 0) continue;
      for (let k = ld(groupStart, g); k < ld(groupStart, g + 1); k++) {
        const q = ld(groupProcs, k);
        if (holds(t, q)) continue;
        const partner = partnerOn(q, from);
        if (partner < 0) continue;
        copyKeys(best, trial);
        bestJ = j;
        bestQ = q;
        bestPartner = partner;
        break;
      }
    }
  }
  if (bestJ < 0) return false;
  const bestI = t * W + bestJ;
  const mine = ld(out, bestI);
  st(out, bestI, ld(out, bestPartner));
  st(out, bestPartner, mine);
  const pos = ld(slotPos, bestI);
  st(slotList, pos, bestPartner);
  st(slotList, ld(slotPos, bestPartner), bestI);
  st(slotPos, bestI, ld(slotPos, bestPartner));
  st(slotPos, bestPartner, pos);
  return true;
}

function partnerOn(q: i32, from: i32): i32 {
  for (let k = ld(slotStart, q); k < ld(slotStart, q + 1); k++) {
    const i = ld(slotList, k);
    const u = i / W;
    if (holds(u, from)) continue;
    spreadOf(u, -1, -1, partnerNow);
    spreadOf(u, i - u * W, from, partnerAfter);
    if (compare(partnerAfter, partnerNow) >= 0) return i;
  }
  return -1;
}
