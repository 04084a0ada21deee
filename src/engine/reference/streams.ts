// The active tasks of a Kafka Streams group (issue 31): the pure-TS twin of assembly/streams.ts.
// Both are written in the same flat, index-based style so they can be read side by side.
//
// What Kafka 4.4's broker-side StickyTaskAssignor promises, kept on every input and made
// canonical (its answer depends on the order of memberIds() and on Java's HashMap order; this
// one only on the group):
//   - balance: every member runs floor(T/M) or ceil(T/M) actives (Kafka's quota is that ceiling
//     too, but its last step ignores it);
//   - the ceil(T/M) quotas go where they keep the most tasks in their previous process (same state
//     directory), then on their previous member, so no choice of quotas keeps more;
//   - a previous owner keeps its tasks up to its quota; then a task stays in its previous process;
//     then it goes to a member with its state (previous standbys first, then the largest offset
//     sum), trying every such member where Kafka tries only the first;
//   - the rest go to the least loaded process (actives per member), then its least loaded member.
// Ties go to the lowest index: members and processes arrive in canonical order.
import type { StreamsActivesProblem, StreamsKernels } from '../abi.js';
import { referenceStreamsSpread } from './streams-spread.js';

/** The state of one call; index spaces: m member, p process, t task. */
interface Actives {
  p: StreamsActivesProblem;
  /** Per m: its process. */
  processOf: Int32Array;
  /** Per t: the member that ran it (the first claimant in member order), -1. */
  prev: Int32Array;
  /** The answer: per t its member, -1 while unplaced. */
  owner: Int32Array;
  /** Per m: actives given so far. */
  count: Int32Array;
  /** Per m: 1 when its quota is floor + 1. */
  up: Uint8Array;
  /** Per p: actives given so far to its members. */
  processCount: Int32Array;
  base: number;
  /** floor + 1 quotas not yet given to a member. */
  spare: number;
}

export function referenceStreams(): StreamsKernels {
  return { streamsActives: referenceStreamsActives, streamsSpread: referenceStreamsSpread };
}

export function referenceStreamsActives(p: StreamsActivesProblem): Int32Array {
  const P = p.processStart.length - 1;
  const M = p.processStart[P]!;
  const T = p.tasks;
  const owner = new Int32Array(T).fill(-1);
  if (M === 0) return owner;
  const a: Actives = { p, processOf: new Int32Array(M), prev: new Int32Array(T).fill(-1), owner, count: new Int32Array(M), up: new Uint8Array(M), processCount: new Int32Array(P), base: Math.floor(T / M), spare: T % M };
  for (let q = 0; q < P; q++) a.processOf.fill(q, p.processStart[q]!, p.processStart[q + 1]!);
  previousOwners(a);
  ceilQuotas(a);
  for (let t = 0; t < T; t++) if (a.prev[t]! >= 0 && hasRoom(a, a.prev[t]!)) give(a, t, a.prev[t]!);
  for (let t = 0; t < T; t++) if (owner[t]! < 0 && a.prev[t]! >= 0) giveInProcess(a, t, a.processOf[a.prev[t]!]!);
  for (let t = 0; t < T; t++) if (owner[t]! < 0) giveWarm(a, t);
  giveRest(a);
  return owner;
}

/** Each claimed task's previous owner: the first member (in member order) that claims it. */
function previousOwners(a: Actives): void {
  const { claimStart, claims } = a.p;
  const M = a.count.length;
  for (let m = 0; m < M; m++) {
    for (let k = claimStart[m]!; k < claimStart[m + 1]!; k++) {
      const t = claims[k]!;
      if (a.prev[t]! < 0) a.prev[t] = m;
    }
  }
}

/**
 * The floor + 1 quotas, each where it keeps one more task: first in its previous process and on its
 * previous member, then in its process only, then on its member only; unused ones stay spare.
 * A process keeps min(held, members x floor + its floor + 1 quotas), a member min(held, quota),
 * so every quota gains at most one of each and the three passes reach the most of both, process first.
 */
function ceilQuotas(a: Actives): void {
  const M = a.count.length;
  const P = a.processCount.length;
  const held = new Int32Array(M);
  for (let t = 0; t < a.prev.length; t++) if (a.prev[t]! >= 0) held[a.prev[t]!]!++;
  const room = new Int32Array(P); // per process: floor + 1 quotas that still keep a task there
  for (let m = 0; m < M; m++) room[a.processOf[m]!]! += held[m]!;
  for (let q = 0; q < P; q++) room[q] = Math.max(0, Math.min(room[q]! - size(a, q) * a.base, size(a, q)));
  const order = byHeld(held);
  for (let k = 0; k < M && a.spare > 0; k++) {
    const m = order[k]!;
    if (held[m]! > a.base && room[a.processOf[m]!]! > 0) raise(a, m, room);
  }
  for (let k = 0; k < M && a.spare > 0; k++) {
    const m = order[k]!;
    if (a.up[m] === 0 && room[a.processOf[m]!]! > 0) raise(a, m, room);
  }
  for (let k = 0; k < M && a.spare > 0; k++) {
    const m = order[k]!;
    if (a.up[m] === 0 && held[m]! > a.base) raise(a, m, room);
  }
}

function raise(a: Actives, m: number, room: Int32Array): void {
  a.up[m] = 1;
  a.spare--;
  room[a.processOf[m]!]!--;
}

function size(a: Actives, q: number): number {
  return a.p.processStart[q + 1]! - a.p.processStart[q]!;
}

/** Members by held, descending, then index (a stable counting sort). */
function byHeld(held: Int32Array): Int32Array {
  let most = 0;
  for (const h of held) if (h > most) most = h;
  const start = new Int32Array(most + 2);
  for (const h of held) start[most - h + 1]!++;
  for (let b = 0; b <= most; b++) start[b + 1]! += start[b]!;
  const order = new Int32Array(held.length);
  for (let m = 0; m < held.length; m++) order[start[most - held[m]!]!++] = m;
  return order;
}

/** Member m may take one more active: under its quota, or at the floor while a floor + 1 quota is spare. */
function hasRoom(a: Actives, m: number): boolean {
  const c = a.count[m]!;
  return c < a.base + a.up[m]! || (c === a.base && a.up[m] === 0 && a.spare > 0);
}

function give(a: Actives, t: number, m: number): void {
  if (a.count[m] === a.base && a.up[m] === 0) {
    a.up[m] = 1;
    a.spare--;
  }
  a.count[m]!++;
  a.processCount[a.processOf[m]!]!++;
  a.owner[t] = m;
}

/** The member of process q with room and the fewest actives (lowest index on ties), -1. */
function roomiest(a: Actives, q: number): number {
  let best = -1;
  for (let m = a.p.processStart[q]!; m < a.p.processStart[q + 1]!; m++) {
    if (hasRoom(a, m) && (best < 0 || a.count[m]! < a.count[best]!)) best = m;
  }
  return best;
}

function giveInProcess(a: Actives, t: number, q: number): void {
  const m = roomiest(a, q);
  if (m >= 0) give(a, t, m);
}

/** Task t to the best-ranked member with its state and room: previous standbys first, then larger offsets, then lower index. */
function giveWarm(a: Actives, t: number): void {
  const { warmStart, warmMember, warmStandby, warmOffset } = a.p;
  let best = -1;
  for (let k = warmStart[t]!; k < warmStart[t + 1]!; k++) {
    if (!hasRoom(a, warmMember[k]!)) continue;
    if (best < 0 || warmBefore(a.p, k, best)) best = k;
  }
  if (best >= 0) give(a, t, warmMember[best]!);
}

function warmBefore(p: StreamsActivesProblem, k: number, j: number): boolean {
  if (p.warmStandby[k] !== p.warmStandby[j]) return p.warmStandby[k]! > p.warmStandby[j]!;
  if (p.warmOffset[k] !== p.warmOffset[j]) return p.warmOffset[k]! > p.warmOffset[j]!;
  return p.warmMember[k]! < p.warmMember[j]!;
}

/**
 * The unplaced tasks, in task order, each to the process with the fewest actives per member
 * (a binary heap; ties: lowest index) that has a member with room, then to its roomiest member.
 * Room only shrinks, so a process found full is dropped for good.
 */
function giveRest(a: Actives): void {
  const P = a.processCount.length;
  const heap = new Int32Array(P);
  for (let q = 0; q < P; q++) heap[q] = q;
  let size = P;
  for (let i = (P >> 1) - 1; i >= 0; i--) siftDown(a, heap, size, i);
  for (let t = 0; t < a.owner.length; t++) {
    if (a.owner[t]! >= 0) continue;
    let m = -1;
    while (size > 0) {
      m = roomiest(a, heap[0]!);
      if (m >= 0) break;
      heap[0] = heap[--size]!;
      siftDown(a, heap, size, 0);
    }
    if (m < 0) throw new Error('streams kernel: no member has room (a bug: the quotas add up to the task count)');
    give(a, t, m);
    siftDown(a, heap, size, 0);
  }
}

/** Process q before r: fewer actives per member (cross-multiplied), then lower index. */
function lighter(a: Actives, q: number, r: number): boolean {
  const lq = a.processCount[q]! * size(a, r);
  const lr = a.processCount[r]! * size(a, q);
  return lq < lr || (lq === lr && q < r);
}

function siftDown(a: Actives, heap: Int32Array, size: number, i: number): void {
  for (;;) {
    const l = 2 * i + 1;
    if (l >= size) return;
    let c = l;
    if (l + 1 < size && lighter(a, heap[l + 1]!, heap[l]!)) c = l + 1;
    if (!lighter(a, heap[c]!, heap[i]!)) return;
    const v = heap[c]!;
    heap[c] = heap[i]!;
    heap[i] = v;
    i = c;
  }
}
