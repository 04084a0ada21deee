// The group planner, whole (issue 30): the AssemblyScript twin of
// src/engine/reference/group-plan.ts (read that file for the why), step for step. One entry,
// groupPlan(header): the header's layout is PLAN_HEADER in src/engine/abi.ts, written by the
// TypeScript binding and by the broker plugin (jvm/). Every array is i32 in linear memory; the
// planner's tables are module globals (one call at a time), allocated from the arena.

import { ld, st, inc, dec, scratch, unfilled } from './mem';
import {
  groupAssign, B_MEMBERS, B_TOPICS, B_ITEMS, B_RACK_COUNT, B_MEMBER_RACK, B_TOPIC_CLASS, B_TOPIC_WEIGHT, B_SUB_START,
  B_SUBS, B_ITEM_START, B_PREV_OWNER, B_SOFT_OWNER, B_HAS_SOFT, B_RACK_START, B_RACKS, B_OWNER, B_SUB_LIST, B_SUB_BASE, B_SLOTS, subscriberListIds, sameList,
} from './group';

// Header byte offsets: PLAN_HEADER in src/engine/abi.ts, which the TypeScript binding and the
// broker plugin write (kept equal by test/group/plan-kernel.test.ts and the plugin's tests).
const H_MEMBERS: usize = 0;
const H_TOPICS: usize = 4;
const H_RACK_COUNT: usize = 8;
const H_CO_SETS: usize = 12;
const H_INFER_GROWTH: usize = 16;
const H_COUNTS: usize = 20;
const H_FROM: usize = 24;
const H_LIST_START: usize = 28;
const H_LIST_MEMBERS: usize = 32;
const H_OWNER: usize = 36;
const H_MEMBER_RACK: usize = 40;
const H_RACK_START: usize = 44;
const H_RACKS: usize = 48;
const H_CO_START: usize = 52;
const H_CO_TOPICS: usize = 56;
const H_OUT_OWNER: usize = 60;
const H_OUT_GROWTH: usize = 64;
const H_OUT_GROWTH_COUNT: usize = 68;
const H_OUT_FROM: usize = 72;
const H_OUT_CO_STATUS: usize = 76;
const H_GROWTH_SKEW: usize = 80;
const H_TOPIC_LIST: usize = 88;
const H_LISTS: usize = 92;

// The problem, read from the header. Index spaces: t topic, m member, i flat partition.
let pM: i32 = 0;
let pT: i32 = 0;
let pRackCount: i32 = 0;
let pCounts: usize = 0; // t
let pL: i32 = 0; // subscriber lists
let pListStart: usize = 0; // l (L + 1): list l is pListMembers[pListStart[l] .. pListStart[l + 1])
let pListMembers: usize = 0;
let pTopicList: usize = 0; // t: its subscriber list
let pOwner: usize = 0; // i
let pMemberRack: usize = 0; // m
let pRackStart: usize = 0; // i (N + 1)
let pRacks: usize = 0;
let pSkew: f64 = 0;

// The planner's tables.
let wTopicStart: usize = 0; // t (T + 1): where topic t starts among the flat partitions
let wFrom: usize = 0; // t: the count before a growth, 0 when none (the output array)
let wSetStart: usize = 0; // honored co-partitioned sets, topics ascending: CSR over wSetTopics
let wSetTopics: usize = 0;
let wSets: i32 = 0;
let wK: i32 = 0; // kernel topics (k)
let wDirect: bool = false; // kernel topic k is topic k (no fold, no set): its items are its partitions
let wRealStart: usize = 0; // k (K + 1): real topics of k, CSR over wReal
let wReal: usize = 0;
let wBase: usize = 0; // k: items (= partitions of each real topic)
let wKFrom: usize = 0; // k: the growth's old count, 0 when none
let wKtOf: usize = 0; // t: its kernel topic, -1 when folded
let wParentAt: usize = 0; // t: where its old partitions' owners start in wParents, -1 when not folded
let wParentLen: usize = 0; // t: B of a fold
let wParents: usize = 0;
let wParentsUsed: i32 = 0;
let wGrowth: usize = 0; // triples (t, code, value)
let wGrowthN: i32 = 0;

// The balancing kernel's problem (k: kernel topic, j: item).
let kSubStart: usize = 0; // k (K + 1): the slots of kernel topic k, one per subscriber
let kSubBase: usize = 0; // k: where its subscribers start in pListMembers (kernel topics share lists)
let kItemStart: usize = 0;
let kWeight: usize = 0;
let kPrev: usize = 0;
let kSoft: usize = 0;
let kNSoft: i32 = 0;
let kRackStart: usize = 0;
let kRacks: usize = 0;
let kRackN: i32 = 0;
let kClass: usize = 0;
let kSubList: usize = 0; // k: the first kernel topic with its subscriber list (its list id)

export function groupPlan(h: usize): i32 {
  readHeader(h);
  topicStarts();
  if (load<i32>(h, H_INFER_GROWTH) != 0) inferFrom();
  else memory.copy(wFrom, load<u32>(h, H_FROM), <usize>pT << 2);
  honoredSets(load<i32>(h, H_CO_SETS), load<u32>(h, H_CO_START), load<u32>(h, H_CO_TOPICS), load<u32>(h, H_OUT_CO_STATUS));
  kernelTopics();
  kernelProblem();
  const N = ld(kItemStart, wK);
  // Kernel topic k is topic k (nothing folded or joined): items are partitions, owners go straight out.
  const out: usize = load<u32>(h, H_OUT_OWNER);
  const itemOwner = wDirect ? out : unfilled(N); // the kernel sets every owner
  const status = groupAssign(balancingProblem(N, itemOwner));
  if (status != 0) return status;
  if (!wDirect) ownersFromKernel(itemOwner, out);
  store<i32>(h, wGrowthN, H_OUT_GROWTH_COUNT);
  return 0;
}

/** The balancing kernel's problem header (B_* slots in group.ts). */
function balancingProblem(N: i32, owner: usize): usize {
  const b = scratch(B_SLOTS, 0);
  st(b, B_MEMBERS, pM);
  st(b, B_TOPICS, wK);
  st(b, B_ITEMS, N);
  st(b, B_RACK_COUNT, pRackCount);
  st(b, B_MEMBER_RACK, <i32>pMemberRack);
  st(b, B_TOPIC_CLASS, <i32>kClass);
  st(b, B_TOPIC_WEIGHT, <i32>kWeight);
  st(b, B_SUB_START, <i32>kSubStart);
  st(b, B_SUBS, <i32>pListMembers);
  st(b, B_SUB_BASE, <i32>kSubBase);
  st(b, B_ITEM_START, <i32>kItemStart);
  st(b, B_PREV_OWNER, <i32>kPrev);
  st(b, B_SOFT_OWNER, <i32>kSoft);
  st(b, B_HAS_SOFT, kNSoft);
  st(b, B_RACK_START, <i32>kRackStart);
  st(b, B_RACKS, <i32>kRacks);
  st(b, B_OWNER, <i32>owner);
  st(b, B_SUB_LIST, <i32>kSubList);
  return b;
}

function readHeader(h: usize): void {
  pM = load<i32>(h, H_MEMBERS);
  pT = load<i32>(h, H_TOPICS);
  pRackCount = load<i32>(h, H_RACK_COUNT);
  pCounts = load<u32>(h, H_COUNTS);
  pL = load<i32>(h, H_LISTS);
  pListStart = load<u32>(h, H_LIST_START);
  pListMembers = load<u32>(h, H_LIST_MEMBERS);
  pTopicList = load<u32>(h, H_TOPIC_LIST);
  pOwner = load<u32>(h, H_OWNER);
  pMemberRack = load<u32>(h, H_MEMBER_RACK);
  pRackStart = load<u32>(h, H_RACK_START);
  pRacks = load<u32>(h, H_RACKS);
  pSkew = load<f64>(h, H_GROWTH_SKEW);
  wGrowth = load<u32>(h, H_OUT_GROWTH);
  wFrom = load<u32>(h, H_OUT_FROM);
  wGrowthN = 0;
}

function topicStarts(): void {
  wTopicStart = scratch(pT + 1, 0);
  for (let t = 0; t < pT; t++) st(wTopicStart, t + 1, ld(wTopicStart, t) + ld(pCounts, t));
}

/** A topic whose owned partitions are exactly 0..B-1 (0 < B < count) grew from B. */
function inferFrom(): void {
  for (let t = 0; t < pT; t++) {
    const s = ld(wTopicStart, t);
    const C = ld(pCounts, t);
    let B = 0;
    while (B < C && ld(pOwner, s + B) >= 0) B++;
    let rest = B;
    while (rest < C && ld(pOwner, s + rest) < 0) rest++;
    st(wFrom, t, B > 0 && B < C && rest == C ? B : 0);
  }
}

/** Co-partitioned sets that hold (two topics or more, one count, one set of subscribers); why not in coStatus. */
function honoredSets(G: i32, coStart: usize, coTopics: usize, coStatus: usize): void {
  wSetStart = scratch(G + 1, 0);
  wSetTopics = scratch(ld(coStart, G), 0);
  wSets = 0;
  for (let g = 0; g < G; g++) {
    const a = ld(coStart, g);
    const b = ld(coStart, g + 1);
    let code = b - a < 2 ? 1 : 0;
    let at = -1;
    const t0 = ld(coTopics, a);
    for (let i = a; i < b && code == 0; i++) {
      const t = ld(coTopics, i);
      if (ld(pCounts, t) != ld(pCounts, t0)) code = 2;
      else if (!sameList(pListStart, pListMembers, ld(pTopicList, t), ld(pTopicList, t0))) code = 3;
      if (code != 0) at = t;
    }
    st(coStatus, 2 * g, code);
    st(coStatus, 2 * g + 1, at);
    if (code == 0) keepSet(coTopics, a, b);
  }
}

/** Appends coTopics[a..b) as an honored set, ascending (insertion sort: sets are small). */
function keepSet(coTopics: usize, a: i32, b: i32): void {
  const s0 = ld(wSetStart, wSets);
  for (let i = a; i < b; i++) {
    const v = ld(coTopics, i);
    let j = s0 + (i - a);
    while (j > s0 && ld(wSetTopics, j - 1) > v) {
      st(wSetTopics, j, ld(wSetTopics, j - 1));
      j--;
    }
    st(wSetTopics, j, v);
  }
  wSets++;
  st(wSetStart, wSets, s0 + (b - a));
}


/** Owner with the most of partition j among the real topics list[a..b) (ties: lowest member), or -1. */
function majority(list: usize, a: i32, b: i32, j: i32): i32 {
  if (b - a == 1) return ld(pOwner, ld(wTopicStart, ld(list, a)) + j);
  let best = -1;
  let bestVotes = 0;
  for (let i = a; i < b; i++) {
    const m = ld(pOwner, ld(wTopicStart, ld(list, i)) + j);
    if (m < 0) continue;
    let votes = 0;
    for (let k = a; k < b; k++) if (ld(pOwner, ld(wTopicStart, ld(list, k)) + j) == m) votes++;
    if (votes > bestVotes || (votes == bestVotes && m < best)) {
      best = m;
      bestVotes = votes;
    }
  }
  return best;
}

/** Kernel topics in the order of their first real topic; a growth to a multiple folded instead when it can be. */
function kernelTopics(): void {
  const setOf = scratch(pT, -1);
  for (let g = 0; g < wSets; g++) for (let i = ld(wSetStart, g); i < ld(wSetStart, g + 1); i++) st(setOf, ld(wSetTopics, i), g);
  const done = scratch(pT, 0);
  wRealStart = scratch(pT + 1, 0);
  wReal = scratch(pT + ld(wSetStart, wSets), 0);
  wBase = scratch(pT, 0);
  wKFrom = scratch(pT, 0);
  wKtOf = scratch(pT, -1);
  wParentAt = scratch(pT, -1);
  wParentLen = scratch(pT, 0);
  wParents = unfilled(ld(wTopicStart, pT)); // written by a fold before it is read
  wParentsUsed = 0;
  wK = 0;
  for (let t = 0; t < pT; t++) {
    if (ld(done, t) == 1) continue;
    // The real topics go at the end of wReal, as kernel topic wK's if they are not folded.
    const a = ld(wRealStart, wK);
    let b = a;
    const g = ld(setOf, t);
    if (g < 0) st(wReal, b++, t);
    else for (let i = ld(wSetStart, g); i < ld(wSetStart, g + 1); i++) st(wReal, b++, ld(wSetTopics, i));
    let same = true;
    for (let i = a; i < b; i++) {
      st(done, ld(wReal, i), 1);
      if (ld(wFrom, ld(wReal, i)) != ld(wFrom, t)) same = false;
    }
    const C = ld(pCounts, t);
    const f = ld(wFrom, t);
    const B = same && f > 0 && f < C ? f : 0;
    if (B > 0 && foldGrowth(a, b, B)) continue;
    for (let i = a; i < b; i++) st(wKtOf, ld(wReal, i), wK);
    st(wBase, wK, C);
    st(wKFrom, wK, B);
    wK++;
    st(wRealStart, wK, b);
  }
}

/** Folds a growth B -> C of the real topics wReal[a..b) when it can; one growth triple per real topic. */
function foldGrowth(a: i32, b: i32, B: i32): bool {
  const t = ld(wReal, a);
  const C = ld(pCounts, t);
  const S = subscriberCount(t);
  let code = 2;
  let value = 0;
  const parent = wParents + (<usize>wParentsUsed << 2);
  if (C % B == 0 && S > 0) {
    const families = scratch(pM, 0); // old partitions per owner
    let orphans = 0;
    let largest = 0;
    for (let j = 0; j < B; j++) {
      const m = majority(wReal, a, b, j);
      st(parent, j, m);
      if (m < 0) orphans++;
      else {
        inc(families, m);
        if (ld(families, m) > largest) largest = ld(families, m);
      }
    }
    const most = largest * (C / B);
    if (orphans > 0) {
      code = 3;
      value = orphans;
    } else if (<f64>most * <f64>S > pSkew * <f64>C) {
      code = 4;
      value = most;
    } else code = 1;
  }
  for (let i = a; i < b; i++) {
    const r = ld(wReal, i);
    st(wGrowth, 3 * wGrowthN, r);
    st(wGrowth, 3 * wGrowthN + 1, code);
    st(wGrowth, 3 * wGrowthN + 2, value);
    wGrowthN++;
    if (code == 1) {
      st(wParentAt, r, wParentsUsed);
      st(wParentLen, r, B);
    }
  }
  if (code == 1) wParentsUsed += B;
  return code == 1;
}

/** The balancing kernel's problem: kernel topics, their items, previous and soft owners, racks, classes. */
function kernelProblem(): void {
  kSubStart = scratch(wK + 1, 0);
  kSubBase = scratch(wK, 0);
  kItemStart = scratch(wK + 1, 0);
  kWeight = scratch(wK, 0);
  let anyFrom = false;
  for (let k = 0; k < wK; k++) {
    const t0 = ld(wReal, ld(wRealStart, k));
    st(kSubStart, k + 1, ld(kSubStart, k) + subscriberCount(t0));
    st(kSubBase, k, ld(pListStart, ld(pTopicList, t0)));
    st(kItemStart, k + 1, ld(kItemStart, k) + ld(wBase, k));
    st(kWeight, k, ld(wRealStart, k + 1) - ld(wRealStart, k));
    if (ld(wKFrom, k) > 0) anyFrom = true;
  }
  // Kernel topic k is topic k when nothing was folded or joined: owners are shared.
  wDirect = wK == pT && wSets == 0;
  const N = ld(kItemStart, wK);
  kPrev = wDirect ? pOwner : unfilled(N); // every item written by itemsOf
  kNSoft = anyFrom ? 1 : 0;
  kSoft = anyFrom ? scratch(N, -1) : 0;
  kRackStart = 0;
  kRacks = 0;
  kRackN = 0;
  // Direct: every item is one partition, so its common racks are its own racks, as given.
  if (pRackCount > 0 && wDirect) {
    kRackStart = pRackStart;
    kRacks = pRacks;
  } else if (pRackCount > 0) {
    kRackStart = scratch(N + 1, 0);
    kRacks = scratch(ld(pRackStart, ld(wTopicStart, pT)), 0);
  }
  for (let k = 0; k < wK; k++) itemsOf(k);
  kSubList = kernelListIds();
  kClass = balancedClasses();
}

/** Topic t's subscriber count. */
function subscriberCount(t: i32): i32 {
  const l = ld(pTopicList, t);
  return ld(pListStart, l + 1) - ld(pListStart, l);
}

/**
 * Per kernel topic: the first kernel topic with the same subscriber list (its list id). Equal lists
 * are found over the problem's lists, each compared once, not over every kernel topic's copy: a
 * homogeneous group's one list serves all its topics.
 */
function kernelListIds(): usize {
  const sameAs = subscriberListIds(pListStart, pListMembers, pL); // l: the first list equal to it
  const firstTopic = scratch(pL, -1); // l (first of its equals): the first kernel topic with it
  const ids = scratch(wK, 0);
  for (let k = 0; k < wK; k++) {
    const l = ld(sameAs, ld(pTopicList, ld(wReal, ld(wRealStart, k))));
    if (ld(firstTopic, l) < 0) st(firstTopic, l, k);
    st(ids, k, ld(firstTopic, l));
  }
  return ids;
}

/** Kernel topic k's items: previous owner, soft owner after a growth, common racks. */
function itemsOf(k: i32): void {
  const a = ld(wRealStart, k);
  const b = ld(wRealStart, k + 1);
  const i0 = ld(kItemStart, k);
  const base = ld(wBase, k);
  const from = ld(wKFrom, k);
  if (!wDirect && b - a == 1) memory.copy(kPrev + (<usize>i0 << 2), pOwner + (<usize>ld(wTopicStart, ld(wReal, a)) << 2), <usize>base << 2);
  else if (!wDirect) for (let j = 0; j < base; j++) st(kPrev, i0 + j, majority(wReal, a, b, j));
  if (from > 0) for (let j = from; j < base; j++) st(kSoft, i0 + j, majority(wReal, a, b, j % from));
  if (pRackCount > 0 && !wDirect) for (let j = 0; j < base; j++) commonRacks(a, b, j, i0 + j);
}

/** Racks of item `item` (partition j of the real topics wReal[a..b)): those of the first that every other one is on too. */
function commonRacks(a: i32, b: i32, j: i32, item: i32): void {
  const first = ld(wTopicStart, ld(wReal, a)) + j;
  for (let x = ld(pRackStart, first); x < ld(pRackStart, first + 1); x++) {
    const r = ld(pRacks, x);
    let everywhere = true;
    for (let q = a + 1; q < b && everywhere; q++) {
      const at = ld(wTopicStart, ld(wReal, q)) + j;
      everywhere = false;
      for (let y = ld(pRackStart, at); y < ld(pRackStart, at + 1); y++) if (ld(pRacks, y) == r) everywhere = true;
    }
    if (everywhere) st(kRacks, kRackN++, r);
  }
  st(kRackStart, item + 1, kRackN);
}

/**
 * Class id per kernel topic (numbered as they appear) when its class's totals balance, else -1.
 * Members with the same kernel topics form a class, found by refinement (every topic splits the
 * classes of its subscribers): one pass over the subscribers, no per-member lists.
 */
function balancedClasses(): usize {
  const K = wK;
  const M = pM;
  // A class id whose members all left is reused, so ids stay below M + 1: every id in use has a member.
  const classOf = scratch(M, 0);
  const stamp = scratch(M + 1, -1); // per class: the last topic that split it, and its part in
  const part = scratch(M + 1, 0);
  const size = scratch(M + 1, 0);
  const unused = scratch(M + 1, 0);
  let nUnused = 0;
  st(size, 0, M);
  let classes = 1;
  for (let k = 0; k < K; k++) {
    if (ld(kSubList, k) != k) continue; // an earlier topic had these subscribers: no new split
    const subs = pListMembers + (<usize>ld(kSubBase, k) << 2);
    for (let i = 0; i < ld(kSubStart, k + 1) - ld(kSubStart, k); i++) {
      const m = ld(subs, i);
      const c = ld(classOf, m);
      if (ld(stamp, c) != k) {
        st(stamp, c, k);
        st(part, c, nUnused > 0 ? ld(unused, --nUnused) : classes++);
      }
      const to = ld(part, c);
      st(classOf, m, to);
      inc(size, to);
      dec(size, c);
      if (ld(size, c) == 0) st(unused, nUnused++, c);
    }
  }
  // A kernel topic is exclusive to a class when all its subscribers are in it; a class balances
  // when it has topics and none of them is shared with another class.
  const exclusive = scratch(K, -1);
  const shared = scratch(classes, 0);
  for (let k = 0; k < K; k++) {
    const S = ld(kSubStart, k + 1) - ld(kSubStart, k);
    if (S == 0) continue;
    const subs = pListMembers + (<usize>ld(kSubBase, k) << 2);
    const c = ld(classOf, ld(subs, 0));
    if (S == ld(size, c)) st(exclusive, k, c);
    else for (let i = 0; i < S; i++) st(shared, ld(classOf, ld(subs, i)), 1);
  }
  const topicClass = scratch(K, -1);
  const renumber = scratch(classes, -1);
  let used = 0;
  for (let k = 0; k < K; k++) {
    const c = ld(exclusive, k);
    if (c < 0 || ld(shared, c) == 1) continue;
    if (ld(renumber, c) < 0) st(renumber, c, used++);
    st(topicClass, k, ld(renumber, c));
  }
  return topicClass;
}

/** Back to partitions: kernel topics read from the items; folded topics follow their parents. */
function ownersFromKernel(itemOwner: usize, out: usize): void {
  for (let t = 0; t < pT; t++) {
    const at = ld(wParentAt, t);
    if (at < 0) continue;
    const B = ld(wParentLen, t);
    const s = ld(wTopicStart, t);
    for (let q = 0; q < ld(pCounts, t); q++) st(out, s + q, ld(wParents, at + (q % B)));
  }
  for (let k = 0; k < wK; k++) {
    const src = itemOwner + (<usize>ld(kItemStart, k) << 2);
    const bytes = <usize>ld(wBase, k) << 2;
    for (let i = ld(wRealStart, k); i < ld(wRealStart, k + 1); i++) memory.copy(out + (<usize>ld(wTopicStart, ld(wReal, i)) << 2), src, bytes);
  }
}
