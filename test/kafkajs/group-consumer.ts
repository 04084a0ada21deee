// One KafkaJS consumer with StickyAssigner, as its own process (so that SIGKILL really kills a
// member without a LeaveGroup). Started by group-e2e.test.ts:
//   node --import tsx test/kafkajs/group-consumer.ts <brokers> <groupId> <topic,topic,...> <name>
// Writes one JSON line per event on stdout (pipes are synchronous on Linux, so a line written
// before an offset is committed survives a SIGKILL): 'join' (generation and assignment after each
// SyncGroup), 'report' (the leader's assignment report), 'msg' (every message, with the
// generation it was read in), 'ready', 'stopped'. A line "stop" on stdin leaves the group cleanly.
import { Kafka, logLevel, type Cluster, type PartitionAssigner } from 'kafkajs';
import { createStickyAssigner } from '../../src/kafkajs/index.js';
import { trackMember } from '../../src/kafkajs/sticky/tracker.js';

const [brokers, groupId, topicList, name] = process.argv.slice(2) as [string, string, string, string];
const emit = (event: object): void => {
  process.stdout.write(JSON.stringify(event) + '\n');
};

let cluster: Cluster | undefined;
const generation = (): number => (cluster === undefined ? -1 : trackMember(cluster, groupId).state.generation);
const sticky = createStickyAssigner({ onAssignment: (report) => emit({ type: 'report', name, report }) });
// Keep the consumer's cluster object, to read the generation its assigner tracks.
const assigner: PartitionAssigner = (config) => {
  cluster = config.cluster;
  return sticky(config);
};

const kafka = new Kafka({
  clientId: name,
  brokers: [brokers],
  logLevel: process.env.ASSIGNOR_KAFKA_LOG ? logLevel.INFO : logLevel.ERROR,
  logCreator: () => ({ level, log }) => process.stderr.write(`${name} ${level} ${log.message} ${JSON.stringify(log)}\n`),
  retry: { retries: 20, initialRetryTime: 200, maxRetryTime: 2000 },
});
const consumer = kafka.consumer({
  groupId,
  partitionAssigners: [assigner],
  // A killed member is noticed within the broker's minimum session timeout (6 s); a rebalance does
  // not wait a minute for it; new partitions are seen within a second.
  sessionTimeout: 6000,
  heartbeatInterval: 500,
  rebalanceTimeout: 10000,
  metadataMaxAge: 1000,
  maxWaitTimeInMs: 250,
});
consumer.on(consumer.events.GROUP_JOIN, (e) => emit({ type: 'join', name, memberId: e.payload.memberId, generation: generation(), assignment: e.payload.memberAssignment }));
consumer.on(consumer.events.CRASH, (e) => emit({ type: 'crash', name, error: String(e.payload.error) }));

await consumer.connect();
await consumer.subscribe({ topics: topicList.split(','), fromBeginning: true });
await consumer.run({
  autoCommitInterval: 500,
  autoCommitThreshold: 100,
  eachMessage: async ({ topic, partition, message }) => {
    emit({ type: 'msg', name, topic, partition, offset: Number(message.offset), key: message.key?.toString() ?? null, generation: generation() });
  },
});
emit({ type: 'ready', name, pid: process.pid });

let stopping = false;
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  if (!chunk.includes('stop') || stopping) return;
  stopping = true;
  void consumer.disconnect().then(() => {
    emit({ type: 'stopped', name });
    process.exit(0);
  });
});
