// WASM scalar = WASM SIMD = reference, on random inputs (fast-check), including
// empty keys, batch sizes not divisible by 4, keys of unequal block counts in
// one SIMD group, astral characters and unpaired surrogates.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadKernels } from '../../src/engine/kernels.js';
import { murmur2Ref } from '../../src/engine/reference/hash.js';
import { partitionsForKeys, partitionsForPacked, partitionsForFixed, murmur2Batch } from '../../src/hashing/index.js';

const ref = loadKernels({ engine: 'reference' });
const scalar = loadKernels({ engine: 'wasm-scalar' });
const simd = loadKernels({ engine: 'wasm-simd' });
const RUNS = { numRuns: 250 };

const partitionCount = fc.oneof(
  fc.constantFrom(1, 2, 3, 12, 1000, 2147483647),
  fc.integer({ min: 1, max: 2147483647 }),
);

function pack(keys: Uint8Array[]): { data: Uint8Array; offsets: Int32Array } {
  const offsets = new Int32Array(keys.length + 1);
  let total = 0;
  keys.forEach((k, i) => (offsets[i + 1] = total += k.length));
  const data = new Uint8Array(total);
  keys.forEach((k, i) => data.set(k, offsets[i]!));
  return { data, offsets };
}

describe('differential: wasm scalar = wasm simd = reference', () => {
  it('single random byte arrays of length 0..300, raw hash and partitions', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 300 }), partitionCount, (bytes, n) => {
        const offsets = Int32Array.of(0, bytes.length);
        const want = murmur2Ref(bytes);
        for (const k of [ref, scalar, simd]) {
          expect(k.hashVar(bytes, offsets, 1, 0)[0]).toBe(want);
          expect(k.hashVar(bytes, offsets, 1, n)[0]).toBe((want & 0x7fffffff) % n);
        }
      }),
      RUNS,
    );
  });

  it('random batches of 0..5000 variable-length keys (packed)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 0, maxLength: 40 }), { minLength: 0, maxLength: 5000 }),
        partitionCount,
        (keys, n) => {
          const { data, offsets } = pack(keys);
          const want = ref.hashVar(data, offsets, keys.length, n);
          expect(scalar.hashVar(data, offsets, keys.length, n)).toEqual(want);
          expect(simd.hashVar(data, offsets, keys.length, n)).toEqual(want);
          expect(partitionsForPacked(data, offsets, n)).toEqual(want);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('groups of four short keys with one block count (one v128 load per key), up to the last byte of the batch', () => {
    // The SIMD kernel loads 16 bytes from each of four keys under 16 bytes long while
    // that stays inside the batch's data, and gathers block by block near its end.
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 0, maxLength: 41 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        partitionCount,
        (blocks, tails, pad, seed, n) => {
          let x = seed | 1;
          const next = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), x & 0xff);
          const keys = tails.map((t) => Uint8Array.from({ length: 4 * blocks + t }, next));
          const { data: packed, offsets } = pack(keys);
          // Keys start `pad` bytes into the data: offsets[0] > 0 is allowed.
          const data = new Uint8Array(pad + packed.length);
          data.set(packed, pad);
          for (let i = 0; i < offsets.length; i++) offsets[i] += pad;
          for (const raw of [0, n]) {
            const want = ref.hashVar(data, offsets, keys.length, raw);
            expect(Array.from(want)).toEqual(keys.map((k) => (raw === 0 ? murmur2Ref(k) : (murmur2Ref(k) & 0x7fffffff) % raw)));
            expect(simd.hashVar(data, offsets, keys.length, raw)).toEqual(want);
            expect(scalar.hashVar(data, offsets, keys.length, raw)).toEqual(want);
          }
          expect(partitionsForPacked(data, offsets, n, { engine: 'wasm-simd' })).toEqual(ref.hashVar(data, offsets, keys.length, n));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('random fixed-width batches (widths 1..40, counts 0..2000)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), partitionCount, (w, count, seed, n) => {
        const data = new Uint8Array(w * count);
        let x = seed | 1;
        for (let i = 0; i < data.length; i++) {
          x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
          data[i] = x & 0xff;
        }
        const want = ref.hashFixed(data, w, count, n);
        expect(scalar.hashFixed(data, w, count, n)).toEqual(want);
        expect(simd.hashFixed(data, w, count, n)).toEqual(want);
        expect(partitionsForFixed(data, w, n, { engine: 'wasm-simd' })).toEqual(want);
      }),
      RUNS,
    );
  });

  it('random strings with astral characters and unpaired surrogates, and nulls', () => {
    const unit = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.array(fc.integer({ min: 0xd800, max: 0xdfff }), { maxLength: 4 }).map((u) => String.fromCharCode(...u)),
    );
    fc.assert(
      fc.property(fc.array(fc.option(unit, { nil: null }), { maxLength: 500 }), partitionCount, (keys, n) => {
        const want = partitionsForKeys(keys, n, { engine: 'reference' });
        expect(partitionsForKeys(keys, n, { engine: 'wasm-scalar' })).toEqual(want);
        expect(partitionsForKeys(keys, n, { engine: 'wasm-simd' })).toEqual(want);
        expect(murmur2Batch(keys, { engine: 'wasm-simd' })).toEqual(murmur2Batch(keys, { engine: 'reference' }));
      }),
      RUNS,
    );
  });

  it('edge keys: empty, one byte, lengths around the 4- and 16-byte strides', () => {
    const keys: Uint8Array[] = [];
    for (let len = 0; len <= 70; len++) keys.push(Uint8Array.from({ length: len }, (_, i) => (i * 37 + len) & 0xff));
    const { data, offsets } = pack(keys);
    const want = Array.from(keys, (k) => murmur2Ref(k));
    expect(Array.from(simd.hashVar(data, offsets, keys.length, 0))).toEqual(want);
    expect(Array.from(scalar.hashVar(data, offsets, keys.length, 0))).toEqual(want);
  });

  it('groups of four keys with equal block counts but different tails (the masked SIMD path)', () => {
    // Each group: one block count b, four lengths 4b..4b+3, so lanes share blocks and differ in tails.
    const group = fc
      .tuple(fc.integer({ min: 0, max: 40 }), fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 4, maxLength: 4 }))
      .chain(([b, rems]) => fc.tuple(...rems.map((r) => fc.uint8Array({ minLength: 4 * b + r, maxLength: 4 * b + r }))));
    fc.assert(
      fc.property(fc.array(group, { minLength: 0, maxLength: 300 }), fc.array(fc.uint8Array({ maxLength: 9 }), { maxLength: 3 }), partitionCount, (groups, tail, n) => {
        const keys = [...groups.flat(), ...tail];
        const { data, offsets } = pack(keys);
        const want = ref.hashVar(data, offsets, keys.length, n);
        expect(simd.hashVar(data, offsets, keys.length, n)).toEqual(want);
        expect(scalar.hashVar(data, offsets, keys.length, n)).toEqual(want);
        expect(simd.hashVar(data, offsets, keys.length, 0)).toEqual(ref.hashVar(data, offsets, keys.length, 0));
      }),
      { numRuns: 200 },
    );
  });
});
