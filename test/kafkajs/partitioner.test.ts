// The KafkaJS partitioner and batch helper, without a broker: what each kind of message gets, and
// agreement with KafkaJS's own DefaultPartitioner wherever Java and Node write the same key bytes.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Partitioners, type Message, type PartitionerArgs } from 'kafkajs';
import { JavaCompatiblePartitioner, createJavaCompatiblePartitioner, partitionMessages } from '../../src/kafkajs/index.js';
import { int32Bytes, javaUtf8Bytes, partitionForKey } from '../../src/hashing/index.js';
import { AssignorError } from '../../src/errors.js';

function metadata(n: number, leaderless: number[] = []): PartitionerArgs['partitionMetadata'] {
  return Array.from({ length: n }, (_, i) => ({ partitionId: i, leader: leaderless.includes(i) ? -1 : 0, partitionErrorCode: 0, replicas: [0], isr: [0] }));
}

function args(message: Message, n = 12, topic = 't', leaderless: number[] = []): PartitionerArgs {
  return { topic, partitionMetadata: metadata(n, leaderless), message };
}

describe('JavaCompatiblePartitioner', () => {
  it('an explicit partition wins over the key', () => {
    expect(JavaCompatiblePartitioner()(args({ key: '100:48069', value: null, partition: 3 }))).toBe(3);
  });

  it("hashes a string key from Java's bytes (Kafka's vector: 100:48069 -> 9 of 12)", () => {
    expect(JavaCompatiblePartitioner()(args({ key: '100:48069', value: null }))).toBe(9);
  });

  it("puts a key with an unpaired surrogate where Java does, and where KafkaJS does with keyEncoding 'kafkajs'", () => {
    const key = 'order-\ud83d';
    const java = partitionForKey(javaUtf8Bytes(key), 12);
    const node = partitionForKey(Buffer.from(key), 12);
    expect(java).not.toBe(node); // the two encodings really land apart for this key
    expect(JavaCompatiblePartitioner()(args({ key, value: null }))).toBe(java);
    expect(createJavaCompatiblePartitioner({ keyEncoding: 'kafkajs' })()(args({ key, value: null }))).toBe(node);
    expect(Partitioners.DefaultPartitioner()(args({ key, value: null }))).toBe(node);
  });

  it('hashes Buffer keys as they are (an IntegerSerializer key)', () => {
    const key = Buffer.from(int32Bytes(-7));
    expect(JavaCompatiblePartitioner()(args({ key, value: null }, 37))).toBe(partitionForKey(int32Bytes(-7), 37));
  });

  it('agrees with KafkaJS DefaultPartitioner on every well-formed string and on bytes', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.uint8Array({ maxLength: 40 })), fc.integer({ min: 1, max: 5000 }), (k, n) => {
        const key = typeof k === 'string' ? k : Buffer.from(k);
        expect(JavaCompatiblePartitioner()(args({ key, value: null }, n))).toBe(Partitioners.DefaultPartitioner()(args({ key, value: null }, n)));
      }),
      { numRuns: 300 },
    );
  });

  it('without a key goes round-robin over the partitions that have a leader, per topic', () => {
    const next = JavaCompatiblePartitioner();
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) seen.push(next(args({ key: null, value: 'v' }, 6, 'a', [1, 4])));
    expect(seen.every((p) => [0, 2, 3, 5].includes(p))).toBe(true);
    // Consecutive picks walk the available partitions in order, wrapping around.
    const order = [0, 2, 3, 5];
    for (let i = 1; i < seen.length; i++) expect(order.indexOf(seen[i]!)).toBe((order.indexOf(seen[i - 1]!) + 1) % 4);
    // Another topic keeps its own counter: it does not advance topic a's.
    const b = next(args({ key: null, value: 'v' }, 6, 'b', [1, 4]));
    expect([0, 2, 3, 5]).toContain(b);
    expect(next(args({ key: null, value: 'v' }, 6, 'a', [1, 4]))).toBe(order[(order.indexOf(seen[7]!) + 1) % 4]);
  });

  it('without a key and no leader anywhere still returns a partition in range', () => {
    const p = JavaCompatiblePartitioner()(args({ key: undefined, value: 'v' }, 5, 't', [0, 1, 2, 3, 4]));
    expect(p).toBeGreaterThanOrEqual(0);
    expect(p).toBeLessThan(5);
  });

  it('refuses an unknown keyEncoding', () => {
    expect(() => createJavaCompatiblePartitioner({ keyEncoding: 'utf16' as never })).toThrowError(AssignorError);
  });
});

describe('partitionMessages', () => {
  it('fills keyed messages in place, keeps explicit partitions, leaves keyless ones alone, never -1', () => {
    const messages: Message[] = [{ key: '100:48069', value: '1' }, { key: null, value: '2' }, { key: 'x', value: '3', partition: 5 }, { key: Buffer.from(int32Bytes(42)), value: '4' }, { value: '5' }];
    const out = partitionMessages(messages, 12);
    expect(out).toBe(messages);
    expect(messages.map((m) => m.partition)).toEqual([9, undefined, 5, partitionForKey(int32Bytes(42), 12), undefined]);
  });

  it('gives every keyed message the partition of its encoded bytes: random batches, both encodings, every engine', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), fc.constant(null)), { maxLength: 60 }), fc.integer({ min: 1, max: 2147483647 }), fc.constantFrom('java', 'kafkajs' as const), fc.constantFrom('reference', 'wasm-scalar', 'wasm-simd' as const), (keys, n, keyEncoding, engine) => {
        const batch = partitionMessages(keys.map((key) => ({ key, value: null })), n, { keyEncoding, engine });
        batch.forEach((m, i) => {
          const key = keys[i];
          if (key === null || key === undefined) expect(m.partition).toBeUndefined();
          else expect(m.partition).toBe(partitionForKey(keyEncoding === 'java' ? javaUtf8Bytes(key) : Buffer.from(key), n));
        });
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a bad partition count or a message that is not an object, with a path', () => {
    expect(() => partitionMessages([{ key: 'a', value: null }], 0)).toThrowError(/numPartitions/);
    try {
      partitionMessages([{ key: 'a', value: null }, null as unknown as Message], 3);
      expect.unreachable();
    } catch (e) {
      expect((e as AssignorError).path).toBe('messages[1]');
    }
  });
});
