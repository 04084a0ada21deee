// Consumer-group balancing kernel (issue 9): the AssemblyScript twin of
// src/engine/reference/group.ts, line for line where possible (read that file for the why).
// Pointer ABI: every array is i32 in linear memory; scratch comes from the arena (reset per
// call) and is initialised here, since the arena is not zeroed.

const INF: i32 = 0x3fffffff;

// @ts-ignore: decorator
@inline function ld(p: usize, i: i32): i32 {
  return load<i32>(p + (<usize>i << 2));
}
// @ts-ignore: decorator
@inline function st(p: usize, i: i32, v: i32): void {
  store<i32>(p + (<usize>i << 2), v);
}
// @ts-ignore: decorator
@inline function inc(p: usize, i: i32): void {
  const a = p + (<usize>i << 2);
  store<i32>(a, load<i32>(a) + 1);
}
// @ts-ignore: decorator
@inline function dec(p: usize, i: i32): void {
  const a = p + (<usize>i << 2);
  store<i32>(a, load<i32>(a) - 1);
}

function scratch(n: i32, fill: i32): usize {
  const m: i32 = n > 0 ? n : 1;
  const bytes = <usize>m << 2;
  const p = heap.alloc(bytes);
  if (fill == 0) memory.fill(p, 0, bytes);
  else for (let i = 0; i < m; i++) st(p, i, fill);
  return p;
}

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

function arcCount(u: i32): i32 {
  if (u == 0) return fT;
  if (u <= fT) return fS;
  if (u <= fT + fS) return 2 + fT;
  if (u == fBonus) return 1 + fS;
  return 0;
}

function arcHead(u: i32, a: i32): i32 {
  if (u == 0) return ld(fSt, a) < ld(fR, a) ? 1 + a : -1;
  if (u <= fT) return ld(fX, ld(fBase, u - 1) + a) == 0 ? 1 + fT + a : -1;
  if (u <= fT + fS) {
    const j = u - 1 - fT;
    if (a == 0) return ld(fMs, j) < fLo ? fSink : -1;
    if (a == 1) return ld(fMb, j) == 0 ? fBonus : -1;
    return ld(fX, ld(fBase, a - 2) + j) == 1 ? 1 + (a - 2) : -1;
  }
  if (u == fBonus) {
    if (a == 0) return fBz < fRb ? fSink : -1;
    return ld(fMb, a - 1) == 1 ? 1 + fT + (a - 1) : -1;
  }
  return -1;
}

function arcCost(u: i32, a: i32): i32 {
  if (u >= 1 && u <= fT) return -ld(fGain, ld(fBase, u - 1) + a);
  if (u > fT && u <= fT + fS && a >= 2) return ld(fGain, ld(fBase, a - 2) + (u - 1 - fT));
  return 0;
}

function pushArc(u: i32, a: i32): void {
  if (u == 0) inc(fSt, a);
  else if (u <= fT) st(fX, ld(fBase, u - 1) + a, 1);
  else if (u <= fT + fS) {
    const j = u - 1 - fT;
    if (a == 0) inc(fMs, j);
    else if (a == 1) st(fMb, j, 1);
    else st(fX, ld(fBase, a - 2) + j, 0);
  } else if (a == 0) fBz++;
  else st(fMb, a - 1, 0);
}

function initPotentials(): void {
  let minMember = 0;
  for (let j = 0; j < fS; j++) {
    let best = 0;
    for (let i = 0; i < fT; i++) {
      const g = ld(fGain, ld(fBase, i) + j);
      if (-g < best) best = -g;
    }
    st(fPot, 1 + fT + j, best);
    if (best < minMember) minMember = best;
  }
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

/** Runs the extras flow of one class; false when it cannot place every extra (a bug). */
function runFlow(T: i32, S: i32, base: usize, r: usize, lo: i32, R: i32, gain: usize, x: usize, total: i32): bool {
  fT = T;
  fS = S;
  fBase = base;
  fR = r;
  fLo = lo;
  fRb = R;
  fGain = gain;
  fX = x;
  fV = 3 + T + S;
  fBonus = 1 + T + S;
  fSink = 2 + T + S;
  fSt = scratch(T, 0);
  fMs = scratch(S, 0);
  fMb = scratch(S, 0);
  fBz = 0;
  fPot = scratch(fV, 0);
  fDist = scratch(fV, 0);
  fLevel = scratch(fV, 0);
  fCur = scratch(fV, 0);
  fDone = scratch(fV, 0);
  // Lazy Dijkstra pushes at most once per relaxed arc, plus the source.
  const arcs = T + 2 * T * S + 3 * S + 2;
  fHeapD = scratch(arcs, 0);
  fHeapV = scratch(arcs, 0);
  const queue = scratch(fV, 0);
  const stack = scratch(fV + 1, 0);
  initPotentials();
  let flow = 0;
  while (flow < total) {
    if (!dijkstra()) return false;
    while (flow < total && levels(queue)) flow += blocking(stack);
  }
  return true;
}

// ---------------------------------------------------------------- the rest of the assignment

function takeLowest(cand: usize, count: i32, key: usize, members: usize, need: i32, hist: usize, out: usize, outLen: i32): i32 {
  if (need <= 0) return outLen;
  if (need >= count) {
    for (let k = 0; k < count; k++) st(out, outLen++, ld(cand, k));
    return outLen;
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
  return outLen;
}

function hasRack(rackStart: usize, racks: usize, item: i32, rack: i32): bool {
  if (rack < 0) return false;
  for (let k = ld(rackStart, item); k < ld(rackStart, item + 1); k++) if (ld(racks, k) == rack) return true;
  return false;
}

/**
 * owner (N i32): the member of every item, -1 for topics without subscribers.
 * Returns 0, or 1 when an extras flow could not be completed (a broken invariant).
 */
export function groupAssign(
  M: i32, T: i32, N: i32, rackCount: i32,
  memberRack: usize, topicClass: usize, topicWeight: usize,
  subStart: usize, subs: usize, itemStart: usize,
  prevOwner: usize, softOwner: usize, nSoft: i32, rackStart: usize, racks: usize,
  owner: usize,
): i32 {
  const P = ld(subStart, T);
  for (let i = 0; i < N; i++) st(owner, i, -1);
  const held = scratch(P, 0);
  const extra = scratch(P, 0);
  const gain = scratch(P, 0);
  const itemSlot = scratch(N, -1);
  const posOf = scratch(M, 0);
  const posTopic = scratch(M, -1);
  const floor = scratch(T, 0);
  const rem = scratch(T, 0);

  // 1. Held items per slot; quotas; gains.
  for (let t = 0; t < T; t++) {
    const s0 = ld(subStart, t);
    const S = ld(subStart, t + 1) - s0;
    for (let j = 0; j < S; j++) {
      st(posOf, ld(subs, s0 + j), j);
      st(posTopic, ld(subs, s0 + j), t);
    }
    for (let i = ld(itemStart, t); i < ld(itemStart, t + 1); i++) {
      const m = ld(prevOwner, i);
      if (m >= 0 && m < M && ld(posTopic, m) == t) {
        st(itemSlot, i, s0 + ld(posOf, m));
        inc(held, s0 + ld(posOf, m));
      }
    }
    if (S == 0) continue;
    const n = ld(itemStart, t + 1) - ld(itemStart, t);
    st(floor, t, n / S);
    st(rem, t, n % S);
    for (let j = 0; j < S; j++) if (ld(held, s0 + j) > ld(floor, t)) st(gain, s0 + j, ld(topicWeight, t));
  }

  // 2a. Balanced classes.
  const classCount = scratch(T + 1, 0);
  for (let t = 0; t < T; t++) {
    const c = ld(topicClass, t);
    if (c >= 0 && c < T) inc(classCount, c + 1);
  }
  for (let c = 0; c < T; c++) st(classCount, c + 1, ld(classCount, c + 1) + ld(classCount, c));
  const byClass = scratch(ld(classCount, T), 0);
  const fillAt = scratch(T, 0);
  for (let c = 0; c < T; c++) st(fillAt, c, ld(classCount, c));
  for (let t = 0; t < T; t++) {
    const c = ld(topicClass, t);
    if (c >= 0 && c < T) {
      st(byClass, ld(fillAt, c), t);
      inc(fillAt, c);
    }
  }
  const inFlow = scratch(T, 0);
  for (let c = 0; c < T; c++) {
    const a = ld(classCount, c);
    const b = ld(classCount, c + 1);
    if (b == a) continue;
    const t0 = ld(byClass, a);
    const S = ld(subStart, t0 + 1) - ld(subStart, t0);
    let same = S > 0;
    for (let k = a + 1; k < b && same; k++) {
      const t = ld(byClass, k);
      if (ld(subStart, t + 1) - ld(subStart, t) != S) same = false;
      else for (let j = 0; j < S && same; j++) if (ld(subs, ld(subStart, t) + j) != ld(subs, ld(subStart, t0) + j)) same = false;
    }
    if (!same) continue;
    const Tc = b - a;
    const base = scratch(Tc, 0);
    const r = scratch(Tc, 0);
    let X = 0;
    for (let k = 0; k < Tc; k++) {
      const t = ld(byClass, a + k);
      st(base, k, ld(subStart, t));
      st(r, k, ld(rem, t));
      X += ld(rem, t);
      st(inFlow, t, 1);
    }
    if (X == 0) continue;
    let anyGain = false;
    for (let k = 0; k < Tc && !anyGain; k++) for (let j = 0; j < S; j++) if (ld(gain, ld(base, k) + j) > 0) anyGain = true;
    if (anyGain) {
      if (!runFlow(Tc, S, base, r, X / S, X % S, gain, extra, X)) return 1;
      continue;
    }
    let cursor = 0;
    for (let k = 0; k < Tc; k++) {
      for (let q = 0; q < ld(r, k); q++) {
        st(extra, ld(base, k) + cursor, 1);
        cursor = cursor + 1 == S ? 0 : cursor + 1;
      }
    }
  }

  // 2b. Other topics.
  const extrasSoFar = scratch(M, 0);
  let maxS = 0;
  for (let t = 0; t < T; t++) {
    const S = ld(subStart, t + 1) - ld(subStart, t);
    if (S > maxS) maxS = S;
  }
  const candUseful = scratch(maxS, 0);
  const candOther = scratch(maxS, 0);
  const chosen = scratch(maxS, 0);
  const hist = scratch(T + 1, 0);
  for (let t = 0; t < T; t++) {
    if (ld(inFlow, t) == 1 || ld(rem, t) == 0) continue;
    const s0 = ld(subStart, t);
    const S = ld(subStart, t + 1) - s0;
    let nu = 0;
    let no = 0;
    for (let j = 0; j < S; j++) {
      if (ld(gain, s0 + j) > 0) st(candUseful, nu++, j);
      else st(candOther, no++, j);
    }
    const members = subs + (<usize>s0 << 2);
    let len = takeLowest(candUseful, nu, extrasSoFar, members, ld(rem, t), hist, chosen, 0);
    len = takeLowest(candOther, no, extrasSoFar, members, ld(rem, t) - len, hist, chosen, len);
    for (let k = 0; k < len; k++) {
      st(extra, s0 + ld(chosen, k), 1);
      inc(extrasSoFar, ld(members, ld(chosen, k)));
    }
  }

  // 3. Keep.
  const kept = scratch(P, 0);
  for (let t = 0; t < T; t++) {
    for (let pass = rackCount > 0 ? 0 : 1; pass < 2; pass++) {
      for (let i = ld(itemStart, t); i < ld(itemStart, t + 1); i++) {
        const slot = ld(itemSlot, i);
        if (slot < 0 || ld(owner, i) >= 0) continue;
        const m = ld(subs, slot);
        if (pass == 0 && !hasRack(rackStart, racks, i, ld(memberRack, m))) continue;
        if (ld(kept, slot) < ld(floor, t) + ld(extra, slot)) {
          st(owner, i, m);
          inc(kept, slot);
        }
      }
    }
  }

  // 4. Place free items.
  const room = scratch(P, 0);
  for (let t = 0; t < T; t++) {
    for (let slot = ld(subStart, t); slot < ld(subStart, t + 1); slot++) st(room, slot, ld(floor, t) + ld(extra, slot) - ld(kept, slot));
  }
  let maxN = 0;
  for (let t = 0; t < T; t++) {
    const n = ld(itemStart, t + 1) - ld(itemStart, t);
    if (n > maxN) maxN = n;
  }
  const free = scratch(maxN, 0);
  const order = scratch(maxN, 0);
  const candCount = scratch(maxN, 0);
  const byCount = scratch(maxN, 0);
  const rackHead = scratch(rackCount, -1);
  const rackEnd = scratch(rackCount, 0);
  const rackCnt = scratch(rackCount, 0);
  const rackMembers = scratch(maxS, 0);
  const bucket = scratch(maxS + 2, 0);
  for (let t = 0; t < T; t++) {
    const s0 = ld(subStart, t);
    const S = ld(subStart, t + 1) - s0;
    if (S == 0) continue;
    for (let j = 0; j < S; j++) {
      st(posOf, ld(subs, s0 + j), j);
      st(posTopic, ld(subs, s0 + j), t);
    }
    let nf = 0;
    for (let i = ld(itemStart, t); i < ld(itemStart, t + 1); i++) if (ld(owner, i) < 0) st(free, nf++, i);
    if (nf == 0) continue;

    // 4a. Soft owners.
    for (let k = 0; k < nf && nSoft > 0; k++) {
      const i = ld(free, k);
      const m = ld(softOwner, i);
      if (m >= 0 && m < M && ld(posTopic, m) == t && ld(room, s0 + ld(posOf, m)) > 0) {
        st(owner, i, m);
        dec(room, s0 + ld(posOf, m));
      }
    }

    // 4b. Racks.
    let racked = 0;
    for (let j = 0; j < S; j++) {
      const rk = ld(memberRack, ld(subs, s0 + j));
      if (rk >= 0 && rk < rackCount) st(rackCnt, rk, 0);
    }
    for (let j = 0; j < S; j++) {
      const rk = ld(memberRack, ld(subs, s0 + j));
      if (rk >= 0 && rk < rackCount && ld(room, s0 + j) > 0) {
        inc(rackCnt, rk);
        racked++;
      }
    }
    if (racked > 0) {
      let at = 0;
      for (let j = 0; j < S; j++) {
        const rk = ld(memberRack, ld(subs, s0 + j));
        if (rk >= 0 && rk < rackCount && ld(room, s0 + j) > 0) {
          if (ld(rackHead, rk) < 0) {
            st(rackHead, rk, at);
            st(rackEnd, rk, at);
            at += ld(rackCnt, rk);
          }
          st(rackMembers, ld(rackEnd, rk), j);
          inc(rackEnd, rk);
        }
      }
      let nc = 0;
      let maxC = 0;
      for (let k = 0; k < nf; k++) {
        const i = ld(free, k);
        if (ld(owner, i) >= 0) continue;
        let c = 0;
        for (let q = ld(rackStart, i); q < ld(rackStart, i + 1); q++) {
          const rk = ld(racks, q);
          if (rk >= 0 && rk < rackCount && ld(rackHead, rk) >= 0) c += ld(rackCnt, rk);
        }
        if (c > 0) {
          st(candCount, nc, c);
          st(order, nc++, i);
          if (c > maxC) maxC = c;
        }
      }
      for (let c = 0; c < maxC + 2; c++) st(bucket, c, 0);
      for (let k = 0; k < nc; k++) inc(bucket, ld(candCount, k) + 1);
      for (let c = 0; c <= maxC; c++) st(bucket, c + 1, ld(bucket, c + 1) + ld(bucket, c));
      for (let k = 0; k < nc; k++) {
        const c = ld(candCount, k);
        st(byCount, ld(bucket, c), ld(order, k));
        inc(bucket, c);
      }
      for (let k = 0; k < nc; k++) {
        const i = ld(byCount, k);
        for (let q = ld(rackStart, i); q < ld(rackStart, i + 1); q++) {
          const rk = ld(racks, q);
          if (rk < 0 || rk >= rackCount || ld(rackHead, rk) < 0) continue;
          while (ld(rackHead, rk) < ld(rackEnd, rk) && ld(room, s0 + ld(rackMembers, ld(rackHead, rk))) == 0) inc(rackHead, rk);
          if (ld(rackHead, rk) < ld(rackEnd, rk)) {
            const j = ld(rackMembers, ld(rackHead, rk));
            st(owner, i, ld(subs, s0 + j));
            dec(room, s0 + j);
            break;
          }
        }
      }
      for (let j = 0; j < S; j++) {
        const rk = ld(memberRack, ld(subs, s0 + j));
        if (rk >= 0 && rk < rackCount) st(rackHead, rk, -1);
      }
    }

    // 4c. The rest.
    let j = 0;
    for (let k = 0; k < nf; k++) {
      const i = ld(free, k);
      if (ld(owner, i) >= 0) continue;
      while (ld(room, s0 + j) == 0) j++;
      st(owner, i, ld(subs, s0 + j));
      dec(room, s0 + j);
    }
  }
  return 0;
}
