// Random flat group-balancing problems for the kernel tests, and an independent checker of what
// the kernel guarantees (balance per topic and per class; weighted moves; owners are subscribers).
import fc from 'fast-check';
import type { GroupProblem } from '../../src/engine/abi.js';
import { subscriberListIds } from '../../src/engine/reference/group.js';

export interface ProblemSpec {
  members: number;
  rackCount: number;
  memberRack: number[];
  /** Per topic: subscribed-member flags (one per member). */
  subscribed: boolean[][];
  /** Per topic: per item previous owner choice (an index into members, or -1). */
  prev: number[][];
  soft: number[][];
  itemRacks: number[][][];
  weight: number[];
  /** When true, class ids are computed from subscriptions; when false, some are garbage. */
  trueClasses: boolean;
  garbageClass: number[];
}

/** Balanced class of every topic: members with identical subscriptions that nobody else shares a topic with. */
export function classesOf(members: number, subs: number[][]): Int32Array {
  const T = subs.length;
  const signature: string[] = [];
  for (let m = 0; m < members; m++) {
    const ts: number[] = [];
    for (let t = 0; t < T; t++) if (subs[t]!.includes(m)) ts.push(t);
    signature.push(ts.join(','));
  }
  const topicClass = new Int32Array(T).fill(-1);
  const classId = new Map<string, number>();
  const exclusive = (sig: string): boolean =>
    sig !== '' &&
    sig.split(',').every((t) => {
      const ms = subs[Number(t)]!;
      return ms.length > 0 && ms.every((m) => signature[m] === sig);
    });
  for (let t = 0; t < T; t++) {
    const ms = subs[t]!;
    if (ms.length === 0) continue;
    const sig = signature[ms[0]!]!;
    if (!exclusive(sig)) continue;
    if (!classId.has(sig)) classId.set(sig, classId.size);
    topicClass[t] = classId.get(sig)!;
  }
  return topicClass;
}

/** Topic t's subscribers in problem p. */
export function subscribersOf(p: GroupProblem, t: number): number[] {
  return Array.from(p.subs.subarray(p.subBase[t]!, p.subBase[t]! + p.subStart[t + 1]! - p.subStart[t]!));
}

export function buildProblem(spec: ProblemSpec): GroupProblem {
  const M = spec.members;
  const T = spec.subscribed.length;
  const subsPerTopic = spec.subscribed.map((flags) => flags.map((on, m) => (on ? m : -1)).filter((m) => m >= 0));
  // Slots per topic; a list equal to an earlier topic's is not written again (its base is shared).
  const subStart = new Int32Array(T + 1);
  const subBase = new Int32Array(T);
  const subs: number[] = [];
  const baseOf = new Map<string, number>();
  const itemStart = new Int32Array(T + 1);
  const prevOwner: number[] = [];
  const softOwner: number[] = [];
  const rackStart: number[] = [0];
  const racks: number[] = [];
  for (let t = 0; t < T; t++) {
    const key = subsPerTopic[t]!.join(',');
    if (!baseOf.has(key)) (baseOf.set(key, subs.length), subs.push(...subsPerTopic[t]!));
    subBase[t] = baseOf.get(key)!;
    subStart[t + 1] = subStart[t]! + subsPerTopic[t]!.length;
    for (let i = 0; i < spec.prev[t]!.length; i++) {
      prevOwner.push(spec.prev[t]![i]! < 0 ? -1 : spec.prev[t]![i]! % Math.max(M, 1));
      softOwner.push(spec.soft[t]![i]! < 0 ? -1 : spec.soft[t]![i]! % Math.max(M, 1));
      for (const r of new Set(spec.itemRacks[t]![i]!)) if (spec.rackCount > 0) racks.push(r % spec.rackCount);
      rackStart.push(racks.length);
    }
    itemStart[t + 1] = prevOwner.length;
  }
  // Deduplicate racks per item (the modulo may collide).
  const dedupStart: number[] = [0];
  const dedup: number[] = [];
  for (let i = 0; i + 1 < rackStart.length; i++) {
    const seen = new Set<number>();
    for (let k = rackStart[i]!; k < rackStart[i + 1]!; k++) if (!seen.has(racks[k]!)) (seen.add(racks[k]!), dedup.push(racks[k]!));
    dedupStart.push(dedup.length);
  }
  const topicClass = spec.trueClasses ? classesOf(M, subsPerTopic) : Int32Array.from(spec.garbageClass.slice(0, T).map((c) => (c % (T + 2)) - 1));
  return {
    members: M,
    rackCount: spec.rackCount,
    // memberRack values are 0..rackCount: 0 means no rack.
    memberRack: Int32Array.from(spec.memberRack.slice(0, M).map((r) => (spec.rackCount === 0 ? -1 : (r % (spec.rackCount + 1)) - 1))),
    topicClass,
    topicWeight: Int32Array.from(spec.weight.slice(0, T)),
    subStart,
    subs: Int32Array.from(subs),
    subBase,
    subList: subscriberListIds(subStart, Int32Array.from(subsPerTopic.flat())),
    itemStart,
    prevOwner: Int32Array.from(prevOwner),
    softOwner: Int32Array.from(softOwner),
    rackStart: Int32Array.from(dedupStart),
    racks: Int32Array.from(dedup),
  };
}

/** fast-check arbitrary of problem specs: sizes bounded by maxMembers/maxTopics/maxItems. */
export function problemSpec(maxMembers: number, maxTopics: number, maxItems: number): fc.Arbitrary<ProblemSpec> {
  return fc
    .record({
      members: fc.integer({ min: 0, max: maxMembers }),
      topics: fc.integer({ min: 0, max: maxTopics }),
      rackCount: fc.integer({ min: 0, max: 4 }),
      // Probability that a member subscribes a topic; 1 gives one class for the whole group.
      density: fc.constantFrom(1, 1, 0.8, 0.5),
      // Probability that an item had an owner.
      owned: fc.constantFrom(0, 0.5, 0.9, 1),
      // A skewed previous owner distribution makes many "useful" extras (the hard case).
      skew: fc.constantFrom(0, 1, 3),
      trueClasses: fc.boolean(),
      seed: fc.integer(),
    })
    .map((g) => {
      let s = g.seed >>> 0;
      const rnd = (): number => {
        s = (s + 0x6d2b79f5) >>> 0;
        let t = s;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
      const int = (n: number): number => Math.floor(rnd() * n);
      const M = g.members;
      const T = g.topics;
      // Subscription patterns: a few shared signatures so that classes form.
      const patterns = Array.from({ length: 3 }, () => Array.from({ length: T }, () => rnd() < g.density));
      const memberPattern = Array.from({ length: M }, () => int(g.density === 1 ? 1 : 3));
      const subscribed = Array.from({ length: T }, (_, t) => Array.from({ length: M }, (_, m) => patterns[memberPattern[m]!]![t]!));
      const prev: number[][] = [];
      const soft: number[][] = [];
      const itemRacks: number[][][] = [];
      for (let t = 0; t < T; t++) {
        const n = int(maxItems + 1);
        const ms = subscribed[t]!.map((on, m) => (on ? m : -1)).filter((m) => m >= 0);
        prev.push(
          Array.from({ length: n }, () => {
            if (rnd() >= g.owned || M === 0) return -1;
            if (rnd() < 0.05) return int(M); // maybe not a subscriber: must count as no owner
            if (ms.length === 0) return -1;
            const k = g.skew === 0 ? int(ms.length) : Math.floor(ms.length * Math.pow(rnd(), g.skew + 1));
            return ms[Math.min(k, ms.length - 1)]!;
          }),
        );
        soft.push(Array.from({ length: n }, () => (rnd() < 0.3 && M > 0 ? int(M) : -1)));
        itemRacks.push(Array.from({ length: n }, () => Array.from({ length: int(4) }, () => int(Math.max(g.rackCount, 1)))));
      }
      return {
        members: M,
        rackCount: g.rackCount,
        memberRack: Array.from({ length: M }, () => int(g.rackCount + 1)),
        subscribed,
        prev,
        soft,
        itemRacks,
        weight: Array.from({ length: T }, () => 1 + (rnd() < 0.2 ? int(3) : 0)),
        trueClasses: g.trueClasses,
        garbageClass: Array.from({ length: T }, () => int(T + 2)),
      };
    });
}

export interface Check {
  ok: boolean;
  why: string;
  moves: number;
}

/** Checks an owner array against the kernel's guarantees; moves are weighted by topicWeight. */
export function checkOwners(p: GroupProblem, owner: Int32Array): Check {
  const T = p.topicClass.length;
  const M = p.members;
  let moves = 0;
  const totals = new Int32Array(M);
  for (let t = 0; t < T; t++) {
    const subs = subscribersOf(p, t);
    const isSub = new Set(subs);
    const count = new Map<number, number>(subs.map((m) => [m, 0]));
    const n = p.itemStart[t + 1]! - p.itemStart[t]!;
    for (let i = p.itemStart[t]!; i < p.itemStart[t + 1]!; i++) {
      const o = owner[i]!;
      if (subs.length === 0) {
        if (o !== -1) return { ok: false, why: `item ${i} of a topic without subscribers has owner ${o}`, moves };
        continue;
      }
      if (!isSub.has(o)) return { ok: false, why: `item ${i} owned by ${o}, not a subscriber of topic ${t}`, moves };
      count.set(o, count.get(o)! + 1);
      totals[o]!++;
      const prev = p.prevOwner[i]!;
      if (prev >= 0 && isSub.has(prev) && prev !== o) moves += p.topicWeight[t]!;
    }
    if (subs.length === 0) continue;
    const f = Math.floor(n / subs.length);
    for (const [m, c] of count) if (c !== f && c !== f + 1) return { ok: false, why: `topic ${t}: member ${m} holds ${c}, not ${f} or ${f + 1}`, moves };
  }
  // Class totals (only for classes whose topics really share one subscriber set).
  const byClass = new Map<number, number[]>();
  for (let t = 0; t < T; t++) if (p.topicClass[t]! >= 0 && p.topicClass[t]! < T) byClass.set(p.topicClass[t]!, [...(byClass.get(p.topicClass[t]!) ?? []), t]);
  for (const [c, ts] of byClass) {
    const key = (t: number): string => subscribersOf(p, t).join(',');
    if (ts.some((t) => key(t) !== key(ts[0]!)) || key(ts[0]!) === '') continue;
    const ms = key(ts[0]!).split(',').map(Number);
    const tot = ms.map((m) => ts.reduce((a, t) => a + countOf(p, owner, t, m), 0));
    if (Math.max(...tot) - Math.min(...tot) > 1) return { ok: false, why: `class ${c}: totals ${tot.join(' ')}`, moves };
  }
  return { ok: true, why: '', moves };
}

function countOf(p: GroupProblem, owner: Int32Array, t: number, m: number): number {
  let c = 0;
  for (let i = p.itemStart[t]!; i < p.itemStart[t + 1]!; i++) if (owner[i] === m) c++;
  return c;
}

/** The least weighted moves of any owner array that passes checkOwners, by exhaustive search (tiny problems). */
export function bruteForceMinMoves(p: GroupProblem): number {
  const N = p.prevOwner.length;
  const T = p.topicClass.length;
  const topicOf = new Int32Array(N);
  for (let t = 0; t < T; t++) for (let i = p.itemStart[t]!; i < p.itemStart[t + 1]!; i++) topicOf[i] = t;
  const choices = Array.from({ length: N }, (_, i) => {
    const t = topicOf[i]!;
    const subs = subscribersOf(p, t);
    return subs.length === 0 ? [-1] : subs;
  });
  const owner = new Int32Array(N);
  let best = Infinity;
  const walk = (i: number): void => {
    if (i === N) {
      const c = checkOwners(p, owner);
      if (c.ok && c.moves < best) best = c.moves;
      return;
    }
    for (const m of choices[i]!) {
      owner[i] = m;
      walk(i + 1);
    }
  };
  walk(0);
  return best;
}
