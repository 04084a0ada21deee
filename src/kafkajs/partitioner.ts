// KafkaJS producer partitioning with Java's bytes: `createPartitioner: JavaCompatiblePartitioner`
// for one message at a time, `partitionMessages` for a whole send() batch at once.
//
// KafkaJS 2.x already uses Kafka's murmur2, but hashes a string key from Node's UTF-8, which writes
// an unpaired surrogate as U+FFFD (3 bytes) where Java's StringSerializer writes '?' (1 byte). Such
// keys land in other partitions than a Java producer puts them. Here string keys are hashed from
// Java's bytes by default; `keyEncoding: 'kafkajs'` keeps KafkaJS's bytes for users who migrate and
// must not move keys. Either way KafkaJS itself still writes the key to the wire as Node's UTF-8:
// to also store Java's bytes, pass the key as a Buffer (`javaUtf8Bytes(key)`), which is hashed as is.
import type { ICustomPartitioner, Message, PartitionerArgs } from 'kafkajs';
import { AssignorError } from '../errors.js';
import { partitionForKey, partitionsForKeys, type Key } from '../hashing/partitioner.js';
import { partitionForString } from '../hashing/single-key.js';
import type { EngineOptions } from '../engine/kernels.js';

/** How string keys become bytes before hashing. */
type KafkaJsKeyBytes = 'java' | 'kafkajs';

export interface PartitionerOptions {
  /** `java` (default): Java's StringSerializer bytes. `kafkajs`: Node's UTF-8, as KafkaJS hashes. */
  keyEncoding?: KafkaJsKeyBytes;
}

const nodeUtf8 = new TextEncoder();

function checkEncoding(value: unknown, where: string): KafkaJsKeyBytes {
  if (value === undefined || value === 'java') return 'java';
  if (value === 'kafkajs') return 'kafkajs';
  throw new AssignorError('E_CHOICES', `keyEncoding must be "java" or "kafkajs", got ${typeof value === 'string' ? JSON.stringify(value) : typeof value}`, where);
}

/**
 * The key as the hasher takes it: strings stay strings (Java's bytes, encoded by the hasher) unless
 * KafkaJS's bytes were asked for; Buffers and Uint8Arrays are hashed as they are. Other values are
 * turned into strings, as KafkaJS does before hashing.
 */
function hashableKey(key: unknown, encoding: KafkaJsKeyBytes): Key {
  if (key === null || key === undefined) return null;
  if (key instanceof Uint8Array) return key;
  const text = typeof key === 'string' ? key : String(key);
  // Java's and the WHATWG encoder's bytes differ only for unpaired surrogates: other strings stay
  // strings (no per-key byte array), and the batch kernel encodes them.
  return encoding === 'kafkajs' && !text.isWellFormed() ? nodeUtf8.encode(text) : text;
}

/** Clears the sign bit, as KafkaJS and Kafka do for the round-robin counter. */
const positive = (x: number): number => x & 0x7fffffff;

/**
 * A KafkaJS partitioner factory (`kafka.producer({ createPartitioner: JavaCompatiblePartitioner })`)
 * that puts every keyed message where Kafka's Java producer puts it:
 * - an explicit `message.partition` wins;
 * - a key: `toPositive(murmur2(bytes)) % partitionCount`, string keys as Java's StringSerializer
 *   writes them (or KafkaJS's bytes with `keyEncoding: 'kafkajs'`), Buffer keys as they are;
 * - no key: round-robin over the partitions that have a leader, from a random start per topic,
 *   exactly as KafkaJS's default partitioner does.
 * One key costs one plain TypeScript hash: no WASM call, no allocation for ASCII keys.
 */
export function createJavaCompatiblePartitioner(options: PartitionerOptions = {}): ICustomPartitioner {
  const encoding = checkEncoding(options.keyEncoding, 'options.keyEncoding');
  return () => {
    const counters = new Map<string, number>();
    return ({ topic, partitionMetadata, message }: PartitionerArgs): number => {
      if (message.partition !== null && message.partition !== undefined) return message.partition;
      const numPartitions = partitionMetadata.length;
      const raw = message.key;
      if (typeof raw === 'string') return partitionForString(raw, numPartitions, encoding === 'kafkajs' ? 'whatwg' : 'java');
      const key = hashableKey(raw, encoding);
      if (key !== null) return partitionForKey(key, numPartitions);
      let counter = counters.get(topic);
      if (counter === undefined) counter = Math.floor(Math.random() * 0x100000000);
      counters.set(topic, ++counter);
      let available = 0;
      for (const p of partitionMetadata) if (p.leader >= 0) available++;
      if (available === 0) return positive(counter) % numPartitions;
      let pick = positive(counter) % available;
      for (const p of partitionMetadata) {
        if (p.leader >= 0 && pick-- === 0) return p.partitionId;
      }
      return positive(counter) % numPartitions; // not reached
    };
  };
}

/** `createPartitioner: JavaCompatiblePartitioner`: Java's bytes for string keys. */
export const JavaCompatiblePartitioner: ICustomPartitioner = createJavaCompatiblePartitioner();

export interface PartitionMessagesOptions extends PartitionerOptions, EngineOptions {}

/**
 * Fills `partition` on every keyed message of a send() batch that has none, all keys hashed in one
 * call of the WASM batch kernel, and returns the same array. Messages with a partition keep it;
 * messages without a key are left without one (never -1), so the producer's partitioner places
 * them (round-robin). `partitionCount` is the topic's partition count, as in the producer's metadata.
 */
export function partitionMessages<M extends Message>(messages: M[], partitionCount: number, options: PartitionMessagesOptions = {}): Array<M & { partition?: number }> {
  if (!Array.isArray(messages)) throw new AssignorError('E_INPUT', `messages must be an array, got ${messages === null ? 'null' : typeof messages}`, 'messages');
  const encoding = checkEncoding(options.keyEncoding, 'options.keyEncoding');
  const keys: Key[] = new Array(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m === null || typeof m !== 'object') throw new AssignorError('E_INPUT', `a message must be an object, got ${m === null ? 'null' : typeof m}`, `messages[${i}]`);
    keys[i] = m.partition === null || m.partition === undefined ? hashableKey(m.key, encoding) : null;
  }
  const partitions = partitionsForKeys(keys, partitionCount, { engine: options.engine });
  for (let i = 0; i < messages.length; i++) {
    if (partitions[i]! >= 0) messages[i]!.partition = partitions[i]!;
  }
  return messages;
}
