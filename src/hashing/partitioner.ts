// Kafka's key -> partition, bit-exact with the Java client:
// partition = Utils.toPositive(Utils.murmur2(serializedKey)) % numPartitions.
// A null key has no partition (Kafka never hashes it; the producer's sticky
// partitioner picks one), so single calls return -1 and batches hold -1 there.
// An empty key is not null: it is hashed.
//
// Single keys run in plain JS (single-key.ts) unless a caller names an engine:
// every engine gives the same answer, and a WASM call costs more than one key.
import { AssignorError, requireInt } from '../errors.js';
import { engineLeftToUs, loadKernels, type EngineOptions, type StringRuns } from '../engine/kernels.js';
import { stringPathOf } from './string-path.js';
import { javaUtf8Bytes } from './java-utf8.js';
import { int32Bytes, int64Bytes } from './key-encoding.js';
import { byteSwap, finish, mix, MURMUR2_SEED, murmur2OfBytes, murmur2OfEncoded, murmur2OfInt32, murmur2OfInt64, murmur2OfString, partitionCount, partitionForBytes, partitionForString } from './single-key.js';
import { INT32_MAX, INT32_MIN } from '../basics.js';

/** The partition reported for a null key. */
export const NO_PARTITION = -1;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

export type Key = string | Uint8Array | null | undefined;

/** Java's Utils.toPositive: clears the sign bit (not Math.abs: -1 maps to 2147483647). */
export function toPositive(x: number): number {
  return x & 0x7fffffff;
}

function keyBytes(key: string | Uint8Array, where: string): Uint8Array {
  if (typeof key === 'string') return javaUtf8Bytes(key);
  if (key instanceof Uint8Array) return key;
  throw new AssignorError('E_KEY_TYPE', `key must be a string, a Uint8Array or null, got ${typeof key}`, where);
}

/**
 * Kafka's murmur2 of the key's bytes (strings as Java's UTF-8), as a signed int32.
 * Plain JS; with `options.engine` the named engine's kernel computes it.
 */
export function murmur2(key: string | Uint8Array, options?: EngineOptions): number {
  if (options?.engine === undefined) {
    if (typeof key === 'string') return murmur2OfString(key);
    if (key instanceof Uint8Array) return murmur2OfBytes(key);
  }
  const bytes = keyBytes(key, 'key');
  return loadKernels(options).hashVar(bytes, Int32Array.of(0, bytes.length), 1, 0)[0]!;
}

/**
 * The partition Kafka's producer picks for this key, or -1 for a null key.
 * Plain JS, no WASM call and no allocation for ASCII keys; with `options.engine`
 * the named engine's kernel computes it (the same answer, slower).
 */
export function partitionForKey(key: Key, numPartitions: number, options?: EngineOptions): number {
  if (options?.engine === undefined) {
    if (typeof key === 'string') return partitionForString(key, numPartitions);
    if (key === null || key === undefined) {
      partitionCount(numPartitions);
      return NO_PARTITION;
    }
    return partitionForBytes(key, numPartitions);
  }
  const n = partitionCount(numPartitions);
  if (key === null || key === undefined) return NO_PARTITION;
  const bytes = keyBytes(key, 'key');
  return loadKernels(options).hashVar(bytes, Int32Array.of(0, bytes.length), 1, n)[0]!;
}

/** Partition of an IntegerSerializer key (4 bytes big-endian). */
export function partitionForInt32(value: number, numPartitions: number, options?: EngineOptions): number {
  if ((value | 0) !== value) requireInt(value, INT32_MIN, INT32_MAX, 'int32 key', 'key');
  if (options?.engine !== undefined) return partitionForKey(int32Bytes(value), numPartitions, options);
  return (murmur2OfInt32(value) & 0x7fffffff) % partitionCount(numPartitions);
}

/** Partition of a LongSerializer key (8 bytes big-endian). */
export function partitionForInt64(value: bigint, numPartitions: number, options?: EngineOptions): number {
  requireInt64(value, 'key');
  if (options?.engine !== undefined) return partitionForKey(int64Bytes(value), numPartitions, options);
  return (murmur2OfInt64(value) & 0x7fffffff) % partitionCount(numPartitions);
}

/**
 * Partitions of many keys at once (strings, Uint8Arrays and nulls, mixed freely).
 * Key bytes are written straight into kernel memory; one Int32Array comes back.
 * `numPartitions` 0 is not allowed here; use murmur2Batch for raw hashes.
 */
export function partitionsForKeys(keys: readonly Key[], numPartitions: number, options?: EngineOptions): Int32Array {
  return hashKeys(keys, partitionCount(numPartitions), options);
}

/** Raw signed murmur2 of many keys (null keys give 0 and should be ignored). */
export function murmur2Batch(keys: readonly Key[], options?: EngineOptions): Int32Array {
  return hashKeys(keys, 0, options);
}

function hashKeys(keys: readonly Key[], n: number, options?: EngineOptions): Int32Array {
  if (!Array.isArray(keys)) throw new AssignorError('E_KEY_TYPE', 'keys must be an array', 'keys');
  if (!engineLeftToUs(options)) return hashKeysInWasm(keys, n, options);
  const path = stringPathOf(keys);
  if (path === 'wasm') return hashKeysInWasm(keys, n);
  return hashKeysInJs(keys, n, path === 'js-encode');
}

/** The kernel's path: keys copied into WASM memory run by run (hashInRuns). */
export function hashKeysInWasm(keys: readonly Key[], n: number, options?: EngineOptions): Int32Array {
  return loadKernels(options).hashRuns(keys.length, RUN_UNITS, n, (runs) => hashInRuns(keys, n, runs));
}

/**
 * The plain-JS path: each key hashed where it lies (single-key.ts), no copy; with `encodeFirst`
 * every string is encoded before it is hashed (string-path.ts says when each is faster). A batch
 * runs the string-only loop while its keys are strings (the loop that dispatches on each key's kind
 * measured 11-14% slower on 1M user ids on Node 24, Deno and Bun, in one CPU-time A/B at load 6;
 * issue 33); the first other key hands the rest of the batch to the loop that takes every kind.
 */
export function hashKeysInJs(keys: readonly Key[], n: number, encodeFirst = false): Int32Array {
  const out = new Int32Array(keys.length);
  const from = encodeFirst ? encodedStrings(keys, n, out) : asciiStrings(keys, n, out);
  if (from < keys.length) anyKeys(keys, n, out, from, encodeFirst);
  return out;
}

/** out[i] for keys[0 ..] while they are strings (murmur2OfString); returns the first other index. */
function asciiStrings(keys: readonly Key[], n: number, out: Int32Array): number {
  const count = keys.length;
  let i = 0;
  for (; i < count; i++) {
    const k = keys[i];
    if (typeof k !== 'string') break;
    const h = murmur2OfString(k);
    out[i] = n > 0 ? (h & 0x7fffffff) % n : h;
  }
  return i;
}

/** As asciiStrings, each string encoded first (murmur2OfEncoded). */
function encodedStrings(keys: readonly Key[], n: number, out: Int32Array): number {
  const count = keys.length;
  let i = 0;
  for (; i < count; i++) {
    const k = keys[i];
    if (typeof k !== 'string') break;
    const h = murmur2OfEncoded(k);
    out[i] = n > 0 ? (h & 0x7fffffff) % n : h;
  }
  return i;
}

/** out[i] for keys[from ..] of every kind: strings, byte keys and nulls. */
function anyKeys(keys: readonly Key[], n: number, out: Int32Array, from: number, encodeFirst: boolean): void {
  const none = n > 0 ? NO_PARTITION : 0;
  for (let i = from; i < keys.length; i++) {
    const k = keys[i];
    if (typeof k === 'string') out[i] = finalize(encodeFirst ? murmur2OfEncoded(k) : murmur2OfString(k), n);
    else if (k === null || k === undefined) out[i] = none;
    else if (k instanceof Uint8Array) out[i] = finalize(murmur2OfBytes(k), n);
    else throw new AssignorError('E_KEY_TYPE', `key must be a string, a Uint8Array or null, got ${typeof k}`, `keys[${i}]`);
  }
}

/** Keys per run and UTF-16 units per run: a run's units and bytes stay in cache. */
const RUN_KEYS = 2048;
const RUN_UNITS = 1 << 16;
const utf8 = new TextEncoder();

/**
 * Hashes the keys run by run, each run in one or two kernel calls:
 *  - strings (and nulls, which add nothing): charCodeAt costs more per
 *    character than the hash, so a run's characters are copied out of V8
 *    natively. The loop that checks each key's type and records its length also
 *    appends it to the run's string (`run += key`: V8 links the pieces, and the
 *    copy happens once, natively, when the run is written out: one pass over the
 *    keys instead of a length pass and an Array#join, 36.6 vs 45.4 ms of CPU per
 *    million `user-<7 digits>` keys, see docs/design.md). The run is written straight as bytes when it is
 *    ASCII (TextEncoder.encodeInto writes ASCII as is, so `written` equals the
 *    unit count exactly then), otherwise as UTF-16 code units (Buffer#write
 *    'utf16le', a copy), which the kernel encodes key by key as Java does; so
 *    unpaired surrogates, and pairs that the run formed across two keys, come out
 *    as '?'. The direct try is made while runs are ASCII; after a run that was
 *    not, it waits for the kernel to see an ASCII run.
 *  - byte keys: copied into the run's bytes.
 *  - a key longer than a run: hashed alone in JS (single-key.ts).
 * Null keys give -1 (or 0 for raw hashes).
 */
function hashInRuns(keys: readonly Key[], n: number, runs: StringRuns): void {
  const { offsets, out, bytes } = runs;
  // Node's Buffer copies a string's UTF-16 units natively; elsewhere a charCodeAt loop does.
  const units = typeof Buffer === 'function' ? Buffer.from(runs.units.buffer, runs.units.byteOffset, runs.units.byteLength) : null;
  const none = n > 0 ? NO_PARTITION : 0;
  const count = keys.length;
  let ascii = true;
  let s = 0;
  while (s < count) {
    const limit = Math.min(count, s + RUN_KEYS);
    offsets[s] = 0;
    let e = s;
    let u = 0;
    let nulls = 0;
    let k = keys[s];
    if (typeof k === 'string' || k === null || k === undefined) {
      let run = '';
      for (; e < limit; k = keys[e]) {
        if (typeof k === 'string') {
          if (u + k.length > RUN_UNITS) break;
          u += k.length;
          run += k;
        } else if (k === null || k === undefined) nulls++;
        else break;
        offsets[++e] = u;
      }
      if (e > s) {
        if (ascii && utf8.encodeInto(run, bytes).written === run.length) {
          runs.hashBytes(s, e);
        } else {
          writeUnits(run, units, runs.units);
          ascii = runs.hashUnits(s, e) === run.length;
        }
      }
    } else if (k instanceof Uint8Array) {
      for (; e < limit && k instanceof Uint8Array && u + k.length <= bytes.length - 4; k = keys[e]) {
        bytes.set(k, u);
        u += k.length;
        offsets[++e] = u;
      }
      if (e > s) runs.hashBytes(s, e);
    }
    if (e === s) {
      // keys[s] does not fit a run (or is no key): alone, in JS.
      if (typeof k === 'string') out[s] = finalize(murmur2OfString(k), n);
      else if (k instanceof Uint8Array) out[s] = finalize(murmur2OfBytes(k), n);
      else throw new AssignorError('E_KEY_TYPE', `key must be a string, a Uint8Array or null, got ${typeof k}`, `keys[${s}]`);
      e = s + 1;
    }
    if (nulls > 0) for (let i = s; i < e; i++) if (keys[i] === null || keys[i] === undefined) out[i] = none;
    s = e;
  }
}

/** The run's UTF-16 code units, little-endian, into the kernel's units area. */
function writeUnits(run: string, units: Buffer | null, area: Uint8Array): void {
  if (units !== null) {
    units.write(run, 0, 'utf16le');
    return;
  }
  for (let i = 0; i < run.length; i++) {
    const c = run.charCodeAt(i);
    area[2 * i] = c & 0xff;
    area[2 * i + 1] = c >> 8;
  }
}

function finalize(h: number, n: number): number {
  return n > 0 ? (h & 0x7fffffff) % n : h;
}

/**
 * Partitions of keys packed in one buffer: key i is bytes[offsets[i] .. offsets[i+1]),
 * so offsets has one more entry than there are keys.
 */
export function partitionsForPacked(bytes: Uint8Array, offsets: Int32Array, numPartitions: number, options?: EngineOptions): Int32Array {
  const n = partitionCount(numPartitions);
  checkPacked(bytes, offsets);
  return loadKernels(options).hashVar(bytes, offsets, offsets.length - 1, n);
}

/** Partitions of fixed-width keys: key i is bytes[i*keyLength .. (i+1)*keyLength). */
export function partitionsForFixed(bytes: Uint8Array, keyLength: number, numPartitions: number, options?: EngineOptions): Int32Array {
  const n = partitionCount(numPartitions);
  if (!(bytes instanceof Uint8Array)) throw new AssignorError('E_KEY_TYPE', 'bytes must be a Uint8Array', 'bytes');
  requireInt(keyLength, 1, INT32_MAX, 'keyLength', 'keyLength');
  if (bytes.length % keyLength !== 0) {
    throw new AssignorError('E_PACKED', `bytes.length ${bytes.length} is not a multiple of keyLength ${keyLength}`, 'bytes');
  }
  return loadKernels(options).hashFixed(bytes, keyLength, bytes.length / keyLength, n);
}

/**
 * Partitions of IntegerSerializer keys. Plain JS unless `options.engine` names an engine: a key is
 * one 4-byte block, so copying it into WASM memory costs more than hashing it (25x slower in
 * bench/runtime-shapes.bench.mjs on Node 24).
 */
export function partitionsForInt32s(values: ArrayLike<number>, numPartitions: number, options?: EngineOptions): Int32Array {
  const n = partitionCount(numPartitions);
  if (options?.engine !== undefined) return values.length === 0 ? new Int32Array(0) : partitionsForFixed(int32sAsBytes(values), 4, n, options);
  // An Int32Array holds int32s by construction: no check per value (it halved V8's speed here).
  const ints = values instanceof Int32Array ? values : checkedInt32s(values);
  const len = ints.length;
  const out = new Int32Array(len);
  for (let i = 0; i < len; i++) out[i] = (finish(mix(MURMUR2_SEED ^ 4, byteSwap(ints[i]!))) & 0x7fffffff) % n;
  return out;
}

function checkedInt32s(values: ArrayLike<number>): Int32Array {
  const out = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if ((v | 0) !== v) requireInt(v, INT32_MIN, INT32_MAX, 'int32 key', `values[${i}]`);
    out[i] = v;
  }
  return out;
}

/**
 * Partitions of LongSerializer keys; plain JS unless `options.engine` names an engine (as for int32
 * keys). The values are read as 32-bit words (no BigInt arithmetic per key): the serializer's
 * big-endian bytes, read as murmur2's little-endian blocks, are the high word byte-swapped, then the low.
 */
export function partitionsForInt64s(values: BigInt64Array | readonly bigint[], numPartitions: number, options?: EngineOptions): Int32Array {
  const n = partitionCount(numPartitions);
  if (options?.engine !== undefined) return values.length === 0 ? new Int32Array(0) : partitionsForFixed(int64sAsBytes(values), 8, n, options);
  const longs = values instanceof BigInt64Array ? values : checkedInt64s(values);
  const out = new Int32Array(longs.length);
  if (!LITTLE_ENDIAN) {
    for (let i = 0; i < longs.length; i++) out[i] = (murmur2OfInt64(longs[i]!) & 0x7fffffff) % n;
    return out;
  }
  const words = new Int32Array(longs.buffer, longs.byteOffset, longs.length * 2);
  const len = longs.length;
  for (let i = 0, w = 0; i < len; i++, w += 2) {
    const h = mix(mix(MURMUR2_SEED ^ 8, byteSwap(words[w + 1]!)), byteSwap(words[w]!));
    out[i] = (finish(h) & 0x7fffffff) % n;
  }
  return out;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
function checkedInt64s(values: readonly bigint[]): BigInt64Array {
  if (!Array.isArray(values)) throw new AssignorError('E_KEY_TYPE', 'values must be an array or a BigInt64Array', 'values');
  const out = new BigInt64Array(values.length);
  for (let i = 0; i < values.length; i++) {
    requireInt64(values[i], `values[${i}]`);
    out[i] = values[i]!;
  }
  return out;
}

function requireInt64(v: unknown, where: string): void {
  if (typeof v !== 'bigint' || v < INT64_MIN || v > INT64_MAX) {
    throw new AssignorError('E_RANGE', `int64 key must be a bigint in [-2^63, 2^63-1], got ${String(v)}`, where);
  }
}

/** IntegerSerializer bytes of every value, one after the other (for a named engine's kernel). */
function int32sAsBytes(values: ArrayLike<number>): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < values.length; i++) {
    requireInt(values[i], INT32_MIN, INT32_MAX, 'int32 key', `values[${i}]`);
    view.setInt32(i * 4, values[i]!, false);
  }
  return bytes;
}

/** LongSerializer bytes of every value (for a named engine's kernel). */
function int64sAsBytes(values: BigInt64Array | readonly bigint[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 8);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < values.length; i++) {
    requireInt64(values[i], `values[${i}]`);
    view.setBigInt64(i * 8, values[i]!, false);
  }
  return bytes;
}

function checkPacked(bytes: Uint8Array, offsets: Int32Array): void {
  if (!(bytes instanceof Uint8Array)) throw new AssignorError('E_KEY_TYPE', 'bytes must be a Uint8Array', 'bytes');
  if (!(offsets instanceof Int32Array) || offsets.length < 1) {
    throw new AssignorError('E_PACKED', 'offsets must be an Int32Array with one more entry than there are keys', 'offsets');
  }
  if (offsets[0]! < 0) throw new AssignorError('E_PACKED', `offsets[0] is ${offsets[0]}, must be >= 0`, 'offsets[0]');
  for (let i = 1; i < offsets.length; i++) {
    if (offsets[i]! < offsets[i - 1]!) {
      throw new AssignorError('E_PACKED', `offsets must not decrease: offsets[${i}] = ${offsets[i]} < offsets[${i - 1}] = ${offsets[i - 1]}`, `offsets[${i}]`);
    }
  }
  const last = offsets[offsets.length - 1]!;
  if (last > bytes.length) {
    throw new AssignorError('E_PACKED', `offsets end at ${last}, past the ${bytes.length} bytes given`, `offsets[${offsets.length - 1}]`);
  }
}
