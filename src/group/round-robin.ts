// Kafka's RoundRobinAssignor (kafka-clients 4.1), exactly: every partition of every subscribed
// topic, sorted by topic name (UTF-16 code units, Java's TreeSet) then partition, dealt in turn
// over all members in Kafka's member order (member-order.ts). A member not subscribed to the
// partition's topic is skipped, and the turn moves on past it. Not rack-aware.
import type { Group } from './input.js';
import { kafkaOrder } from './member-order.js';

/** Owner (member index) of every partition of every assigned topic, as Kafka's RoundRobinAssignor decides. */
export function assignRoundRobin(group: Group): Map<string, Int32Array> {
  const order = kafkaOrder(group.members, group.members.map((_, m) => m));
  const subscribes = order.map((m) => new Set(group.members[m]!.topics));
  const out = new Map<string, Int32Array>();
  let turn = 0; // the circular iterator's position in `order`
  for (const name of group.assigned) {
    const owner = new Int32Array(group.topics.get(name)!.partitions);
    for (let p = 0; p < owner.length; p++) {
      while (!subscribes[turn]!.has(name)) turn = (turn + 1) % order.length;
      owner[p] = order[turn]!;
      turn = (turn + 1) % order.length;
    }
    out.set(name, owner);
  }
  return out;
}
