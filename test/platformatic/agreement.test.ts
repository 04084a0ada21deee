// On the real broker: Kafka's Java producer (its default partitioner, kafka-clients from Maven)
// and @platformatic/kafka's producer with assignor's partitioner put every key in the same
// partition of a 15-partition topic: the published Java vectors and 20,000 random keys (ASCII,
// non-ASCII, emoji, unpaired surrogates, empty strings, IntegerSerializer and LongSerializer keys).
// The stock @platformatic/kafka partitioner (murmur2 >>> 0) is run beside them to show it differs.
// Keyless messages through assignor's partitioner spread over the partitions, a batch at a time.
import './node-guard.js';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Producer, type Partitioner } from '@platformatic/kafka';
import { createJavaCompatiblePartitioner } from '../../src/platformatic/index.js';
import { int32Bytes, int64Bytes } from '../../src/hashing/index.js';
import { ROOT } from '../helpers.js';
import { compileJava, runJava } from '../kafka/jvm.js';
import { sharedBroker, sharedKafka, uniqueTopic, useSharedBroker, withAdmin } from '../kafka/shared-broker.js';

const RANDOM = 20_000;
const PARTITIONS = 15;

type TestKey = { kind: 's'; value: string } | { kind: 'i'; value: number } | { kind: 'l'; value: bigint };

/** mulberry32: a failure names keys that can be produced again. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomKeys(count: number, seed: number): TestKey[] {
  const r = rng(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const char = (): string => {
    const roll = r();
    if (roll < 0.06) return String.fromCodePoint(int(0x1f300, 0x1faff)); // a surrogate pair
    if (roll < 0.1) return String.fromCharCode(int(0xd800, 0xdbff)); // a high surrogate, paired only by chance
    if (roll < 0.14) return String.fromCharCode(int(0xdc00, 0xdfff)); // a lone low surrogate
    if (roll < 0.3) return String.fromCharCode(int(0xa0, 0x9fff));
    return String.fromCharCode(int(0x20, 0x7e));
  };
  const keys: TestKey[] = [{ kind: 's', value: '' }, { kind: 's', value: '\ud800' }, { kind: 's', value: '\udc00\ud800' }, { kind: 'i', value: -2147483648 }, { kind: 'l', value: -(1n << 63n) }];
  while (keys.length < count) {
    const roll = r();
    if (roll < 0.05) keys.push({ kind: 'i', value: int(-2147483648, 2147483647) });
    else if (roll < 0.1) keys.push({ kind: 'l', value: (BigInt(int(-2147483648, 2147483647)) << 32n) | BigInt(int(0, 4294967295)) });
    else {
      let s = '';
      for (let n = int(1, 20); n > 0; n--) s += char();
      keys.push({ kind: 's', value: s });
    }
  }
  return keys;
}

/** A string's UTF-16 units as 4-hex-digit groups (JavaKeyProducer's input). */
function units(s: string): string {
  let hex = '';
  for (let j = 0; j < s.length; j++) hex += s.charCodeAt(j).toString(16).padStart(4, '0');
  return hex;
}

function javaInput(keys: TestKey[]): string {
  return `${keys.map((k, i) => (k.kind === 's' ? `${i}\ts\t${units(k.value)}` : `${i}\t${k.kind}\t${k.value}`)).join('\n')}\n`;
}

/** Produces every key (string keys as strings, int/long keys as their serializers' bytes) with `partitioner`. */
async function produce(topic: string, keys: TestKey[], partitioner: Partitioner<unknown, unknown, unknown, unknown> | undefined): Promise<void> {
  const producer = new Producer<unknown, string, string, string>({
    clientId: 'platformatic-agreement',
    bootstrapBrokers: [await sharedBroker()],
    serializers: { key: (k) => (typeof k === 'string' ? Buffer.from(k) : (k as Buffer | undefined)), value: (v) => (v === undefined ? undefined : Buffer.from(v)) },
    ...(partitioner === undefined ? {} : { partitioner }),
  });
  try {
    for (let i = 0; i < keys.length; i += 2000) {
      const messages = keys.slice(i, i + 2000).map((k, j) => ({ topic, key: k.kind === 's' ? k.value : Buffer.from(k.kind === 'i' ? int32Bytes(k.value) : int64Bytes(k.value)), value: String(i + j) }));
      await producer.send({ messages, acks: -1 });
    }
  } finally {
    await producer.close();
  }
}

/** Per topic, the partition of each record index (values are indices), read back with KafkaJS. */
async function readBack(topics: string[], count: number): Promise<Map<string, Int32Array>> {
  const seen = new Map(topics.map((t) => [t, new Int32Array(count).fill(-1)]));
  let remaining = topics.length * count;
  const consumer = (await sharedKafka('platformatic-agreement-reader')).consumer({ groupId: uniqueTopic('platformatic-agreement-reader'), maxBytes: 16 << 20 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`read back timed out with ${remaining} records missing`)), 120_000);
      consumer
        .run({
          eachBatch: async ({ batch }) => {
            const parts = seen.get(batch.topic)!;
            for (const m of batch.messages) {
              const i = Number(m.value!.toString());
              if (parts[i] === -1) remaining--;
              parts[i] = batch.partition;
            }
            if (remaining === 0) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return seen;
}

const show = (k: TestKey): string => (k.kind === 's' ? JSON.stringify(k.value) : `${k.kind === 'i' ? 'int' : 'long'} ${k.value}`);

describe('Java producer and @platformatic/kafka + assignor agree on the real broker', () => {
  useSharedBroker();

  it(`puts the Java vectors and ${RANDOM} random keys in the same partition of a ${PARTITIONS}-partition topic; keyless messages spread`, async () => {
    const vectors = (JSON.parse(readFileSync(join(ROOT, 'test/fixtures/java-vectors.json'), 'utf8')) as { units: number[] }[]).map((v): TestKey => ({ kind: 's', value: String.fromCharCode(...v.units) }));
    const keys = [...vectors, ...randomKeys(RANDOM, 0x91a7)];
    const [java, ours, stock, keyless] = ['pl-agree-java', 'pl-agree-assignor', 'pl-agree-stock', 'pl-agree-keyless'].map(uniqueTopic) as [string, string, string, string];
    await withAdmin((admin) => admin.createTopics({ topics: [java, ours, stock, keyless].map((topic) => ({ topic, numPartitions: PARTITIONS })), waitForLeaders: true }));

    const work = mkdtempSync(join(tmpdir(), 'assignor-platformatic-agreement-'));
    const cp = compileJava('kafka', [fileURLToPath(new URL('../kafkajs/java/JavaKeyProducer.java', import.meta.url))], join(work, 'classes'));
    writeFileSync(join(work, 'keys.tsv'), javaInput(keys));
    const run = runJava(cp, 'JavaKeyProducer', [await sharedBroker(), java, join(work, 'keys.tsv')]);
    expect(run.stdout, run.stderr).toContain(`produced ${keys.length}`);

    await produce(ours, keys, createJavaCompatiblePartitioner());
    await produce(stock, keys, undefined);
    // Keyless: ~110 bytes a record as Java counts it, so a sticky partition takes ~150 of them.
    const producer = new Producer({ clientId: 'platformatic-keyless', bootstrapBrokers: [await sharedBroker()], partitioner: createJavaCompatiblePartitioner() });
    const value = 'v'.repeat(96);
    for (let i = 0; i < 3000; i += 500) await producer.send({ messages: Array.from({ length: 500 }, (_, j) => ({ topic: keyless, value: Buffer.from(`${String(i + j).padStart(6, '0')}${value}`.slice(0, 100)) })), acks: -1 });
    await producer.close();

    const seen = await readBack([java, ours, stock], keys.length);
    const a = seen.get(java)!;
    const b = seen.get(ours)!;
    const differ: string[] = [];
    for (let i = 0; i < keys.length; i++) if (a[i] !== b[i]) differ.push(`${show(keys[i]!)}: java ${a[i]}, assignor ${b[i]}`);
    expect(differ.slice(0, 10), `${differ.length} keys in another partition than Java's`).toEqual([]);
    const c = seen.get(stock)!;
    let moved = 0;
    for (let i = 0; i < keys.length; i++) if (a[i] !== c[i]) moved++;
    console.log(`stock @platformatic/kafka (murmur2 >>> 0) put ${moved} of ${keys.length} keys elsewhere than Java at ${PARTITIONS} partitions`);
    expect(moved).toBeGreaterThan(keys.length / 4);

    const order = await readBackKeyless(keyless, 3000);
    const spread = order.reduce((m, p) => m.set(p, (m.get(p) ?? 0) + 1), new Map<number, number>());
    expect(spread.size, `keyless messages went to ${[...spread].map(([p, n]) => `${p}: ${n}`).join(', ')}`).toBeGreaterThanOrEqual(4);
    // Sticky by batch: in send order the partition changes about every 16384 / 110 = 149 messages.
    let switches = 0;
    for (let i = 1; i < order.length; i++) if (order[i] !== order[i - 1]) switches++;
    expect(switches).toBeGreaterThanOrEqual(10);
    expect(switches).toBeLessThanOrEqual(30);
  }, 300_000);
});

/** The partition of each keyless record (index from the value's first six digits). */
async function readBackKeyless(topic: string, count: number): Promise<number[]> {
  const out = new Array<number>(count).fill(-1);
  let remaining = count;
  const consumer = (await sharedKafka('platformatic-keyless-reader')).consumer({ groupId: uniqueTopic('platformatic-keyless-reader') });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`keyless read back timed out with ${remaining} missing`)), 60_000);
      consumer
        .run({
          eachBatch: async ({ batch }) => {
            for (const m of batch.messages) {
              const i = Number(m.value!.toString().slice(0, 6));
              if (out[i] === -1) remaining--;
              out[i] = batch.partition;
            }
            if (remaining === 0) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return out;
}
