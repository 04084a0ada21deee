// Kafka topic ids (org.apache.kafka.common.Uuid) as the consumer protocol's assignors see them:
// 128 bits printed as 22 characters of unpadded URL-safe base64. The broker's assignors order
// topics by Uuid.compareTo (signed 64-bit halves) and hash them with Uuid.hashCode, so both are
// reproduced here on four 32-bit words, big-endian: w0 w1 = mostSignificantBits, w2 w3 = least.
import { javaUtf8Bytes } from '../hashing/java-utf8.js';
import { murmur2OfBytes } from '../hashing/single-key.js';

export type TopicId = Int32Array;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const VALUE = new Map([...ALPHABET].map((c, i) => [c, i]));

/** What is wrong with `text` as a topic id as Kafka prints one, or null when it is one. */
export function topicIdProblem(text: string): string | null {
  if (text.length !== 22) return `a topic id is 22 characters of URL-safe base64 (as Kafka prints it), got ${text.length}`;
  for (const c of text) if (!VALUE.has(c)) return `a topic id is URL-safe base64 (A-Z a-z 0-9 - _), got ${JSON.stringify(c)}`;
  // 22 characters carry 132 bits; Kafka prints the last 4 as zeros, so any other spelling is not its id.
  if ((VALUE.get(text[21]!)! & 15) !== 0) return 'a topic id ends with one of A Q g w (its last 4 bits are zero), as Kafka prints it';
  const id = parseTopicId(text);
  // Uuid.RESERVED: ZERO_UUID and ONE_UUID (the metadata topic) are never a topic's id.
  if (id[0] === 0 && id[1] === 0 && id[2] === 0 && (id[3] === 0 || id[3] === 1)) return 'a topic id may not be one of Kafka\'s reserved ids (zero and one)';
  return null;
}

/** The four words of a well-formed id (check it with topicIdProblem first). */
export function parseTopicId(text: string): TopicId {
  const bytes = new Uint8Array(17);
  let acc = 0;
  let bits = 0;
  let at = 0;
  for (const c of text) {
    acc = (acc << 6) | VALUE.get(c)!;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[at++] = (acc >>> bits) & 255;
    }
  }
  const view = new DataView(bytes.buffer);
  return Int32Array.of(view.getInt32(0), view.getInt32(4), view.getInt32(8), view.getInt32(12));
}

/** The id as Kafka prints it. */
export function formatTopicId(id: TopicId): string {
  const bytes = new Uint8Array(16);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < 4; i++) view.setInt32(4 * i, id[i]!);
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = ((acc & 0xffff) << 8) | b;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += ALPHABET[(acc >>> bits) & 63];
    }
  }
  return out + ALPHABET[(acc << (6 - bits)) & 63];
}

/**
 * The id of a topic given without one: word k is Kafka's murmur2 of the name's UTF-8 bytes followed
 * by the byte k. Stable across runs and machines, so the order-dependent answers of `uniform` are too.
 */
export function derivedTopicId(name: string): TopicId {
  const utf8 = javaUtf8Bytes(name);
  const bytes = new Uint8Array(utf8.length + 1);
  bytes.set(utf8);
  const id = new Int32Array(4);
  for (let k = 0; k < 4; k++) {
    bytes[utf8.length] = k;
    id[k] = murmur2OfBytes(bytes);
  }
  return id;
}

/** Uuid.hashCode: the two halves XORed, then the high and low words of that. */
export function topicIdHash(id: TopicId): number {
  return id[0]! ^ id[1]! ^ id[2]! ^ id[3]!;
}

/** Uuid.compareTo: mostSignificantBits, then leastSignificantBits, each a signed long. */
export function compareTopicIds(a: TopicId, b: TopicId): number {
  for (let half = 0; half < 4; half += 2) {
    if (a[half] !== b[half]) return a[half]! < b[half]! ? -1 : 1;
    const lo = a[half + 1]! >>> 0;
    const other = b[half + 1]! >>> 0;
    if (lo !== other) return lo < other ? -1 : 1;
  }
  return 0;
}
