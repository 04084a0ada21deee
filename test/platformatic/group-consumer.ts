// One @platformatic/kafka consumer with assignor's sticky assigner, as its own process (so that
// SIGKILL really kills a member without a LeaveGroup). Started by group-mixed.test.ts:
//   node --import tsx test/platformatic/group-consumer.ts <brokers> <groupId> <topic,topic,...> <name>
// Writes the same JSON lines as test/kafkajs/group-consumer.ts: 'join' (generation and assignment
// after each SyncGroup), 'report' (the leader's assignment report), 'msg' (every message, with the
// generation it was read in), 'ready', 'stopped', 'crash'. A line "stop" on stdin leaves cleanly;
// "rejoin" sends a JoinGroup again (its claims changed since its last join, so the group rebalances).
//
// Offsets are committed by this process, only for messages already written out and only for
// partitions it holds: the stream's own autocommit commits what it fetched, before the messages
// are read, so a SIGKILL could lose messages that are committed but were never read.
import './node-guard.js';
import { Consumer, MessagesStreamModes, stringDeserializers, type GroupAssignment } from '@platformatic/kafka';
import { createStickyAssigner } from '../../src/platformatic/index.js';
import { decodeClaims } from '../../src/group/protocol.js';

const [brokers, groupId, topicList, name] = process.argv.slice(2) as [string, string, string, string];
const topics = topicList.split(',');
const emit = (event: object): void => {
  process.stdout.write(JSON.stringify(event) + '\n');
};

// New partitions are noticed within a second, as the KafkaJS members' metadataMaxAge of 1000.
const sticky = createStickyAssigner({ growthCheckMs: 1000, onAssignment: (report) => emit({ type: 'report', name, report }) });
// With ASSIGNOR_GROUP_LOG=2 (diagnostics): the claims this member sends at each join.
const protocolsMetadata: typeof sticky.options.protocolsMetadata = (protocols, subscribed, metadata) => {
  const userData = sticky.options.protocolsMetadata(protocols, subscribed, metadata);
  if (process.env.ASSIGNOR_GROUP_LOG !== '2') return userData;
  const sorted = [...new Set(subscribed)].sort();
  const c = decodeClaims(userData, sorted.length);
  const owned = c === null ? null : Object.fromEntries(Array.from(c.topic, (t, k) => [sorted[t], { count: c.count[k], partitions: Array.from(c.partitions.subarray(c.start[k], c.start[k + 1])) }]));
  emit({ type: 'claims', name, generation: c?.generation ?? null, owned, consumerGeneration: consumer.generationId });
  return userData;
};
// On the leader: the claims the planner is given, per member (by name: a member id starts with
// its clientId), so the test judges each plan's moves against what the plan was made from.
const partitionAssigner: typeof sticky.options.partitionAssigner = (current, members, subscribed, metadata) => {
  const claims: Record<string, { generation: number; owned: Record<string, number[]> } | null> = {};
  for (const [memberId, sub] of members) {
    const topicsOf = sub.topics ?? [];
    const raw = sub.metadata;
    const c = raw instanceof Uint8Array && raw.length > 0 ? decodeClaims(raw, topicsOf.length) : null;
    claims[memberId.slice(0, memberId.indexOf('-'))] = c === null ? null : { generation: c.generation, owned: Object.fromEntries(Array.from(c.topic, (t, k) => [topicsOf[t]!, Array.from(c.partitions.subarray(c.start[k]!, c.start[k + 1]!))])) };
  }
  emit({ type: 'planned', name, generation: consumer.generationId, claims });
  return sticky.options.partitionAssigner(current, members, subscribed, metadata);
};
const consumer = new Consumer({
  clientId: name,
  bootstrapBrokers: [brokers],
  groupId,
  deserializers: stringDeserializers,
  // As the KafkaJS members: a killed member is dropped after 6 s, a rebalance waits 10 s at most.
  sessionTimeout: 6000,
  heartbeatInterval: 500,
  rebalanceTimeout: 10000,
  retries: 20,
  retryDelay: 250,
  maxWaitTime: 250,
  ...sticky.options,
  protocolsMetadata,
  partitionAssigner,
});
sticky.attach(consumer);

const assignmentOf = (as: readonly GroupAssignment[] | null | undefined): Record<string, number[]> => Object.fromEntries((as ?? []).map((a) => [a.topic, [...a.partitions].sort((x, y) => x - y)]));
// Next offset to commit per "topic\0partition", for partitions this member holds.
let pending = new Map<string, { topic: string; partition: number; offset: bigint; leaderEpoch: number }>();
let held = new Set<string>();
// The generation of the assignment in force (consumer.generationId changes at JoinGroup, before
// the new assignment arrives with SyncGroup).
let generation = -1;
consumer.on('consumer:group:join', (e) => {
  generation = e.generationId ?? -1;
  held = new Set((e.assignments ?? []).flatMap((a) => a.partitions.map((p) => `${a.topic}\u0000${p}`)));
  pending = new Map([...pending].filter(([k]) => held.has(k)));
  emit({ type: 'join', name, memberId: e.memberId, generation: e.generationId, assignment: assignmentOf(e.assignments) });
});

// No commit between a rebalance's start (a heartbeat or commit answered REBALANCE_IN_PROGRESS:
// 'consumer:group:rebalance') and its SyncGroup ('consumer:group:join'). @platformatic/kafka
// 2.12.1 answers a failed commit by joining again, beside the heartbeat's own rejoin; those
// overlapping joins were seen to complete one SyncGroup twice and then to stop heartbeating, so
// the broker expired a live member (docs/platformatic.md, "Committing").
let rebalancing = false;
consumer.on('consumer:group:rebalance', () => (rebalancing = true));
consumer.on('consumer:group:join', () => (rebalancing = false));

let committing = false;
async function commitRead(): Promise<void> {
  if (committing || rebalancing || pending.size === 0) return;
  committing = true;
  const offsets = [...pending.values()];
  pending = new Map();
  try {
    await consumer.commit({ offsets });
  } catch {
    // Mid-rebalance (or fenced): put back what is still held; the next tick retries.
    for (const o of offsets) {
      const k = `${o.topic}\u0000${o.partition}`;
      if (held.has(k) && !pending.has(k)) pending.set(k, o);
    }
  } finally {
    committing = false;
  }
}
const timer = setInterval(() => void commitRead(), 500);

const stream = await consumer.consume({ topics, mode: MessagesStreamModes.COMMITTED, fallbackMode: 'earliest', autocommit: false });
stream.on('data', (m) => {
  emit({ type: 'msg', name, topic: m.topic, partition: m.partition, offset: Number(m.offset), key: m.key ?? null, generation, held: held.has(`${m.topic}\u0000${m.partition}`) });
  const k = `${m.topic}\u0000${m.partition}`;
  if (held.has(k)) pending.set(k, { topic: m.topic, partition: m.partition, offset: m.offset + 1n, leaderEpoch: -1 });
});
stream.on('error', (error) => emit({ type: 'crash', name, error: String(error) }));
consumer.on('error', (error) => emit({ type: 'crash', name, error: String(error) }));
emit({ type: 'ready', name, pid: process.pid });

let stopping = false;
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  if (chunk.includes('rejoin') && !stopping) {
    consumer.joinGroup({}).catch((error: unknown) => emit({ type: 'crash', name, error: String(error) }));
    return;
  }
  if (!chunk.includes('stop') || stopping) return;
  stopping = true;
  clearInterval(timer);
  void (async () => {
    await commitRead();
    await stream.close();
    await consumer.close(); // leaves the group
    emit({ type: 'stopped', name });
    process.exit(0);
  })();
});
