// The group planner, whole (issue 30): the pure-TS twin of assembly/group-plan.ts. From the
// owners the caller resolved, every decision of a sticky rebalance: which co-partitioned sets
// hold, which grown topics fold onto their old partitions' owners, the kernel's topics, items,
// racks and balanced classes, the balancing kernel (./group.ts), and the owners read back.
// Both files are written in the same flat, index-based style so they can be read side by side.
import {
  CO_COUNTS_DIFFER, CO_HONORED, CO_SUBSCRIBERS_DIFFER, CO_TOO_FEW,
  GROWTH_FOLDED, GROWTH_NOT_FOLDABLE, GROWTH_ORPHANS, GROWTH_SKEW,
  type GroupKernels, type GroupPlanProblem, type GroupPlanResult, type GroupProblem,
} from '../abi.js';
import { referenceGroupAssign, sameList, subscriberListIds } from './group.js';

/** The planner's tables of one call; index spaces in the comments (t: topic, k: kernel topic, m: member). */
interface Planner {
  p: GroupPlanProblem;
  /** Per t (T + 1): where topic t's partitions start in the flat arrays. */
  topicStart: Int32Array;
  /** Per t: the count before a growth, 0 when none. */
  from: Int32Array;
  /** Honored co-partitioned sets, each its topics ascending. */
  sets: number[][];
  /** Per k: its real topics (one, or a co-partitioned set ascending), its items (= partitions of each) and its growth's old count. */
  kts: { real: number[]; base: number; from: number }[];
  /** Per t: its kernel topic, -1 when folded. */
  ktOf: Int32Array;
  /** Per t: the owners of its B old partitions when folded (p joins the owner of p mod B), else null. */
  parent: (Int32Array | null)[];
  /** Growth triples (t, GROWTH_*, value), in the order met. */
  growth: number[];
}

export function referenceGroup(): GroupKernels {
  return { groupPlan: referenceGroupPlan };
}

export function referenceGroupPlan(p: GroupPlanProblem): GroupPlanResult {
  const T = p.counts.length;
  const topicStart = new Int32Array(T + 1);
  for (let t = 0; t < T; t++) topicStart[t + 1] = topicStart[t]! + p.counts[t]!;
  const from = p.inferGrowth ? inferredFrom(p, topicStart) : p.from.slice(0, T);
  const coStatus = new Int32Array(2 * (p.coStart.length - 1));
  const w: Planner = { p, topicStart, from, sets: honoredSets(p, coStatus), kts: [], ktOf: new Int32Array(T).fill(-1), parent: new Array<Int32Array | null>(T).fill(null), growth: [] };
  kernelTopics(w);
  const problem = kernelProblem(w);
  const itemOwner = referenceGroupAssign(problem);
  return { owner: ownersFromKernel(w, itemOwner, problem.itemStart), growth: Int32Array.from(w.growth), from, coStatus };
}

/** A topic whose owned partitions are exactly 0..B-1 (0 < B < count) grew from B. */
function inferredFrom(p: GroupPlanProblem, topicStart: Int32Array): Int32Array {
  const T = p.counts.length;
  const from = new Int32Array(T);
  for (let t = 0; t < T; t++) {
    const s = topicStart[t]!;
    const C = p.counts[t]!;
    let B = 0;
    while (B < C && p.owner[s + B]! >= 0) B++;
    let rest = B;
    while (rest < C && p.owner[s + rest]! < 0) rest++;
    if (B > 0 && B < C && rest === C) from[t] = B;
  }
  return from;
}

/** Co-partitioned sets that hold (two topics or more, one count, one set of subscribers), topics ascending; why not in coStatus. */
function honoredSets(p: GroupPlanProblem, coStatus: Int32Array): number[][] {
  const sets: number[][] = [];
  for (let g = 0; g + 1 < p.coStart.length; g++) {
    const a = p.coStart[g]!;
    const b = p.coStart[g + 1]!;
    let code = b - a < 2 ? CO_TOO_FEW : CO_HONORED;
    let at = -1;
    const t0 = p.coTopics[a]!;
    for (let i = a; i < b && code === CO_HONORED; i++) {
      const t = p.coTopics[i]!;
      if (p.counts[t] !== p.counts[t0]) code = CO_COUNTS_DIFFER;
      else if (!sameList(p.listStart, p.listMembers, p.topicList[t]!, p.topicList[t0]!)) code = CO_SUBSCRIBERS_DIFFER;
      if (code !== CO_HONORED) at = t;
    }
    coStatus[2 * g] = code;
    coStatus[2 * g + 1] = at;
    if (code === CO_HONORED) sets.push(Array.from(p.coTopics.subarray(a, b)).sort((x, y) => x - y));
  }
  return sets;
}

/** Owner with the most of partition j among the real topics (ties: lowest member), or -1. */
function majority(w: Planner, real: readonly number[], j: number): number {
  const own = w.p.owner;
  if (real.length === 1) return own[w.topicStart[real[0]!]! + j]!;
  let best = -1;
  let bestVotes = 0;
  for (let i = 0; i < real.length; i++) {
    const m = own[w.topicStart[real[i]!]! + j]!;
    if (m < 0) continue;
    let votes = 0;
    for (let k = 0; k < real.length; k++) if (own[w.topicStart[real[k]!]! + j] === m) votes++;
    if (votes > bestVotes || (votes === bestVotes && m < best)) {
      best = m;
      bestVotes = votes;
    }
  }
  return best;
}

/**
 * Kernel topics, in the order of their first real topic: a topic or a co-partitioned set. One
 * that grew from B to k*B is folded instead when every old partition's owner is still here and
 * no member would then hold more than growthSkew times its fair share.
 */
function kernelTopics(w: Planner): void {
  const T = w.p.counts.length;
  const setOf = new Int32Array(T).fill(-1);
  w.sets.forEach((list, g) => {
    for (const t of list) setOf[t] = g;
  });
  const done = new Uint8Array(T);
  for (let t = 0; t < T; t++) {
    if (done[t] === 1) continue;
    const real = setOf[t]! >= 0 ? w.sets[setOf[t]!]! : [t];
    for (const r of real) done[r] = 1;
    const C = w.p.counts[t]!;
    // A growth is known when every real topic had the same smaller count.
    const B = real.every((r) => w.from[r] === w.from[t]) && w.from[t]! > 0 && w.from[t]! < C ? w.from[t]! : 0;
    if (B > 0 && foldGrowth(w, real, B)) continue;
    for (const r of real) w.ktOf[r] = w.kts.length;
    w.kts.push({ real, base: C, from: B });
  }
}

/** Folds a growth B -> C when it can (every old partition owned, no member over growthSkew x its share); one growth triple per real topic. */
function foldGrowth(w: Planner, real: readonly number[], B: number): boolean {
  const t = real[0]!;
  const C = w.p.counts[t]!;
  const S = subscribersOf(w.p, t).length;
  let code = GROWTH_NOT_FOLDABLE;
  let value = 0;
  const parent = new Int32Array(B);
  if (C % B === 0 && S > 0) {
    const families = new Int32Array(w.p.members); // old partitions per owner
    let orphans = 0;
    let largest = 0;
    for (let j = 0; j < B; j++) {
      parent[j] = majority(w, real, j);
      if (parent[j]! < 0) orphans++;
      else largest = Math.max(largest, ++families[parent[j]!]!);
    }
    const most = largest * (C / B);
    if (orphans > 0) [code, value] = [GROWTH_ORPHANS, orphans];
    else if (most * S > w.p.growthSkew * C) [code, value] = [GROWTH_SKEW, most];
    else code = GROWTH_FOLDED;
  }
  for (const r of real) {
    w.growth.push(r, code, value);
    if (code === GROWTH_FOLDED) w.parent[r] = parent;
  }
  return code === GROWTH_FOLDED;
}

/** Topic t's subscribers (its list). */
function subscribersOf(p: GroupPlanProblem, t: number): Int32Array {
  const l = p.topicList[t]!;
  return p.listMembers.subarray(p.listStart[l]!, p.listStart[l + 1]!);
}

/** The balancing kernel's problem: kernel topics, their items, previous and soft owners, racks, classes. */
function kernelProblem(w: Planner): GroupProblem {
  const { p, kts } = w;
  const K = kts.length;
  const subStart = new Int32Array(K + 1);
  const itemStart = new Int32Array(K + 1);
  const topicWeight = new Int32Array(K);
  for (let k = 0; k < K; k++) {
    const t0 = kts[k]!.real[0]!;
    subStart[k + 1] = subStart[k]! + subscribersOf(p, t0).length;
    itemStart[k + 1] = itemStart[k]! + kts[k]!.base;
    topicWeight[k] = kts[k]!.real.length;
  }
  const subs = new Int32Array(subStart[K]!);
  for (let k = 0; k < K; k++) subs.set(subscribersOf(p, kts[k]!.real[0]!), subStart[k]!);
  const N = itemStart[K]!;
  const prevOwner = new Int32Array(N);
  const softOwner = kts.some((kt) => kt.from > 0) ? new Int32Array(N).fill(-1) : new Int32Array(0);
  const useRacks = p.rackCount > 0;
  const rackStart = new Int32Array(useRacks ? N + 1 : 0);
  const rackList: number[] = [];
  for (let k = 0; k < K; k++) {
    const kt = kts[k]!;
    const i0 = itemStart[k]!;
    for (let j = 0; j < kt.base; j++) prevOwner[i0 + j] = majority(w, kt.real, j);
    if (kt.from > 0) for (let j = kt.from; j < kt.base; j++) softOwner[i0 + j] = majority(w, kt.real, j % kt.from);
    if (useRacks) commonRacks(w, k, rackStart, rackList, i0);
  }
  const subList = subscriberListIds(subStart, subs);
  return {
    members: p.members,
    rackCount: p.rackCount,
    memberRack: p.memberRack,
    topicClass: balancedClasses(p.members, { subStart, subs, subList }),
    topicWeight,
    subStart,
    subs,
    subBase: subStart.subarray(0, K),
    subList,
    itemStart,
    prevOwner,
    softOwner,
    rackStart,
    racks: Int32Array.from(rackList),
  };
}

/** Racks of each item of kernel topic k: those of partition j of its first real topic that every other one is on too. */
function commonRacks(w: Planner, k: number, rackStart: Int32Array, rackList: number[], i0: number): void {
  const { p, topicStart } = w;
  const real = w.kts[k]!.real;
  for (let j = 0; j < w.kts[k]!.base; j++) {
    const first = topicStart[real[0]!]! + j;
    for (let a = p.rackStart[first]!; a < p.rackStart[first + 1]!; a++) {
      const r = p.racks[a]!;
      let everywhere = true;
      for (let q = 1; q < real.length && everywhere; q++) {
        const at = topicStart[real[q]!]! + j;
        everywhere = p.racks.subarray(p.rackStart[at]!, p.rackStart[at + 1]!).includes(r);
      }
      if (everywhere) rackList.push(r);
    }
    rackStart[i0 + j + 1] = rackList.length;
  }
}

/**
 * Class id per kernel topic (numbered as they appear) when its class's totals balance, else -1.
 * Members with the same kernel topics form a class, found by refinement (every topic splits the
 * classes of its subscribers): one pass over the subscribers, no per-member lists.
 */
function balancedClasses(M: number, lists: Pick<GroupProblem, 'subStart' | 'subs' | 'subList'>): Int32Array {
  const { subStart, subs, subList } = lists;
  const K = subStart.length - 1;
  // A class id whose members all left is reused, so ids stay below M + 1: every id in use has a member.
  const classOf = new Int32Array(M);
  const stamp = new Int32Array(M + 1).fill(-1); // per class: the last topic that split it, and its part in
  const part = new Int32Array(M + 1);
  const size = new Int32Array(M + 1);
  size[0] = M;
  const unused: number[] = [];
  let classes = 1;
  for (let k = 0; k < K; k++) {
    if (subList[k] !== k) continue; // an earlier topic had these subscribers: no new split
    for (let i = subStart[k]!; i < subStart[k + 1]!; i++) {
      const c = classOf[subs[i]!]!;
      if (stamp[c] !== k) {
        stamp[c] = k;
        part[c] = unused.length > 0 ? unused.pop()! : classes++;
      }
      classOf[subs[i]!] = part[c]!;
      size[part[c]!]!++;
      if (--size[c]! === 0) unused.push(c);
    }
  }
  // A kernel topic is exclusive to a class when all its subscribers are in it; a class balances
  // when it has topics and none of them is shared with another class.
  const exclusive = new Int32Array(K).fill(-1);
  const shared = new Uint8Array(classes);
  for (let k = 0; k < K; k++) {
    const a = subStart[k]!;
    const b = subStart[k + 1]!;
    if (b === a) continue;
    const c = classOf[subs[a]!]!;
    if (b - a === size[c]) exclusive[k] = c;
    else for (let i = a; i < b; i++) shared[classOf[subs[i]!]!] = 1;
  }
  const topicClass = new Int32Array(K).fill(-1);
  const renumber = new Int32Array(classes).fill(-1);
  let used = 0;
  for (let k = 0; k < K; k++) {
    const c = exclusive[k]!;
    if (c < 0 || shared[c] === 1) continue;
    if (renumber[c]! < 0) renumber[c] = used++;
    topicClass[k] = renumber[c]!;
  }
  return topicClass;
}

/** Back to partitions: kernel topics read from the items; folded topics follow their parents. */
function ownersFromKernel(w: Planner, itemOwner: Int32Array, itemStart: Int32Array): Int32Array {
  const { p, topicStart } = w;
  const T = p.counts.length;
  const out = new Int32Array(topicStart[T]!);
  for (let t = 0; t < T; t++) {
    const parent = w.parent[t];
    if (parent === null || parent === undefined) continue;
    for (let q = 0; q < p.counts[t]!; q++) out[topicStart[t]! + q] = parent[q % parent.length]!;
  }
  for (let k = 0; k < w.kts.length; k++) {
    const kt = w.kts[k]!;
    for (const r of kt.real) out.set(itemOwner.subarray(itemStart[k]!, itemStart[k]! + kt.base), topicStart[r]!);
  }
  return out;
}
