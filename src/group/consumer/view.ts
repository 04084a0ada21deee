// The group as the broker hands it to a KIP-848 assignor (GroupSpec, SubscribedTopicDescriber):
// members in the order the broker's HashMap of members iterates them, topics by id, and each
// member's current assignment as flat segments. Built once; `uniform` and `range` read it.
//
// The canonical order (docs/group.md, "Which answers depend on order"): the broker's maps are
// filled with members by id and topics by name, as code units compare; Java's own hash tables
// then order what they order, and java-order.ts reproduces that.
import type { Group } from '../input.js';
import { javaStringHash } from '../../basics.js';
import { copiedCapacity, grownCapacity, iterationOrder } from '../java-order.js';
import { topicIdHash, type TopicId } from '../topic-id.js';
import { byCodeUnits } from '../../basics.js';

export interface ConsumerView {
  group: Group;
  /** Member indices (into group.members) in the broker's iteration order of memberIds(). */
  order: Int32Array;
  /** Per topic index t (group.assigned, by name): id, partition count, current owner per partition (member index, -1 none). */
  ids: TopicId[];
  counts: Int32Array;
  current: Int32Array[];
  /**
   * Each member's current assignment, flat: member m holds segments seg[m] .. seg[m + 1]; segment s
   * is topic segTopic[s] (ascending by name within a member), partitions parts[segStart[s] .. segStart[s + 1]), ascending.
   */
  seg: Int32Array;
  segTopic: Int32Array;
  segStart: Int32Array;
  parts: Int32Array;
}

/** memberIds() of the broker's HashMap of members, filled in member-id order. */
function memberOrder(group: Group): Int32Array {
  const hashes = Int32Array.from(group.members, (m) => javaStringHash(m.id));
  return iterationOrder(hashes, grownCapacity(hashes.length));
}

/** Per member, its current partitions by topic: a counting sort of every owned partition by member. */
function segments(view: ConsumerView): void {
  const M = view.group.members.length;
  const per = new Int32Array(M + 1);
  const topicsOf = new Int32Array(M + 1);
  const lastTopic = new Int32Array(M).fill(-1);
  view.current.forEach((owner, t) => {
    for (const m of owner) {
      if (m < 0) continue;
      per[m + 1]!++;
      if (lastTopic[m] !== t) (lastTopic[m] = t), topicsOf[m + 1]!++;
    }
  });
  for (let m = 0; m < M; m++) (per[m + 1]! += per[m]!), (topicsOf[m + 1]! += topicsOf[m]!);
  view.seg = topicsOf;
  view.segTopic = new Int32Array(topicsOf[M]!);
  // Segment s ends where s + 1 begins: a member's parts are followed by the next member's.
  view.segStart = new Int32Array(topicsOf[M]! + 1);
  view.segStart[topicsOf[M]!] = per[M]!;
  view.parts = new Int32Array(per[M]!);
  const nextPart = per.slice(0, M);
  const nextSeg = topicsOf.slice(0, M);
  lastTopic.fill(-1);
  view.current.forEach((owner, t) => {
    for (let p = 0; p < owner.length; p++) {
      const m = owner[p]!;
      if (m < 0) continue;
      if (lastTopic[m] !== t) {
        lastTopic[m] = t;
        view.segTopic[nextSeg[m]!] = t;
        view.segStart[nextSeg[m]!++] = nextPart[m]!;
      }
      view.parts[nextPart[m]!++] = p;
    }
  });
}

/** The broker's view of a checked group with its current owners (claims already resolved). */
export function consumerView(group: Group, ids: TopicId[], current: Int32Array[]): ConsumerView {
  const view: ConsumerView = {
    group,
    order: memberOrder(group),
    ids,
    counts: Int32Array.from(current, (o) => o.length),
    current,
    seg: new Int32Array(0),
    segTopic: new Int32Array(0),
    segStart: new Int32Array(0),
    parts: new Int32Array(0),
  };
  segments(view);
  return view;
}

const NONE = new Int32Array(0);

/**
 * Topic indices of a member's map of current partitions (a HashMap by topic id, put in name
 * order), in the order it iterates them: segment indices.
 */
export function segmentOrder(view: ConsumerView, m: number): Int32Array {
  const first = view.seg[m]!;
  const k = view.seg[m + 1]! - first;
  if (k <= 1) return k === 0 ? NONE : Int32Array.of(first);
  const hashes = new Int32Array(k);
  for (let i = 0; i < k; i++) hashes[i] = topicIdHash(view.ids[view.segTopic[first + i]!]!);
  const order = iterationOrder(hashes, grownCapacity(k));
  for (let i = 0; i < k; i++) order[i]! += first;
  return order;
}

/** The partitions of segment s in the order `new HashSet<Integer>(ascending list)` iterates them. */
export function partitionOrder(view: ConsumerView, s: number): Int32Array {
  const list = view.parts.subarray(view.segStart[s]!, view.segStart[s + 1]!);
  const cap = copiedCapacity(list.length);
  // Below both the table size and 2^16 a partition is its own bucket: the order is ascending.
  if (list.length === 0 || list[list.length - 1]! < Math.min(cap, 65536)) return list;
  const order = iterationOrder(list, cap);
  return Int32Array.from(order, (i) => list[i]!);
}

/**
 * A subscription's topic indices in the order `new HashSet<Uuid>(TopicIds)` iterates them: the
 * names go into a HashSet<String> (by name), TopicIds walks it skipping names without metadata,
 * and its size counts those too.
 */
export function subscribedTopicOrder(view: ConsumerView, names: readonly string[], indexOf: Map<string, number>): Int32Array {
  const sorted = [...names].sort(byCodeUnits);
  const byName = iterationOrder(Int32Array.from(sorted, javaStringHash), copiedCapacity(sorted.length));
  const resolved: number[] = [];
  for (const i of byName) {
    const t = indexOf.get(sorted[i]!);
    if (t !== undefined) resolved.push(t);
  }
  const order = iterationOrder(Int32Array.from(resolved, (t) => topicIdHash(view.ids[t]!)), copiedCapacity(sorted.length));
  return Int32Array.from(order, (i) => resolved[i]!);
}

/**
 * Subscribers of each assigned topic (group.assigned), as members listed in `order`, in that order.
 * Members with one subscription share one list (input.ts), and topics subscribed by the same lists
 * share one result: the work is per distinct combination, not per member and topic.
 */
export function subscribersInOrder(group: Group, order: Int32Array): Int32Array[] {
  const lists = new Map<readonly string[], number>();
  const listOf = group.members.map((member) => lists.get(member.topics) ?? (lists.set(member.topics, lists.size), lists.size - 1));
  const inLists = new Map<string, number[]>();
  for (const [topics, l] of lists) for (const t of topics) inLists.get(t)?.push(l) ?? inLists.set(t, [l]);
  const byCombination = new Map<string, Int32Array>();
  const wanted = new Uint8Array(lists.size);
  return group.assigned.map((name) => {
    const combination = inLists.get(name)!;
    const key = combination.join(',');
    let subscribers = byCombination.get(key);
    if (subscribers === undefined) {
      wanted.fill(0);
      for (const l of combination) wanted[l] = 1;
      const out: number[] = [];
      for (let i = 0; i < order.length; i++) if (wanted[listOf[order[i]!]!] === 1) out.push(i);
      subscribers = Int32Array.from(out);
      byCombination.set(key, subscribers);
    }
    return subscribers;
  });
}
