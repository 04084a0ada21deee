// The broker's `range` assignor (kafka-group-coordinator 4.4.0, RangeAssignor), exactly: per topic,
// its subscribers in Kafka's member order (static members first by instance id, then by member id)
// take consecutive ranges, floor(P / S) each and one more for the first P % S. Recomputed from
// scratch every time (not sticky), no racks, and independent of any hash-table order.
import type { Group } from '../input.js';
import { kafkaOrder } from '../member-order.js';
import { subscribersInOrder } from './view.js';

/** Owner (member index) per partition of each assigned topic. */
export function assignConsumerRange(group: Group): Int32Array[] {
  const sorted = Int32Array.from(kafkaOrder(group.members, group.members.map((_, m) => m)));
  const subscribers = subscribersInOrder(group, sorted);
  return group.assigned.map((name, t) => {
    const owner = new Int32Array(group.topics.get(name)!.partitions);
    const subs = subscribers[t]!;
    const quota = Math.floor(owner.length / subs.length);
    const extra = owner.length % subs.length;
    // Stops at the last partition: with more subscribers than partitions, the rest get nothing.
    for (let i = 0, p = 0; p < owner.length; i++) {
      const end = p + quota + (i < extra ? 1 : 0);
      while (p < end) owner[p++] = sorted[subs[i]!]!;
    }
    return owner;
  });
}
