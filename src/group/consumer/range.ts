// The broker's `range` assignor (kafka-group-coordinator 4.4.0, RangeAssignor), exactly: per topic,
// its subscribers in Kafka's member order (static members first by instance id, then by member id)
// take consecutive ranges, floor(P / S) each and one more for the first P % S. Recomputed from
// scratch every time (not sticky), no racks, and independent of any hash-table order.
import { kafkaOrder } from '../member-order.js';
import type { ConsumerView } from './view.js';

export function assignConsumerRange(view: ConsumerView): Int32Array[] {
  const { group } = view;
  const indexOf = new Map(group.assigned.map((name, t) => [name, t]));
  const subscribersOf: number[][] = group.assigned.map(() => []);
  for (const m of kafkaOrder(group.members, group.members.map((_, i) => i))) {
    for (const name of group.members[m]!.topics) {
      const t = indexOf.get(name);
      if (t !== undefined) subscribersOf[t]!.push(m);
    }
  }
  return subscribersOf.map((subscribers, t) => {
    const owner = new Int32Array(view.counts[t]!).fill(-1);
    const quota = Math.floor(owner.length / subscribers.length);
    const extra = owner.length % subscribers.length;
    let next = 0;
    subscribers.forEach((m, i) => {
      const end = next + quota + (i < extra ? 1 : 0);
      owner.fill(m, next, end);
      next = end;
    });
    return owner;
  });
}
