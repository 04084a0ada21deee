// The broker's `range` assignor (kafka-group-coordinator 4.4.0, RangeAssignor), exactly: per topic,
// its subscribers in Kafka's member order (static members first by instance id, then by member id)
// take consecutive ranges, floor(P / S) each and one more for the first P % S. Recomputed from
// scratch every time (not sticky), no racks, and independent of any hash-table order.
import type { Group } from '../input.js';
import { kafkaOrder } from '../member-order.js';

/**
 * Subscribers of each assigned topic, in Kafka's member order. Members with the same subscription
 * share one list (input.ts), so the work is per distinct list and per distinct set of lists a
 * topic appears in, not per member and topic.
 */
function subscribersByTopic(group: Group): Int32Array[] {
  const M = group.members.length;
  const sorted = Int32Array.from(kafkaOrder(group.members, group.members.map((_, m) => m)));
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
      for (let i = 0; i < M; i++) if (wanted[listOf[sorted[i]!]!] === 1) out.push(sorted[i]!);
      subscribers = Int32Array.from(out);
      byCombination.set(key, subscribers);
    }
    return subscribers;
  });
}

/** Owner (member index) per partition of each assigned topic. */
export function assignConsumerRange(group: Group): Int32Array[] {
  const subscribers = subscribersByTopic(group);
  return group.assigned.map((name, t) => {
    const owner = new Int32Array(group.topics.get(name)!.partitions);
    const subs = subscribers[t]!;
    const quota = Math.floor(owner.length / subs.length);
    const extra = owner.length % subs.length;
    // Stops at the last partition: with more subscribers than partitions, the rest get nothing.
    for (let i = 0, p = 0; p < owner.length; i++) {
      const end = p + quota + (i < extra ? 1 : 0);
      while (p < end) owner[p++] = subs[i]!;
    }
    return owner;
  });
}
