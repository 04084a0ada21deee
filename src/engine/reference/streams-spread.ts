// Standbys moved over the tags (issue 31): the pure-TS twin of assembly/streams-spread.ts. Both are
// written in the same flat, index-based style so they can be read side by side.
//
// From a placement that is the baseline (the broker's own answer), in two passes over the stateful
// tasks, each task improved until it cannot be:
//  1. moves: one standby to another process, keeping both processes inside the baseline's range of
//     loads (tasks per member); of all such moves the one whose copies then span the most values of
//     the first tag key, then the second, ... (ties: the less loaded process, then the lower slot and
//     process index), taken only when strictly better than now. In the process it moves to, the
//     standby goes to the member with the fewest tasks (lowest index).
//  2. swaps, which leave every load as it is: task t's standby on process s trades places with a
//     standby of another task u on process q, when t then spreads strictly more and u no less (the
//     best q for t, then u's first standby there, in slot order); the two members trade tasks.
// A task's spread depends on its own copies only, and no step lowers any task's spread, so no task
// ends worse than the baseline: the promise is per task. Every step raises the sum of the spreads
// (keys weighted by precedence), so both passes end.
import type { StreamsSpreadProblem } from '../abi.js';

/** The state of one call; index spaces: m member, q process, t task, j slot, i = t * W + j. */
interface Spread {
  p: StreamsSpreadProblem;
  /** The answer, standbyMember as it is rewritten. */
  out: Int32Array;
  memberLoad: Int32Array;
  processOf: Int32Array;
  /** Per q: the tasks its members hold. */
  load: Int32Array;
  /** The baseline's least and most load, as fractions (tasks, members). */
  minN: number;
  minC: number;
  maxN: number;
  maxC: number;
  /** Scratch spreads: the task's now, the best found, a trial; and a swap partner's now and after. */
  now: Int32Array;
  best: Int32Array;
  trial: Int32Array;
  partnerNow: Int32Array;
  partnerAfter: Int32Array;
  /** How many processes may take one more task inside the range (moves need one). */
  takers: number;
  /** Per key: the distinct values over all processes (no task spreads wider than this). */
  distinct: Int32Array;
  /** Processes with the same values (a spread depends on values only): group g is groupProcs[groupStart[g] .. groupStart[g+1]), ascending. */
  groupStart: Int32Array;
  groupProcs: Int32Array;
  /** Pass 2: the standby slots each process holds, slotList[slotStart[q] .. slotStart[q+1]), and each slot's place there. */
  slotStart: Int32Array;
  slotList: Int32Array;
  slotPos: Int32Array;
}

export function referenceStreamsSpread(p: StreamsSpreadProblem): Int32Array {
  const P = p.processStart.length - 1;
  const M = p.processStart[P]!;
  const s: Spread = {
    p, out: p.standbyMember.slice(), memberLoad: p.memberLoad.slice(), processOf: new Int32Array(M), load: new Int32Array(P), minN: 0, minC: 1, maxN: 0, maxC: 1, takers: 0,
    now: new Int32Array(p.keys), best: new Int32Array(p.keys), trial: new Int32Array(p.keys), partnerNow: new Int32Array(p.keys), partnerAfter: new Int32Array(p.keys),
    slotStart: new Int32Array(P + 1), slotList: new Int32Array(0), slotPos: new Int32Array(p.tasks * p.width), distinct: new Int32Array(p.keys),
    groupStart: new Int32Array(0), groupProcs: new Int32Array(0),
  };
  for (let q = 0; q < P; q++) {
    for (let m = p.processStart[q]!; m < p.processStart[q + 1]!; m++) {
      s.processOf[m] = q;
      s.load[q]! += s.memberLoad[m]!;
    }
  }
  loadRange(s);
  for (let q = 0; q < P; q++) if (canTake(s, q)) s.takers++;
  distinctValues(s);
  valueGroups(s);
  for (let t = 0; t < p.tasks; t++) while (moveOnce(s, t));
  indexSlots(s);
  for (let t = 0; t < p.tasks; t++) while (swapOnce(s, t));
  return s.out;
}

const size = (s: Spread, q: number): number => s.p.processStart[q + 1]! - s.p.processStart[q]!;

/** Process q may take one more task without going above the range. */
const canTake = (s: Spread, q: number): boolean => (s.load[q]! + 1) * s.maxC <= s.maxN * size(s, q);

/** The least and the most load over the processes (load / members), from the baseline. */
function loadRange(s: Spread): void {
  const P = s.load.length;
  if (P === 0) return;
  s.minN = s.maxN = s.load[0]!;
  s.minC = s.maxC = size(s, 0);
  for (let q = 1; q < P; q++) {
    if (s.load[q]! * s.minC < s.minN * size(s, q)) {
      s.minN = s.load[q]!;
      s.minC = size(s, q);
    }
    if (s.load[q]! * s.maxC > s.maxN * size(s, q)) {
      s.maxN = s.load[q]!;
      s.maxC = size(s, q);
    }
  }
}

/** Per key, the distinct values over the processes. */
function distinctValues(s: Spread): void {
  const K = s.p.keys;
  for (let k = 0; k < K; k++) {
    const seen = new Set<number>();
    for (let q = 0; q < s.load.length; q++) if (s.p.processValues[q * K + k]! >= 0) seen.add(s.p.processValues[q * K + k]!);
    s.distinct[k] = seen.size;
  }
}

/** Groups of processes with equal values on every key, numbered by first appearance; each group's processes ascending. */
function valueGroups(s: Spread): void {
  const P = s.load.length;
  const groupOf = new Int32Array(P);
  const reps: number[] = [];
  for (let q = 0; q < P; q++) {
    let g = 0;
    while (g < reps.length && !sameValues(s, reps[g]!, q)) g++;
    if (g === reps.length) reps.push(q);
    groupOf[q] = g;
  }
  s.groupStart = new Int32Array(reps.length + 1);
  for (let q = 0; q < P; q++) s.groupStart[groupOf[q]! + 1]!++;
  for (let g = 0; g < reps.length; g++) s.groupStart[g + 1]! += s.groupStart[g]!;
  s.groupProcs = new Int32Array(P);
  const at = s.groupStart.slice(0, reps.length);
  for (let q = 0; q < P; q++) s.groupProcs[at[groupOf[q]!]!++] = q;
}

function sameValues(s: Spread, a: number, b: number): boolean {
  const K = s.p.keys;
  for (let k = 0; k < K; k++) if (s.p.processValues[a * K + k] !== s.p.processValues[b * K + k]) return false;
  return true;
}

/** True when task x's spread (in `now`) is the widest its copies can have: nothing can beat it, so the search is skipped. */
function widest(s: Spread, x: number, now: Int32Array): boolean {
  let copies = 1;
  for (let j = 0; j < s.p.width; j++) if (s.out[x * s.p.width + j]! >= 0) copies++;
  for (let k = 0; k < s.p.keys; k++) if (now[k]! < Math.min(copies, s.distinct[k]!)) return false;
  return true;
}

/** The process of copy a of task x (0: the active, j + 1: standby slot j), slot j replaced by process q; -1 for an empty slot. */
function copyAt(s: Spread, x: number, a: number, j: number, q: number): number {
  if (a === 0) return s.processOf[s.p.activeMember[x]!]!;
  if (a === j + 1) return q;
  const m = s.out[x * s.p.width + a - 1]!;
  return m < 0 ? -1 : s.processOf[m]!;
}

/** True when task x has a copy on process q. */
function holds(s: Spread, x: number, q: number): boolean {
  for (let a = 0; a <= s.p.width; a++) if (copyAt(s, x, a, -1, -1) === q) return true;
  return false;
}

/** Per key, the distinct values over task x's copies with slot j on process q (j = -1: as they are). Missing values count for nothing. */
function spreadOf(s: Spread, x: number, j: number, q: number, into: Int32Array): void {
  const K = s.p.keys;
  const n = s.p.width + 1;
  for (let k = 0; k < K; k++) {
    let distinct = 0;
    for (let a = 0; a < n; a++) {
      const qa = copyAt(s, x, a, j, q);
      const v = qa < 0 ? -1 : s.p.processValues[qa * K + k]!;
      if (v < 0) continue;
      let seen = false;
      for (let b = 0; b < a && !seen; b++) {
        const qb = copyAt(s, x, b, j, q);
        seen = qb >= 0 && s.p.processValues[qb * K + k] === v;
      }
      if (!seen) distinct++;
    }
    into[k] = distinct;
  }
}

/** Lexicographic, keys in precedence order: > 0 when a spreads more. */
function compare(a: Int32Array, b: Int32Array): number {
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k]! - b[k]!;
  return 0;
}

/**
 * Pass 1: the best move of one of task t's standbys inside the load range; false when none spreads t
 * more. A move's spread depends on the values of the process it goes to only, so each group of
 * processes with equal values is tried once, with its least loaded process that may take it. The
 * choice is the widest spread, then the less loaded process, then the lower slot, then the lower process.
 */
function moveOnce(s: Spread, t: number): boolean {
  const W = s.p.width;
  if (s.takers === 0) return false;
  spreadOf(s, t, -1, -1, s.now);
  if (widest(s, t, s.now)) return false;
  s.best.set(s.now);
  let bestJ = -1;
  let bestQ = -1;
  const G = s.groupStart.length - 1;
  for (let j = 0; j < W; j++) {
    const from = copyAt(s, t, j + 1, -1, -1);
    if (from < 0 || (s.load[from]! - 1) * s.minC < s.minN * size(s, from)) continue;
    for (let g = 0; g < G; g++) {
      spreadOf(s, t, j, s.groupProcs[s.groupStart[g]!]!, s.trial);
      const d = compare(s.trial, s.best);
      if (d < 0 || (d === 0 && bestQ < 0)) continue;
      const q = lightestTaker(s, t, g);
      if (q < 0) continue;
      const lighter = bestQ >= 0 ? s.load[q]! * size(s, bestQ) - s.load[bestQ]! * size(s, q) : -1;
      if (d > 0 || lighter < 0 || (lighter === 0 && j === bestJ && q < bestQ)) {
        s.best.set(s.trial);
        bestJ = j;
        bestQ = q;
      }
    }
  }
  if (bestJ < 0) return false;
  const i = t * W + bestJ;
  const old = s.out[i]!;
  const from = s.processOf[old]!;
  s.takers -= (canTake(s, from) ? 1 : 0) + (canTake(s, bestQ) ? 1 : 0);
  s.memberLoad[old]!--;
  s.load[from]!--;
  let to = s.p.processStart[bestQ]!;
  for (let m = to + 1; m < s.p.processStart[bestQ + 1]!; m++) if (s.memberLoad[m]! < s.memberLoad[to]!) to = m;
  s.memberLoad[to]!++;
  s.load[bestQ]!++;
  s.takers += (canTake(s, from) ? 1 : 0) + (canTake(s, bestQ) ? 1 : 0);
  s.out[i] = to;
  return true;
}

/** Group g's least loaded process (lowest index on ties) that may take one more task and holds no copy of task t; -1. */
function lightestTaker(s: Spread, t: number, g: number): number {
  let q = -1;
  for (let k = s.groupStart[g]!; k < s.groupStart[g + 1]!; k++) {
    const x = s.groupProcs[k]!;
    if (!canTake(s, x) || holds(s, t, x)) continue;
    if (q < 0 || s.load[x]! * size(s, q) < s.load[q]! * size(s, x)) q = x;
  }
  return q;
}

/** Pass 2's index: the standby slots of each process (slot order), and each slot's place in it. */
function indexSlots(s: Spread): void {
  const n = s.out.length;
  for (let i = 0; i < n; i++) if (s.out[i]! >= 0) s.slotStart[s.processOf[s.out[i]!]! + 1]!++;
  for (let q = 0; q < s.load.length; q++) s.slotStart[q + 1]! += s.slotStart[q]!;
  s.slotList = new Int32Array(s.slotStart[s.load.length]!);
  const at = s.slotStart.slice(0, s.load.length);
  for (let i = 0; i < n; i++) {
    if (s.out[i]! < 0) continue;
    const q = s.processOf[s.out[i]!]!;
    s.slotPos[i] = at[q]!;
    s.slotList[at[q]!++] = i;
  }
}

/**
 * Pass 2: the best swap of one of task t's standbys with another task's on a process t spreads more
 * on; false when none. Tried by groups of processes with equal values, as the moves; the choice is
 * the widest spread, then the lower slot, then the earlier group (groups are numbered by their
 * first process), then the group's lowest process that has a partner.
 */
function swapOnce(s: Spread, t: number): boolean {
  const W = s.p.width;
  spreadOf(s, t, -1, -1, s.now);
  if (widest(s, t, s.now)) return false;
  s.best.set(s.now);
  let bestJ = -1;
  let bestQ = -1;
  let bestPartner = -1;
  const G = s.groupStart.length - 1;
  for (let j = 0; j < W; j++) {
    const from = copyAt(s, t, j + 1, -1, -1);
    if (from < 0) continue;
    for (let g = 0; g < G; g++) {
      spreadOf(s, t, j, s.groupProcs[s.groupStart[g]!]!, s.trial);
      const d = compare(s.trial, s.best);
      if (d <= 0) continue;
      for (let k = s.groupStart[g]!; k < s.groupStart[g + 1]!; k++) {
        const q = s.groupProcs[k]!;
        if (holds(s, t, q)) continue;
        const partner = partnerOn(s, q, from);
        if (partner < 0) continue;
        s.best.set(s.trial);
        bestJ = j;
        bestQ = q;
        bestPartner = partner;
        break;
      }
    }
  }
  if (bestJ < 0) return false;
  const bestI = t * W + bestJ;
  const mine = s.out[bestI]!;
  s.out[bestI] = s.out[bestPartner]!;
  s.out[bestPartner] = mine;
  const pos = s.slotPos[bestI]!;
  s.slotList[pos] = bestPartner;
  s.slotList[s.slotPos[bestPartner]!] = bestI;
  s.slotPos[bestI] = s.slotPos[bestPartner]!;
  s.slotPos[bestPartner] = pos;
  return true;
}

/** The first standby slot on process q whose task has no copy on `from` and spreads no less there; -1. */
function partnerOn(s: Spread, q: number, from: number): number {
  const W = s.p.width;
  for (let k = s.slotStart[q]!; k < s.slotStart[q + 1]!; k++) {
    const i = s.slotList[k]!;
    const u = Math.trunc(i / W);
    if (holds(s, u, from)) continue;
    spreadOf(s, u, -1, -1, s.partnerNow);
    spreadOf(s, u, i - u * W, from, s.partnerAfter);
    if (compare(s.partnerAfter, s.partnerNow) >= 0) return i;
  }
  return -1;
}
