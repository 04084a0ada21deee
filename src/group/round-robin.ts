// Kafka's RoundRobinAssignor (kafka-clients 4.1 and 4.4), exactly: every partition of every subscribed
// topic, sorted by topic name (UTF-16 code units, Java's TreeSet) then partition, dealt in turn
// over all members in Kafka's member order (member-order.ts). A member not subscribed to the
// partition's topic is skipped, and the turn moves on past it. Not rack-aware.
import type { Group } from './input.js';
import { kafkaOrder } from './member-order.js';

/** Owner (member index) of every partition of every assigned topic, as Kafka's RoundRobinAssignor decides. */
export function assignRoundRobin(group: Group): Map<string, Int32Array> {
  const order = kafkaOrder(group.members, group.members.map((_, m) => m));
  const T = group.assigned.length;
  const topicIndex = new Map(group.assigned.map((name, t) => [name, t]));
  // subscribes[turn * T + t]: whether the member at that turn subscribes topic t (a byte, not a string lookup per partition).
  const subscribes = new Uint8Array(order.length * T);
  order.forEach((m, turn) => {
    for (const name of group.members[m]!.topics) {
      const t = topicIndex.get(name);
      if (t !== undefined) subscribes[turn * T + t] = 1;
    }
  });
  const out = new Map<string, Int32Array>();
  let turn = 0; // the circular iterator's position in `order`
  for (let t = 0; t < T; t++) {
    const name = group.assigned[t]!;
    const owner = new Int32Array(group.topics.get(name)!.partitions);
    for (let p = 0; p < owner.length; p++) {
      while (subscribes[turn * T + t] === 0) turn = (turn + 1) % order.length;
      owner[p] = order[turn]!;
      turn = (turn + 1) % order.length;
    }
    out.set(name, owner);
  }
  return out;
}
