// End to end on the real broker: Kafka's Java producer and KafkaJS with assignor's partitioner put
// every key in the same partition. 100,000 keys (ASCII, non-ASCII, emoji, unpaired surrogates,
// empty strings, IntegerSerializer and LongSerializer keys) go to topic A through the Java client
// and its default partitioner, and to topics B1 (JavaCompatiblePartitioner, one message at a time)
// and B2 (partitionMessages over whole batches) through KafkaJS. Each record's value is the key's
// index; reading the topics back gives, per index, the partition each producer chose.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Partitioners, type Kafka, type Message } from 'kafkajs';
import { JavaCompatiblePartitioner, partitionMessages } from '../../src/kafkajs/index.js';
import { int32Bytes, int64Bytes } from '../../src/hashing/index.js';
import { compileJava, runJava } from '../kafka/jvm.js';
import { sharedBroker, sharedKafka, uniqueTopic, useSharedBroker, withAdmin } from '../kafka/shared-broker.js';

const COUNT = 100_000;
const PARTITIONS = 37;

type TestKey = { kind: 's'; value: string } | { kind: 'i'; value: number } | { kind: 'l'; value: bigint };

/** A small seeded generator (mulberry32), so a failure names keys that can be produced again. */
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

const ALPHABETS: readonly (readonly [number, number])[] = [
  [0x20, 0x7e], // ASCII
  [0xa0, 0x24f], // Latin-1 and Latin extended (2-byte UTF-8)
  [0x400, 0x4ff], // Cyrillic
  [0x4e00, 0x9fff], // CJK (3-byte UTF-8)
];

function generateKeys(count: number, seed: number): TestKey[] {
  const r = rng(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const char = (): string => {
    const roll = r();
    if (roll < 0.06) return String.fromCodePoint(int(0x1f300, 0x1faff)); // emoji: a surrogate pair
    if (roll < 0.09) return String.fromCharCode(int(0xd800, 0xdbff)); // a high surrogate, paired only by chance
    if (roll < 0.12) return String.fromCharCode(int(0xdc00, 0xdfff)); // a lone low surrogate
    const [lo, hi] = ALPHABETS[int(0, roll < 0.6 ? 0 : ALPHABETS.length - 1)]!;
    return String.fromCharCode(int(lo, hi));
  };
  const keys: TestKey[] = [{ kind: 's', value: '' }, { kind: 's', value: '\ud800' }, { kind: 's', value: '\udc00\ud800' }, { kind: 'i', value: -2147483648 }, { kind: 'i', value: 2147483647 }, { kind: 'l', value: -(1n << 63n) }, { kind: 'l', value: (1n << 63n) - 1n }];
  while (keys.length < count) {
    const roll = r();
    if (roll < 0.08) keys.push({ kind: 'i', value: int(-2147483648, 2147483647) });
    else if (roll < 0.16) keys.push({ kind: 'l', value: (BigInt(int(-2147483648, 2147483647)) << 32n) | BigInt(int(0, 4294967295)) });
    else if (roll < 0.18) keys.push({ kind: 's', value: '' });
    else {
      let s = '';
      for (let n = int(1, 24); n > 0; n--) s += char();
      keys.push({ kind: 's', value: s });
    }
  }
  return keys;
}

function javaInput(keys: TestKey[]): string {
  const lines = keys.map((k, i) => {
    if (k.kind !== 's') return `${i}\t${k.kind}\t${k.value}`;
    let hex = '';
    for (let j = 0; j < k.value.length; j++) hex += k.value.charCodeAt(j).toString(16).padStart(4, '0');
    return `${i}\ts\t${hex}`;
  });
  return `${lines.join('\n')}\n`;
}

/** The KafkaJS message for a key: string keys as strings, int/long keys as their serializer's bytes. */
function kafkajsMessage(k: TestKey, i: number): Message {
  const key = k.kind === 's' ? k.value : Buffer.from(k.kind === 'i' ? int32Bytes(k.value) : int64Bytes(k.value));
  return { key, value: String(i) };
}

async function produce(kafka: Kafka, topic: string, batches: Message[][], createPartitioner = JavaCompatiblePartitioner): Promise<void> {
  const producer = kafka.producer({ createPartitioner });
  await producer.connect();
  try {
    for (const messages of batches) await producer.send({ topic, acks: -1, messages });
  } finally {
    await producer.disconnect();
  }
}

/** Reads `count` records of each topic back: per topic, the partition of each record index. */
async function readBack(kafka: Kafka, topics: string[], count: number): Promise<Map<string, Int32Array>> {
  const seen = new Map(topics.map((t) => [t, new Int32Array(count).fill(-1)]));
  let remaining = topics.length * count;
  const consumer = kafka.consumer({ groupId: uniqueTopic('agreement-reader'), maxBytes: 16 << 20 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`read back timed out with ${remaining} records missing`)), 240_000);
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

function describeKey(k: TestKey): string {
  return k.kind === 's' ? JSON.stringify(k.value) : `${k.kind === 'i' ? 'int' : 'long'} ${k.value}`;
}

describe('Java producer and KafkaJS + assignor agree on the real broker', () => {
  useSharedBroker();

  it(`puts all ${COUNT} keys in the same partition of a ${PARTITIONS}-partition topic`, async () => {
    const keys = generateKeys(COUNT, 0x5eed);
    const [topicA, topicB1, topicB2, topicC] = ['agree-java', 'agree-partitioner', 'agree-batch', 'agree-stock'].map(uniqueTopic) as [string, string, string, string];
    await withAdmin((admin) => admin.createTopics({ topics: [topicA, topicB1, topicB2, topicC].map((topic) => ({ topic, numPartitions: PARTITIONS })), waitForLeaders: true }));

    // A: Kafka's Java producer, compiled here against kafka-clients from Maven Central.
    const work = mkdtempSync(join(tmpdir(), 'assignor-agreement-'));
    const source = fileURLToPath(new URL('./java/JavaKeyProducer.java', import.meta.url));
    const cp = compileJava('kafka', [source], join(work, 'classes'));
    writeFileSync(join(work, 'keys.tsv'), javaInput(keys));
    const kafka = await sharedKafka('assignor-agreement');
    const java = runJava(cp, 'JavaKeyProducer', [await sharedBroker(), topicA, join(work, 'keys.tsv')]);
    expect(java.stdout).toContain(`produced ${COUNT}`);

    // B1: the partitioner, called by KafkaJS once per message; B2: partitionMessages per batch.
    // C: stock KafkaJS (its default partitioner), to show which keys it would have put elsewhere.
    const batches: Message[][] = [];
    for (let i = 0; i < COUNT; i += 5000) batches.push(keys.slice(i, i + 5000).map((k, j) => kafkajsMessage(k, i + j)));
    await produce(kafka, topicB1, batches);
    await produce(kafka, topicB2, batches.map((b) => partitionMessages(b.map((m) => ({ ...m })), PARTITIONS)));
    await produce(kafka, topicC, batches, Partitioners.DefaultPartitioner);

    const seen = await readBack(kafka, [topicA, topicB1, topicB2, topicC], COUNT);
    const a = seen.get(topicA)!;
    for (const topic of [topicB1, topicB2]) {
      const b = seen.get(topic)!;
      const differ: string[] = [];
      for (let i = 0; i < COUNT; i++) if (a[i] !== b[i]) differ.push(`${describeKey(keys[i]!)}: java ${a[i]}, ${topic} ${b[i]}`);
      expect(differ.slice(0, 10), `${differ.length} keys in another partition than Java's`).toEqual([]);
    }

    const stock = seen.get(topicC)!;
    const moved: string[] = [];
    for (let i = 0; i < COUNT; i++) if (a[i] !== stock[i]) moved.push(`${describeKey(keys[i]!)}: java ${a[i]}, stock KafkaJS ${stock[i]}`);
    console.log(`stock KafkaJS (DefaultPartitioner) put ${moved.length} of ${COUNT} keys elsewhere than Java, e.g.:\n  ${moved.slice(0, 8).join('\n  ')}`);
    // Every key stock KafkaJS moves holds an unpaired surrogate; everything else agrees.
    for (let i = 0; i < COUNT; i++) {
      const k = keys[i]!;
      if (a[i] !== stock[i]) expect(k.kind === 's' && !k.value.isWellFormed(), describeKey(k)).toBe(true);
    }
    expect(moved.length).toBeGreaterThan(0);
  }, 600_000);
});
