// A @platformatic/kafka producer partitioner (`new Producer({ partitioner })`) that puts every keyed
// message where Kafka's Java producer puts it, and spreads keyless ones as Java's built-in
// partitioner does (KIP-480/KIP-794: one sticky partition per topic, switched after a batch).
//
// What @platformatic/kafka 2.12.1 does with the value (clients/producer/producer.js): the
// partitioner runs for every message without an explicit partition, keyless ones included, before
// the producer fetches metadata, with the metadata it has cached (none on the very first send);
// the producer then takes the result modulo the partition count it fetched. So a keyed message
// returns toPositive(murmur2(bytes)), not reduced: `% count` with the fresh count is then exactly
// Java's BuiltInPartitioner.partitionForKey. Its own default returns murmur2 >>> 0, which differs
// from Java's toPositive for every negative hash when the count is not a power of two.
import type { MessageToProduce, Partitioner, PartitionerContext } from '@platformatic/kafka';
import { AssignorError, describe } from '../errors.js';
import { toPositive } from '../hashing/partitioner.js';
import { murmur2OfBytes, murmur2OfString } from '../hashing/single-key.js';

/** How a string key becomes the bytes that are hashed. */
type PlatformaticKeyBytes = 'java' | 'serialized';

export interface PartitionerOptions {
  /**
   * `java` (default): a string key is hashed from Java's StringSerializer bytes (an unpaired
   * surrogate is '?'), other keys from their serialized bytes. `serialized`: every key from the
   * bytes the producer's key serializer wrote (Node's UTF-8 for strings with the stock serializer).
   */
  keyEncoding?: PlatformaticKeyBytes;
  /** Bytes a keyless message's sticky partition takes before the next is chosen: Java's `batch.size`. Default 16384. */
  batchSize?: number;
}

/** Java's default `batch.size`, which is also the sticky partitioner's switch point. */
export const DEFAULT_BATCH_SIZE = 16384;

interface Sticky {
  /** The partition, or (before any metadata) a random non-negative int the producer reduces. */
  partition: number;
  bytes: number;
}

const varintSize = (v: number): number => (v < 0x40 ? 1 : v < 0x2000 ? 2 : v < 0x100000 ? 3 : v < 0x8000000 ? 4 : 5);

/** A value's bytes as the stock serializers write it: bytes as they are, strings as UTF-8, anything else as JSON. */
function valueSize(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (value instanceof Uint8Array) return value.length;
  if (typeof value === 'string') return Buffer.byteLength(value);
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

/**
 * About what Java's RecordAccumulator counts as appended for one keyless record (a DefaultRecord):
 * the value bytes and their zigzag-varint length, and one byte each for the length prefix,
 * attributes, timestamp and offset deltas, the null key and the header count. Headers are not counted.
 */
function keylessRecordSize(value: unknown): number {
  const v = valueSize(value);
  return 6 + varintSize(v) + v;
}

function randomInt(): number {
  return toPositive((Math.random() * 0x100000000) | 0);
}

/**
 * Java's BuiltInPartitioner.nextPartition without load statistics: a uniform pick among the
 * partitions that have a leader, else among all. Before any metadata the count is unknown: a
 * random non-negative int, which the producer reduces modulo the count (uniform as well).
 */
function nextPartition(context: PartitionerContext, topic: string): number {
  const parts = context.metadata?.topics.get(topic)?.partitions;
  const random = randomInt();
  if (parts === undefined || parts.length === 0) return random;
  let available = 0;
  for (const p of parts) if (p !== undefined && p.leader >= 0) available++;
  if (available === 0) return random % parts.length;
  let pick = random % available;
  for (let i = 0; i < parts.length; i++) if (parts[i] !== undefined && parts[i]!.leader >= 0 && pick-- === 0) return i;
  return random % parts.length; // not reached
}

function checkOptions(options: PartitionerOptions): { encoding: PlatformaticKeyBytes; batchSize: number } {
  if (options === null || typeof options !== 'object') throw new AssignorError('E_INPUT', `options must be an object, got ${describe(options)}`, 'options');
  const e = options.keyEncoding;
  if (e !== undefined && e !== 'java' && e !== 'serialized') throw new AssignorError('E_CHOICES', `keyEncoding must be "java" or "serialized", got ${describe(e)}`, 'options.keyEncoding');
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  if (typeof batchSize !== 'number' || !Number.isInteger(batchSize) || batchSize < 1) {
    throw new AssignorError('E_RANGE', `batchSize must be an integer >= 1, got ${describe(batchSize)}`, 'options.batchSize');
  }
  return { encoding: e ?? 'java', batchSize };
}

/**
 * A partitioner for `new Producer({ partitioner: createJavaCompatiblePartitioner() })` (any key
 * and value types: it reads the message's key and value as they are), one per producer (it keeps each topic's sticky partition for keyless messages):
 * - a key (an empty one too): `toPositive(murmur2(bytes))`, which the producer takes modulo the
 *   partition count, as Java's producer does; string keys hashed from Java's bytes by default;
 * - no key: the topic's sticky partition, chosen at random among the partitions with a leader
 *   and changed after `batchSize` bytes went to it, as Java's built-in partitioner does.
 * Throws AssignorError (E_INPUT, E_CHOICES, E_RANGE) for bad options, at creation.
 */
export function createJavaCompatiblePartitioner(options: PartitionerOptions = {}): Partitioner<unknown, unknown, unknown, unknown> {
  const { encoding, batchSize } = checkOptions(options);
  const sticky = new Map<string, Sticky>();
  return (message: MessageToProduce<unknown, unknown, unknown, unknown>, key: Buffer | undefined, context: PartitionerContext): number => {
    const raw: unknown = message.key;
    if (encoding === 'java' && typeof raw === 'string') return toPositive(murmur2OfString(raw, 'java'));
    if (key !== undefined && key !== null) return toPositive(murmur2OfBytes(key));
    let s = sticky.get(message.topic);
    if (s === undefined) {
      s = { partition: nextPartition(context, message.topic), bytes: 0 };
      sticky.set(message.topic, s);
    }
    const partition = s.partition;
    s.bytes += keylessRecordSize(message.value);
    // Java switches once the partition has taken batch.size bytes; the record that crossed stays.
    if (s.bytes >= batchSize) sticky.set(message.topic, { partition: nextPartition(context, message.topic), bytes: 0 });
    return partition;
  };
}
