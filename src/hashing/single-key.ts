// One key -> one partition in plain JS, with no WASM call and no allocation:
// a call into WASM (reset the arena, copy the key in, copy the result out)
// costs more than hashing one short key here, and a producer hashes one key
// per message. Bit-exact with assembly/murmur2.ts and src/engine/reference/hash.ts
// (test/hashing/single-key.test.ts checks it against the reference on random keys).
import { AssignorError, requireInt } from '../errors.js';
import { encodeJavaUtf8Into } from './java-utf8.js';
import { STRING_POLICY } from './string-path.js';
import { INT32_MAX } from '../basics.js';

const ENCODE_WELL_FORMED = STRING_POLICY.encodeWellFormed;

/** Kafka's murmur2 seed. */
export const MURMUR2_SEED = 0x9747b28c | 0;
const SEED = MURMUR2_SEED;
const M = 0x5bd1e995;

/**
 * How a string becomes bytes: `java` as Java's `String.getBytes(UTF_8)` (Kafka's
 * StringSerializer: an unpaired surrogate becomes '?'), `whatwg` as `TextEncoder`
 * and `Buffer.from(string)` (KafkaJS: an unpaired surrogate becomes U+FFFD).
 * The two differ only for strings with unpaired surrogates.
 */
export type StringEncoding = 'java' | 'whatwg';

// Reused for keys that are not ASCII: grown to the longest such key seen, never shrunk.
let scratch = new Uint8Array(256);
const utf8 = new TextEncoder();
const int64View = new DataView(new ArrayBuffer(8));

function scratchFor(units: number): Uint8Array {
  if (scratch.length < units * 3) scratch = new Uint8Array(Math.max(units * 3, scratch.length * 2));
  return scratch;
}

/** One murmur2 block step (exported for the int batches of partitioner.ts). */
export function mix(h: number, k: number): number {
  k = Math.imul(k, M);
  k ^= k >>> 24;
  return Math.imul(h, M) ^ Math.imul(k, M);
}

/** murmur2's final avalanche. */
export function finish(h: number): number {
  h ^= h >>> 13;
  h = Math.imul(h, M);
  return h ^ (h >>> 15);
}

/** Kafka's murmur2 of `len` bytes of `b` from `start`, as a signed int32. */
export function murmur2OfBytes(b: Uint8Array, start = 0, len = b.length - start): number {
  let h = SEED ^ len;
  const end4 = start + (len & ~3);
  let i = start;
  for (; i < end4; i += 4) h = mix(h, b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24));
  const rem = len & 3;
  if (rem === 3) h ^= b[i + 2]! << 16;
  if (rem >= 2) h ^= b[i + 1]! << 8;
  if (rem >= 1) h = Math.imul(h ^ b[i]!, M); // the tail multiply only when a tail exists
  return finish(h);
}

/**
 * Kafka's murmur2 of a string's bytes (`java` encoding unless told otherwise).
 * ASCII keys are hashed straight from their UTF-16 units (an ASCII string's
 * UTF-8 bytes are its units); any other key is encoded into a reused buffer first.
 */
export function murmur2OfString(s: string, encoding: StringEncoding = 'java'): number {
  const len = s.length;
  let h = SEED ^ len;
  let seen = 0; // OR of every unit: >= 0x80 means not ASCII
  const end4 = len & ~3;
  let i = 0;
  for (; i < end4; i += 4) {
    const a = s.charCodeAt(i);
    const b = s.charCodeAt(i + 1);
    const c = s.charCodeAt(i + 2);
    const d = s.charCodeAt(i + 3);
    seen |= a | b | c | d;
    h = mix(h, a | (b << 8) | (c << 16) | (d << 24));
  }
  const rem = len & 3;
  if (rem !== 0) {
    const a = s.charCodeAt(i);
    let t = a;
    seen |= a;
    if (rem >= 2) {
      const b = s.charCodeAt(i + 1);
      seen |= b;
      t |= b << 8;
    }
    if (rem === 3) {
      const c = s.charCodeAt(i + 2);
      seen |= c;
      t |= c << 16;
    }
    h = Math.imul(h ^ t, M);
  }
  if (seen < 0x80) return finish(h);
  return murmur2OfNonAscii(s, encoding);
}

/**
 * Java's murmur2 of a string encoded first, with no ASCII pass (for batches that are not ASCII):
 * where encodeInto is the fast encoder (string-path.ts), it encodes a well-formed string (its bytes
 * are then Java's); Java's encoder in JS encodes the rest.
 */
export function murmur2OfEncoded(s: string): number {
  const buf = scratchFor(s.length);
  const len = ENCODE_WELL_FORMED && s.isWellFormed() ? utf8.encodeInto(s, buf).written : encodeJavaUtf8Into(s, buf, 0);
  return murmur2OfBytes(buf, 0, len);
}

function murmur2OfNonAscii(s: string, encoding: StringEncoding): number {
  const buf = scratchFor(s.length);
  // A string with no unpaired surrogate has the same bytes under both encodings; where encodeInto
  // is the faster encoder (JavaScriptCore, string-path.ts), it encodes those.
  const whatwg = encoding === 'whatwg' || (ENCODE_WELL_FORMED && s.isWellFormed());
  const len = whatwg ? utf8.encodeInto(s, buf).written : encodeJavaUtf8Into(s, buf, 0);
  return murmur2OfBytes(buf, 0, len);
}

/** Kafka's murmur2 of an IntegerSerializer key (4 bytes big-endian). */
export function murmur2OfInt32(value: number): number {
  return finish(mix(SEED ^ 4, byteSwap(value)));
}

/** The 4 bytes of v in the other order: a big-endian int read as one little-endian block. */
export function byteSwap(v: number): number {
  return (v >>> 24) | ((v >>> 8) & 0xff00) | ((v << 8) & 0xff0000) | (v << 24);
}

/** Kafka's murmur2 of a LongSerializer key (8 bytes big-endian). */
export function murmur2OfInt64(value: bigint): number {
  int64View.setBigInt64(0, value, false);
  return finish(mix(mix(SEED ^ 8, int64View.getInt32(0, true)), int64View.getInt32(4, true)));
}

/** numPartitions when it is an integer in [1, 2^31-1]; otherwise the E_RANGE error. */
export function partitionCount(n: number): number {
  return (n | 0) === n && n >= 1 ? n : requireInt(n, 1, INT32_MAX, 'numPartitions', 'numPartitions');
}

/** The partition Kafka's producer picks for a string key: toPositive(murmur2(bytes)) % numPartitions. */
export function partitionForString(key: string, numPartitions: number, encoding: StringEncoding = 'java'): number {
  const n = partitionCount(numPartitions);
  if (typeof key !== 'string') throw new AssignorError('E_KEY_TYPE', `key must be a string, got ${typeof key}`, 'key');
  return (murmur2OfString(key, encoding) & 0x7fffffff) % n;
}

/** The partition Kafka's producer picks for a key already serialized to bytes (a Buffer is a Uint8Array). */
export function partitionForBytes(key: Uint8Array, numPartitions: number): number {
  const n = partitionCount(numPartitions);
  if (!(key instanceof Uint8Array)) throw new AssignorError('E_KEY_TYPE', `key must be a Uint8Array, got ${typeof key}`, 'key');
  return (murmur2OfBytes(key) & 0x7fffffff) % n;
}
