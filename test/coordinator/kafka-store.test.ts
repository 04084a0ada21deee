// KafkaCoordinatorStore on the real broker: the topic it makes and the topics it refuses, Samza's
// record layout, one transaction per commit, read_committed replay, fencing.
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AssignorError } from '../../src/errors.js';
import { KafkaCoordinatorStore } from '../../src/store/kafka-store.js';
import { encodeKey } from '../../src/coordinator-stream/messages.js';
import { sharedKafka, uniqueTopic, useSharedBroker, withAdmin } from '../kafka/shared-broker.js';
import { cli } from '../helpers.js';
import { cleanupTempDirs, contents, jobFileJson, statefulConfig, tempDir } from './helpers.js';
import { commits, readRaw } from './kafka-helpers.js';

const brokers = useSharedBroker();
afterAll(cleanupTempDirs);

const loc = (topic: string): string => `kafka://${brokers()}/${topic}`;
const SSP_TYPE = 'set-task-partition-assignment';

async function thrown(p: Promise<unknown>): Promise<AssignorError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(AssignorError);
    return e as AssignorError;
  }
  throw new Error('expected an AssignorError');
}

async function topicConfig(topic: string): Promise<{ partitions: number; policy: string | undefined; segment: string | undefined }> {
  return withAdmin(async (admin) => {
    const meta = await admin.fetchTopicMetadata({ topics: [topic] });
    const kafkajs = await import('kafkajs');
    const d = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: kafkajs.ConfigResourceTypes.TOPIC, name: topic }] });
    const entry = (n: string): string | undefined => d.resources[0]!.configEntries.find((c) => c.configName === n)?.configValue;
    return { partitions: meta.topics[0]!.partitions.length, policy: entry('cleanup.policy'), segment: entry('segment.bytes') };
  });
}

describe('the coordinator-stream topic', () => {
  it('is created with one partition, compacted, with Samza segment size', async () => {
    const topic = uniqueTopic('coord-create');
    const s = await KafkaCoordinatorStore.open(loc(topic));
    expect(s.openReport.topicCreated).toBe(true);
    await s.close();
    expect(await topicConfig(topic)).toEqual({ partitions: 1, policy: 'compact', segment: '26214400' });
  }, 120_000);

  it('refuses a topic with other settings, naming the setting, and writes nothing to it', async () => {
    const three = uniqueTopic('coord-three');
    const deleting = uniqueTopic('coord-delete');
    await withAdmin((a) =>
      a.createTopics({
        waitForLeaders: true,
        topics: [
          { topic: three, numPartitions: 3, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] },
          { topic: deleting, numPartitions: 1, configEntries: [{ name: 'cleanup.policy', value: 'compact,delete' }] },
        ],
      }),
    );
    const a = await thrown(KafkaCoordinatorStore.open(loc(three)));
    expect(a.code).toBe('E_STORE_KAFKA_TOPIC');
    expect(a.message).toContain(`Kafka topic ${three} has 3 partitions; a coordinator stream has exactly 1 (setting: partitions)`);
    const b = await thrown(KafkaCoordinatorStore.open(loc(deleting)));
    expect(b.code).toBe('E_STORE_KAFKA_TOPIC');
    expect(b.message).toContain('has cleanup.policy=compact,delete; a coordinator stream needs cleanup.policy=compact');
    const offsets = await withAdmin(async (admin) => [...(await admin.fetchTopicOffsets(three)), ...(await admin.fetchTopicOffsets(deleting))]);
    expect(offsets.every((o) => o.high === '0')).toBe(true);
  }, 120_000);

  it('is not created by a reader, and a topic that is no coordinator stream is refused with the offset', async () => {
    const missing = uniqueTopic('coord-missing');
    const e = await thrown(KafkaCoordinatorStore.open(loc(missing), { readOnly: true }));
    expect(e.code).toBe('E_STORE_NOT_FOUND');
    expect(await withAdmin((a) => a.listTopics())).not.toContain(missing);
    const junk = uniqueTopic('coord-junk');
    await withAdmin((a) => a.createTopics({ waitForLeaders: true, topics: [{ topic: junk, numPartitions: 1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }] }));
    const producer = (await sharedKafka()).producer();
    await producer.connect();
    await producer.send({ topic: junk, messages: [{ key: encodeKey('set-config', 'a'), value: '{"values":{"value":"1"}}' }, { key: 'user-42', value: 'hello' }] });
    await producer.disconnect();
    const f = await thrown(KafkaCoordinatorStore.open(loc(junk), { readOnly: true }));
    expect(f.code).toBe('E_STORE_FORMAT');
    expect(f.path).toBe(`${junk}@1`);
    expect(f.message).toContain('"user-42" is not a coordinator-stream key');
  }, 120_000);
});

describe('records and transactions', () => {
  it("writes Samza's layout, one transaction per commit, and replays it: last record wins, null deletes", async () => {
    const topic = uniqueTopic('coord-records');
    const s = await KafkaCoordinatorStore.open(loc(topic), { host: 'h', username: 'u', now: () => 1234 });
    await s.commit(
      [
        { type: 'set-config', key: 'job.name', value: { value: 'j' } },
        { type: 'set-changelog', key: '__proto__', value: { Partition: '0' } },
        { type: 'set-changelog', key: 'gone', value: { Partition: '1' } },
        { type: 'odd', key: 'ключ \ud800', value: { nested: [1, { a: null }] } },
      ],
      { streams: [{ system: 'kafka', stream: 'PVE' }], lists: ['["Partition 0"]', '["Partition 1"]'], n: 4, stream: Int32Array.of(0, 0, 0, 0), partition: Int32Array.of(0, 1, 2, 3), bucket: Int32Array.of(-1, -1, -1, 7), list: Int32Array.of(0, 1, 0, 1) },
    );
    await s.commit([
      { type: 'set-changelog', key: 'gone', value: null },
      { type: 'set-config', key: 'job.name', value: { value: 'j2' } },
    ]);
    const expected = contents(s);
    expect(Object.entries(expected['set-changelog']!)).toEqual([['__proto__', { Partition: '0' }]]);
    expect(expected['set-config']).toEqual({ 'job.name': { value: 'j2' } });
    expect(s.written).toMatchObject({ commits: 2, records: 10 });
    await s.close();

    const raw = await readRaw(topic);
    expect(raw.map((r) => r.key)).toContain(encodeKey(SSP_TYPE, '{"system":"kafka","partition":3,"stream":"PVE","keyBucket":7}'));
    expect(raw[0]).toMatchObject({ key: '[1,"set-config","job.name"]', value: '{"host":"h","username":"u","source":"SamzaContainer","timestamp":1234,"values":{"value":"j"}}' });
    expect(raw.find((r) => r.key === '[1,"set-changelog","gone"]' && r.value === null)).toBeDefined();
    // Two commits, two transactions: 8 + 2 records, each followed by its commit marker.
    expect(commits(raw).map((c) => c.length)).toEqual([8, 2]);

    const r = await KafkaCoordinatorStore.open(loc(topic), { readOnly: true });
    expect(contents(r)).toEqual(expected);
    expect(r.sspAssignment().live).toBe(4);
    expect(r.get('odd', 'ключ \ud800')).toEqual({ nested: [1, { a: null }] });
    expect([...r.messages()].length).toBe(7);
    await r.close();
  }, 120_000);

  it('never shows records of an open or aborted transaction: readers stop at the last stable offset, a writer aborts what a dead writer left open', async () => {
    const topic = uniqueTopic('coord-aborted');
    const s = await KafkaCoordinatorStore.open(loc(topic));
    await s.commit([{ type: 'set-config', key: 'a', value: { value: '1' } }]);
    const transactionalId = s.transactionalId!;
    await s.close();
    // A writer with the same transactional id dies mid-write: its records are on the topic, uncommitted.
    const kafka = await sharedKafka();
    const zombie = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
    await zombie.connect();
    const tx = await zombie.transaction();
    await tx.send({ topic, messages: [{ key: encodeKey('set-config', 'a'), value: '{"host":"z","username":"z","source":"SamzaContainer","timestamp":9,"values":{"value":"half"}}' }] });
    const aborted = await zombie.transaction().catch(() => undefined); // (still open: a second begin is refused)
    expect(aborted).toBeUndefined();
    // A reader reads the committed state up to the open transaction (the last stable offset), at once.
    const reader = await KafkaCoordinatorStore.open(loc(topic), { readOnly: true, readStallTimeoutMs: 4000 });
    expect(reader.get('set-config', 'a')).toEqual({ value: '1' });
    expect(reader.openReport.high).toBe(2); // the record and its commit marker; the open record is at 2
    await reader.close();
    // A new writer fences the zombie (aborting its transaction) and sees only committed state.
    const w = await KafkaCoordinatorStore.open(loc(topic));
    expect(w.get('set-config', 'a')).toEqual({ value: '1' });
    await w.close();
    await zombie.disconnect();
    const all = await readRaw(topic, { readUncommitted: true });
    expect(all.some((r) => r.value?.includes('"half"'))).toBe(true);
    const committed = await readRaw(topic);
    expect(committed.some((r) => r.value?.includes('"half"'))).toBe(false);
  }, 180_000);
});

describe('reopen: offsets never go back', () => {
  it('a reopen that reads less than the store had written fails, refuses writes, and succeeds once the topic is readable again', async () => {
    const topic = uniqueTopic('coord-reopen-short');
    const s = await KafkaCoordinatorStore.open(loc(topic), { readStallTimeoutMs: 4000 });
    await s.commit([{ type: 'set-config', key: 'a', value: { value: '1' } }]);
    // Another producer opens a transaction: the last stable offset stops at its record, so a
    // read_committed replay ends there, before what the store commits next (as a restarted broker
    // that has not yet written its commit markers does).
    const kafka = await sharedKafka();
    const other = kafka.producer({ transactionalId: `${topic}-other`, idempotent: true, maxInFlightRequests: 1 });
    await other.connect();
    try {
      const tx = await other.transaction();
      await tx.send({ topic, messages: [{ key: encodeKey('set-config', 'x'), value: '{"host":"o","username":"o","source":"SamzaContainer","timestamp":1,"values":{"value":"open"}}' }] });
      await s.commit([{ type: 'set-config', key: 'b', value: { value: '2' } }]);
      const e = await thrown(s.reopen());
      expect(e.code).toBe('E_STORE_KAFKA');
      expect(e.message).toContain('has not finished recovering');
      // The short read is not taken as the state, and nothing is written over it.
      expect((await thrown(s.commit([{ type: 'set-config', key: 'c', value: { value: '3' } }]))).code).toBe('E_STORE_KAFKA');
      await tx.abort();
    } finally {
      await other.disconnect();
    }
    await s.reopen();
    expect(s.get('set-config', 'a')).toEqual({ value: '1' });
    expect(s.get('set-config', 'b')).toEqual({ value: '2' });
    expect(s.get('set-config', 'x')).toBeUndefined();
    await s.commit([{ type: 'set-config', key: 'c', value: { value: '3' } }]);
    await s.close();
    const raw = await readRaw(topic);
    expect(raw.map((r) => JSON.parse(r.value!).values.value)).toEqual(['1', '2', '3']);
  }, 180_000);
});

describe('fencing: one writer per coordinator stream', () => {
  it('a second writer fences the first, which then fails every write and never writes again', async () => {
    const topic = uniqueTopic('coord-fence');
    const first = await KafkaCoordinatorStore.open(loc(topic));
    await first.commit([{ type: 'set-config', key: 'who', value: { value: 'first' } }]);
    const second = await KafkaCoordinatorStore.open(loc(topic));
    expect(second.get('set-config', 'who')).toEqual({ value: 'first' });
    const e = await thrown(first.commit([{ type: 'set-config', key: 'who', value: { value: 'first again' } }]));
    expect(e.code).toBe('E_STORE_FENCED');
    expect(e.message).toContain('writes nothing more');
    expect(first.fenced).toBe(true);
    expect((await thrown(first.commit([{ type: 'set-config', key: 'x', value: { value: '1' } }]))).code).toBe('E_STORE_FENCED');
    expect((await thrown(first.reopen())).code).toBe('E_STORE_FENCED');
    await second.commit([{ type: 'set-config', key: 'who', value: { value: 'second' } }]);
    await first.close();
    await second.close();
    const raw = await readRaw(topic);
    expect(raw.map((r) => JSON.parse(r.value!).values.value)).toEqual(['first', 'second']);
  }, 180_000);
});

describe('assignor samza plan --store kafka://', () => {
  it('persists the model in the topic, then finds it unchanged', () => {
    const topic = uniqueTopic('coord-plan');
    const job = join(tempDir(), 'job.json');
    writeFileSync(job, jobFileJson(statefulConfig(['kafka.PVE']), { 'kafka.PVE': 4 }));
    const a = cli(['samza', 'plan', '--job', job, '--store', loc(topic)]);
    expect(a.stderr).toContain('records written in one batch');
    expect(a.status).toBe(0);
    const b = cli(['samza', 'plan', '--job', job, '--store', loc(topic)]);
    expect(b.status).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(b.stderr).toContain('store: unchanged (nothing written)');
    const bad = cli(['samza', 'plan', '--job', job, '--store', `kafka://${brokers()}/bad topic`]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^assignor: "bad topic" is not a valid Kafka topic name/);
  }, 180_000);
});

// Every store command takes every location --store takes elsewhere (a directory, kafka://H:P/T,
// kafka://H:P with --job), or refuses a Kafka location by name where the operation is the broker's.
describe('assignor store inspect / export / compact --store kafka://', () => {
  it('inspect and export read the topic; export matches samza export; compact refuses by name; a reader creates nothing', () => {
    const config = statefulConfig(['kafka.PVE'], { 'job.name': 'store-cli', 'job.id': uniqueTopic('id').replaceAll('_', '-') });
    const topic = `__samza_coordinator_store-cli_${config.get('job.id')!}`;
    const job = join(tempDir(), 'job.json');
    writeFileSync(job, jobFileJson(config, { 'kafka.PVE': 4 }));
    expect(cli(['samza', 'plan', '--job', job, '--store', loc(topic)]).status).toBe(0);
    writeFileSync(job, jobFileJson(config, { 'kafka.PVE': 8 }));
    expect(cli(['samza', 'plan', '--job', job, '--store', loc(topic)]).status).toBe(0);

    const inspect = cli(['store', 'inspect', '--store', loc(topic)]);
    expect(inspect.status, inspect.stderr).toBe(0);
    expect(inspect.stdout).toContain(`store ${loc(topic)}\n`);
    expect(inspect.stdout).toContain(`  log          Kafka topic ${topic}, partition 0\n`);
    expect(inspect.stdout).toContain('  format       Samza coordinator-stream records (key version 1)\n');
    expect(inspect.stdout).toMatch(/records {6}\d+: \d+ live, \d+ overwritten, deleted or tombstones \(the broker's log cleaner compacts the topic\)/);
    expect(inspect.stdout).toMatch(/"set-task-partition-assignment" +8 keys/);
    expect(inspect.stdout).not.toContain('upgraded to version 2');
    const json = JSON.parse(cli(['store', 'inspect', '--store', loc(topic), '--json']).stdout) as { location: string; types: Array<{ type: string; keys: number }> };
    expect(json.location).toBe(loc(topic));
    expect(json.types.find((t) => t.type === SSP_TYPE)?.keys).toBe(8);
    // kafka://HOST:PORT alone: the topic is the job's, named from --job (as for samza export).
    const byJob = cli(['store', 'inspect', '--store', `kafka://${brokers()}`, '--job', job, '--json']);
    expect(byJob.status, byJob.stderr).toBe(0);
    expect((JSON.parse(byJob.stdout) as { location: string }).location).toBe(loc(topic));

    const exported = cli(['store', 'export', '--store', loc(topic)]);
    expect(exported.status, exported.stderr).toBe(0);
    const samzaExport = cli(['samza', 'export', '--store', loc(topic)]);
    expect(exported.stdout).toBe(samzaExport.stdout);
    expect(exported.stdout.trim().split('\n').filter((l) => l.includes(SSP_TYPE))).toHaveLength(8);

    const compact = cli(['store', 'compact', '--store', loc(topic)]);
    expect(compact.status).toBe(2);
    expect(compact.stderr.trim().split('\n')).toHaveLength(1);
    expect(compact.stderr).toMatch(/^assignor: store compact rewrites a store directory's log; kafka:\/\/.* is a Kafka coordinator stream, a compacted topic \(cleanup.policy=compact\) that the broker's log cleaner compacts/);
    expect(cli(['store', 'compact', '--store', loc(topic), '--repair']).status).toBe(2);

    const missing = uniqueTopic('store-cli-missing');
    const none = cli(['store', 'inspect', '--store', loc(missing)]);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(new RegExp(`^assignor: Kafka topic ${missing} does not exist \\(a reader does not create it\\)`));
    const noTopic = cli(['store', 'export', '--store', `kafka://${brokers()}`]);
    expect(noTopic.status).toBe(2);
    expect(noTopic.stderr).toMatch(/names no topic/);
  }, 180_000);
});
