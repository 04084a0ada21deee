// assignor's sticky planner on the consumer protocol: what the broker plugin `assignor-sticky`
// (jvm/, docs/broker.md) answers inside a Kafka 4.4 broker, previewed here from the same input.
// The translation is the plugin's, so both hand groupPlan the same problem:
//  - members in id order and topics in id order (the Uuid's text), as code units compare, so the
//    answer does not depend on the order the broker lists them in;
//  - the current assignment as owners (already cleaned: see assign.ts);
//  - no recorded counts: a topic whose owned partitions are exactly 0..B-1 while it has more grew
//    from B (inferGrowth), and growthSkew is 2;
//  - racks when a member has one: member racks interned in name order, each partition's replica
//    racks that some member is in, ascending.
import { loadKernels } from '../../engine/kernels.js';
import type { GroupPlanProblem } from '../../engine/abi.js';
import type { Group } from '../input.js';
import { formatTopicId, type TopicId } from '../topic-id.js';
import { byCodeUnits, sameItems } from '../../basics.js';

/** The plugin's growthSkew: a member may hold twice its share of a grown topic to keep every key. */
const BROKER_GROWTH_SKEW = 2;

/** Owner (member index, -1: none) per partition of each assigned topic, as the plugin gives them. */
export function assignConsumerSticky(group: Group, ids: readonly TopicId[], current: readonly Int32Array[]): Int32Array[] {
  const M = group.members.length;
  const byId = Int32Array.from(group.members.keys()).sort((a, b) => byCodeUnits(group.members[a]!.id, group.members[b]!.id));
  const pos = new Int32Array(M);
  byId.forEach((m, i) => (pos[m] = i));
  const texts = ids.map(formatTopicId);
  const topicOrder = Int32Array.from(group.assigned.keys()).sort((a, b) => byCodeUnits(texts[a]!, texts[b]!));
  const counts = Int32Array.from(topicOrder, (t) => group.topics.get(group.assigned[t]!)!.partitions);
  const lists = subscriberLists(group, byId, topicOrder);
  const owner = new Int32Array(counts.reduce((a, b) => a + b, 0));
  let at = 0;
  for (const t of topicOrder) for (const o of current[t]!) owner[at++] = o < 0 ? -1 : pos[o]!;
  const racks = rackTables(group, byId, topicOrder);
  const result = loadKernels().groupPlan({ members: M, counts, from: new Int32Array(counts.length), inferGrowth: true, growthSkew: BROKER_GROWTH_SKEW, ...lists, owner, ...racks, coStart: new Int32Array(1), coTopics: new Int32Array(0) });
  const out: Int32Array[] = new Array<Int32Array>(group.assigned.length);
  at = 0;
  topicOrder.forEach((t, i) => {
    out[t] = Int32Array.from(result.owner.subarray(at, at + counts[i]!), (s) => (s < 0 ? -1 : byId[s]!));
    at += counts[i]!;
  });
  return out;
}

/**
 * Subscribers of each topic (in topicOrder), ascending positions in id order, as the planner's
 * lists: a topic with the same subscribers as the topic before it shares its list.
 */
function subscriberLists(group: Group, byId: Int32Array, topicOrder: Int32Array): Pick<GroupPlanProblem, 'listStart' | 'listMembers' | 'topicList'> {
  const slot = new Map<string, number>();
  topicOrder.forEach((t, i) => slot.set(group.assigned[t]!, i));
  const perTopic: number[][] = Array.from(topicOrder, () => []);
  byId.forEach((m, s) => {
    for (const name of group.members[m]!.topics) perTopic[slot.get(name) ?? -1]?.push(s);
  });
  const lists: number[][] = [];
  const topicList = Int32Array.from(perTopic, (l, i) => {
    if (i === 0 || !sameItems(l, perTopic[i - 1]!)) lists.push(l);
    return lists.length - 1;
  });
  const listStart = new Int32Array(lists.length + 1);
  lists.forEach((l, i) => (listStart[i + 1] = listStart[i]! + l.length));
  return { listStart, listMembers: Int32Array.from(lists.flat()), topicList };
}

/** Member racks and each partition's member racks (ascending); no racks when no member has one. */
function rackTables(group: Group, byId: Int32Array, topicOrder: Int32Array) {
  const names = [...new Set(group.members.map((m) => m.rack).filter((r): r is string => r !== null))].sort(byCodeUnits);
  const rackId = new Map(names.map((r, i) => [r, i]));
  const memberRack = Int32Array.from(byId, (m) => rackId.get(group.members[m]!.rack ?? '') ?? -1);
  const rackStart: number[] = [0];
  const racks: number[] = [];
  if (names.length > 0) {
    for (const t of topicOrder) {
      const topic = group.topics.get(group.assigned[t]!)!;
      for (let p = 0; p < topic.partitions; p++) {
        const mine = (topic.racks?.[p] ?? []).map((r) => rackId.get(r) ?? -1).filter((r) => r >= 0);
        racks.push(...[...new Set(mine)].sort((a, b) => a - b));
        rackStart.push(racks.length);
      }
    }
  }
  return { rackCount: names.length, memberRack, rackStart: Int32Array.from(rackStart), racks: Int32Array.from(racks) };
}
