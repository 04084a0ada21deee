// Keys that live in kernel memory. `partitionsForFixed` and `partitionsForPacked`
// copy the caller's bytes into kernel memory and the partitions out again on every
// call; at a million keys those copies cost more than the SIMD kernel. A KeyBatch
// gives the caller the kernel's own memory: write the keys there (or copy a buffer
// in once), hash them in place as often as needed, read the partitions from a view.
import { AssignorError, requireInt } from '../errors.js';
import { loadKernels, type EngineOptions, type PinnedKeys } from '../engine/kernels.js';
import { partitionCount } from './single-key.js';

export interface KeyBatchOptions extends EngineOptions {
  /** Room for key bytes (default 1 MiB). */
  maxBytes?: number;
  /** Most keys per call (default 65,536). */
  maxKeys?: number;
}

const MAX_BYTES = 0x40000000; // 1 GiB: the batch's bytes plus 8 bytes per key must fit one kernel instance

/**
 * Key bytes in kernel memory, hashed in place. Write keys into `bytes`
 * (fixed-width keys back to back, or any keys with their bounds in `offsets`),
 * then ask for their partitions. Results are a view into kernel memory, valid
 * until the next call on this batch; copy them (`.slice()`) to keep them.
 * One batch holds its memory for its lifetime and never grows: create it once.
 */
export class KeyBatch {
  /** Where the keys go: `maxBytes` bytes of kernel memory. */
  readonly bytes: Uint8Array;
  /** `maxKeys + 1` entries for partitionsForPacked: key i is bytes[offsets[i] .. offsets[i+1]). */
  readonly offsets: Int32Array;
  readonly maxKeys: number;
  private readonly pinned: PinnedKeys;

  constructor(options: KeyBatchOptions = {}) {
    const maxBytes = requireInt(options.maxBytes ?? 1 << 20, 1, MAX_BYTES, 'maxBytes', 'options.maxBytes');
    this.maxKeys = requireInt(options.maxKeys ?? 1 << 16, 1, (MAX_BYTES - maxBytes) >> 3, 'maxKeys', 'options.maxKeys');
    this.pinned = loadKernels(options).pinKeys(maxBytes, this.maxKeys);
    this.bytes = this.pinned.bytes;
    this.offsets = this.pinned.offsets;
  }

  /**
   * Partitions of `count` fixed-width keys: key i is bytes[i*keyLength .. (i+1)*keyLength).
   * Throws E_RANGE when the keys do not fit the batch.
   */
  partitionsForFixed(keyLength: number, count: number, numPartitions: number): Int32Array {
    const n = partitionCount(numPartitions);
    this.checkCount(count);
    requireInt(keyLength, 1, this.bytes.length, 'keyLength', 'keyLength');
    if (keyLength * count > this.bytes.length) {
      throw new AssignorError('E_RANGE', `${count} keys of ${keyLength} bytes need ${keyLength * count} bytes, more than the batch's ${this.bytes.length} (maxBytes)`, 'count');
    }
    this.pinned.hashFixed(keyLength, count, n);
    return this.pinned.out.subarray(0, count);
  }

  /**
   * Partitions of the first `count` keys described by `offsets` (offsets[0 .. count]).
   * Throws E_PACKED when the offsets decrease or leave the batch's bytes.
   */
  partitionsForPacked(count: number, numPartitions: number): Int32Array {
    const n = partitionCount(numPartitions);
    this.checkCount(count);
    const offsets = this.offsets;
    const end = this.bytes.length;
    let prev = offsets[0]!;
    if (prev < 0 || prev > end) throw new AssignorError('E_PACKED', `offsets[0] is ${prev}, outside the batch's bytes [0, ${end}]`, 'offsets[0]');
    for (let i = 1; i <= count; i++) {
      const o = offsets[i]!;
      if (o < prev || o > end) {
        throw new AssignorError('E_PACKED', o < prev ? `offsets must not decrease: offsets[${i}] = ${o} < offsets[${i - 1}] = ${prev}` : `offsets[${i}] = ${o} is past the batch's ${end} bytes`, `offsets[${i}]`);
      }
      prev = o;
    }
    this.pinned.hashVar(count, n);
    return this.pinned.out.subarray(0, count);
  }

  private checkCount(count: number): void {
    requireInt(count, 0, this.maxKeys, 'count', 'count');
  }
}

/** A KeyBatch (see there): `createKeyBatch({ maxKeys, maxBytes })`. */
export function createKeyBatch(options?: KeyBatchOptions): KeyBatch {
  return new KeyBatch(options);
}
