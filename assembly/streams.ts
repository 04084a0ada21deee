// The active tasks of a Kafka Streams group (issue 31): the AssemblyScript twin of
// src/engine/reference/streams.ts (read that file for the why), step for step. One entry,
// streamsActives(header): the header's layout is STREAMS_HEADER in src/engine/abi.ts. Every array
// is i32 in linear memory (warmOffset i64); the tables are module globals (one call at a time).
import { ld, st, inc, scratch } from './mem';

const H_PROCESSES = 0;
const H_MEMBERS = 4;
const H_TASKS = 8;
const H_PROCESS_START = 12;
const H_CLAIM_START = 16;
const H_CLAIMS = 20;
const H_WARM_START = 24;
const H_WARM_MEMBER = 28;
const H_WARM_STANDBY = 32;
const H_WARM_OFFSET = 36;
const H_OUT_OWNER = 40;

// The problem (index spaces: m member, q process, t task).
let P: i32 = 0;
let M: i32 = 0;
let T: i32 = 0;
let processStart: usize = 0;
let claimStart: usize = 0;
let claims: usize = 0;
let warmStart: usize = 0;
let warmMember: usize = 0;
let warmStandby: usize = 0;
let warmOffset: usize = 0;

// The state of the call.
let processOf: usize = 0;
let prev: usize = 0;
let owner: usize = 0;
let count: usize = 0;
let up: usize = 0;
let processCount: usize = 0;
let base: i32 = 0;
let spare: i32 = 0;

export function streamsActives(h: usize): i32 {
  P = ld(h, H_PROCESSES >> 2);
  M = ld(h, H_MEMBERS >> 2);
  T = ld(h, H_TASKS >> 2);
  processStart = <usize>ld(h, H_PROCESS_START >> 2);
  claimStart = <usize>ld(h, H_CLAIM_START >> 2);
  claims = <usize>ld(h, H_CLAIMS >> 2);
  warmStart = <usize>ld(h, H_WARM_START >> 2);
  warmMember = <usize>ld(h, H_WARM_MEMBER >> 2);
  warmStandby = <usize>ld(h, H_WARM_STANDBY >> 2);
  warmOffset = <usize>ld(h, H_WARM_OFFSET >> 2);
  owner = <usize>ld(h, H_OUT_OWNER >> 2);
  for (let t = 0; t < T; t++) st(owner, t, -1);
  if (M == 0) return 0;
  processOf = scratch(M, 0);
  prev = scratch(T, -1);
  count = scratch(M, 0);
  up = scratch(M, 0);
  processCount = scratch(P, 0);
  base = T / M;
  spare = T % M;
  for (let q = 0; q < P; q++) for (let m = ld(processStart, q); m < ld(processStart, q + 1); m++) st(processOf, m, q);
  previousOwners();
  ceilQuotas();
  for (let t = 0; t < T; t++) if (ld(prev, t) >= 0 && hasRoom(ld(prev, t))) give(t, ld(prev, t));
  for (let t = 0; t < T; t++) if (ld(owner, t) < 0 && ld(prev, t) >= 0) giveInProcess(t, ld(processOf, ld(prev, t)));
  for (let t = 0; t < T; t++) if (ld(owner, t) < 0) giveWarm(t);
  return giveRest();
}

function previousOwners(): void {
  for (let m = 0; m < M; m++) {
    for (let k = ld(claimStart, m); k < ld(claimStart, m + 1); k++) {
      const t = ld(claims, k);
      if (ld(prev, t) < 0) st(prev, t, m);
    }
  }
}

function ceilQuotas(): void {
  const held = scratch(M, 0);
  for (let t = 0; t < T; t++) if (ld(prev, t) >= 0) inc(held, ld(prev, t));
  const room = scratch(P, 0);
  for (let m = 0; m < M; m++) st(room, ld(processOf, m), ld(room, ld(processOf, m)) + ld(held, m));
  for (let q = 0; q < P; q++) {
    const r = min(ld(room, q) - size(q) * base, size(q));
    st(room, q, r > 0 ? r : 0);
  }
  const order = byHeld(held);
  for (let k = 0; k < M && spare > 0; k++) {
    const m = ld(order, k);
    if (ld(held, m) > base && ld(room, ld(processOf, m)) > 0) raise(m, room);
  }
  for (let k = 0; k < M && spare > 0; k++) {
    const m = ld(order, k);
    if (ld(up, m) == 0 && ld(room, ld(processOf, m)) > 0) raise(m, room);
  }
  for (let k = 0; k < M && spare > 0; k++) {
    const m = ld(order, k);
    if (ld(up, m) == 0 && ld(held, m) > base) raise(m, room);
  }
}

function raise(m: i32, room: usize): void {
  st(up, m, 1);
  spare--;
  const q = ld(processOf, m);
  st(room, q, ld(room, q) - 1);
}

function size(q: i32): i32 {
  return ld(processStart, q + 1) - ld(processStart, q);
}

function byHeld(held: usize): usize {
  let most = 0;
  for (let m = 0; m < M; m++) if (ld(held, m) > most) most = ld(held, m);
  const start = scratch(most + 2, 0);
  for (let m = 0; m < M; m++) inc(start, most - ld(held, m) + 1);
  for (let b = 0; b <= most; b++) st(start, b + 1, ld(start, b + 1) + ld(start, b));
  const order = scratch(M, 0);
  for (let m = 0; m < M; m++) {
    const b = most - ld(held, m);
    st(order, ld(start, b), m);
    inc(start, b);
  }
  return order;
}

function hasRoom(m: i32): bool {
  const c = ld(count, m);
  const u = ld(up, m);
  return c < base + u || (c == base && u == 0 && spare > 0);
}

function give(t: i32, m: i32): void {
  if (ld(count, m) == base && ld(up, m) == 0) {
    st(up, m, 1);
    spare--;
  }
  inc(count, m);
  inc(processCount, ld(processOf, m));
  st(owner, t, m);
}

function roomiest(q: i32): i32 {
  let best = -1;
  for (let m = ld(processStart, q); m < ld(processStart, q + 1); m++) {
    if (hasRoom(m) && (best < 0 || ld(count, m) < ld(count, best))) best = m;
  }
  return best;
}

function giveInProcess(t: i32, q: i32): void {
  const m = roomiest(q);
  if (m >= 0) give(t, m);
}

function giveWarm(t: i32): void {
  let best = -1;
  for (let k = ld(warmStart, t); k < ld(warmStart, t + 1); k++) {
    if (!hasRoom(ld(warmMember, k))) continue;
    if (best < 0 || warmBefore(k, best)) best = k;
  }
  if (best >= 0) give(t, ld(warmMember, best));
}

function warmBefore(k: i32, j: i32): bool {
  const sk = ld(warmStandby, k);
  const sj = ld(warmStandby, j);
  if (sk != sj) return sk > sj;
  const ok = load<i64>(warmOffset + (<usize>k << 3));
  const oj = load<i64>(warmOffset + (<usize>j << 3));
  if (ok != oj) return ok > oj;
  return ld(warmMember, k) < ld(warmMember, j);
}

/** 0, or 1 when no member has room (a bug: the quotas add up to the task count). */
function giveRest(): i32 {
  const heap = scratch(P, 0);
  for (let q = 0; q < P; q++) st(heap, q, q);
  let size = P;
  for (let i = (P >> 1) - 1; i >= 0; i--) siftDown(heap, size, i);
  for (let t = 0; t < T; t++) {
    if (ld(owner, t) >= 0) continue;
    let m = -1;
    while (size > 0) {
      m = roomiest(ld(heap, 0));
      if (m >= 0) break;
      size--;
      st(heap, 0, ld(heap, size));
      siftDown(heap, size, 0);
    }
    if (m < 0) return 1;
    give(t, m);
    siftDown(heap, size, 0);
  }
  return 0;
}

function lighter(q: i32, r: i32): bool {
  const lq = <i64>ld(processCount, q) * <i64>size(r);
  const lr = <i64>ld(processCount, r) * <i64>size(q);
  return lq < lr || (lq == lr && q < r);
}

function siftDown(heap: usize, size: i32, i: i32): void {
  for (;;) {
    const l = 2 * i + 1;
    if (l >= size) return;
    let c = l;
    if (l + 1 < size && lighter(ld(heap, l + 1), ld(heap, l))) c = l + 1;
    if (!lighter(ld(heap, c), ld(heap, i))) return;
    const v = ld(heap, c);
    st(heap, c, ld(heap, i));
    st(heap, i, v);
    i = c;
  }
}
