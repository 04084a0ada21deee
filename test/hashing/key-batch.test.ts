// KeyBatch: keys written straight into kernel memory and hashed in place, on every
// engine equal to the reference one-shot calls; bounds are checked before any kernel
// runs; a batch's keys survive any other call in between (its memory is its own).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AssignorError } from '../../src/errors.js';
import { loadKernels } from '../../src/engine/kernels.js';
import { createKeyBatch, encodeJavaUtf8Into, javaUtf8Bound, partitionsForFixed, partitionsForKeys, partitionsForPacked } from '../../src/hashing/index.js';

const ENGINES = ['reference', 'wasm-scalar', 'wasm-simd'] as const;
const ref = loadKernels({ engine: 'reference' });
const partitionCount = fc.oneof(fc.constantFrom(1, 2, 12, 1000, 2147483647), fc.integer({ min: 1, max: 2147483647 }));

function code(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(AssignorError);
    return (e as AssignorError).code;
  }
  return 'no error';
}

describe.each(ENGINES)('KeyBatch on engine %s', (engine) => {
  const batch = createKeyBatch({ engine, maxBytes: 64 * 1024, maxKeys: 4096 });

  it('fixed-width keys written in place = the reference (widths 1..40, 0..maxKeys keys)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.nat(1600), fc.nat(), partitionCount, (w, count, seed, n) => {
        let x = seed | 1;
        for (let i = 0; i < w * count; i++) {
          x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
          batch.bytes[i] = x & 0xff;
        }
        const want = ref.hashFixed(batch.bytes.slice(0, w * count), w, count, n);
        expect(Array.from(batch.partitionsForFixed(w, count, n))).toEqual(Array.from(want));
      }),
      { numRuns: 150 },
    );
  });

  it('variable-length keys with offsets = the reference, including empty keys and a start past 0', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 30 }), { maxLength: 1500 }), fc.nat(16), partitionCount, (keys, start, n) => {
        let p = start;
        batch.offsets[0] = p;
        keys.forEach((k, i) => {
          batch.bytes.set(k, p);
          batch.offsets[i + 1] = p += k.length;
        });
        const want = partitionsForKeys(keys, n, { engine: 'reference' });
        expect(Array.from(batch.partitionsForPacked(keys.length, n))).toEqual(Array.from(want));
      }),
      { numRuns: 150 },
    );
  });

  it('strings written in place as Java UTF-8 (non-ASCII, astral, lone surrogates, empty) = partitionsForKeys on the strings', () => {
    const unit = fc.oneof(fc.constantFrom(0xd800, 0xdbff, 0xdc00, 0xdfff, 0, 0x7f, 0x80, 0x7ff, 0x800, 0xffff), fc.integer({ min: 0, max: 0xffff }));
    const str = fc.oneof(fc.array(unit, { maxLength: 12 }).map((u) => String.fromCharCode(...u)), fc.string({ unit: 'binary', maxLength: 12 }), fc.constant(''));
    fc.assert(
      fc.property(fc.array(str, { maxLength: 1000 }), partitionCount, (keys, n) => {
        let p = 0;
        batch.offsets[0] = 0;
        keys.forEach((k, i) => {
          expect(p + javaUtf8Bound(k)).toBeLessThanOrEqual(batch.bytes.length);
          batch.offsets[i + 1] = p = encodeJavaUtf8Into(k, batch.bytes, p);
        });
        const want = partitionsForKeys(keys, n, { engine: 'reference' });
        expect(Array.from(batch.partitionsForPacked(keys.length, n))).toEqual(Array.from(want));
      }),
      { numRuns: 100 },
    );
  });

  it('results are a view that the next call overwrites; keys stay put through other calls', () => {
    const b = createKeyBatch({ engine, maxBytes: 16 * 100, maxKeys: 100 });
    for (let i = 0; i < 1600; i++) b.bytes[i] = (i * 31) & 0xff;
    const first = b.partitionsForFixed(16, 100, 97);
    const kept = first.slice();
    // Other calls on the same engine (they reset the shared arena) do not touch the batch.
    partitionsForKeys(Array.from({ length: 5000 }, (_, i) => `k${i}`), 7, { engine });
    partitionsForPacked(new Uint8Array(4096).fill(9), Int32Array.of(0, 4096), 7, { engine });
    expect(Array.from(b.partitionsForFixed(16, 100, 97))).toEqual(Array.from(kept));
    expect(Array.from(kept)).toEqual(Array.from(partitionsForFixed(b.bytes.slice(0, 1600), 16, 97, { engine: 'reference' })));
    b.partitionsForFixed(16, 100, 3);
    expect(Array.from(first)).toEqual(Array.from(partitionsForFixed(b.bytes.slice(0, 1600), 16, 3, { engine: 'reference' })));
  });

  it('checks bounds before hashing', () => {
    const b = createKeyBatch({ engine, maxBytes: 100, maxKeys: 10 });
    expect(code(() => b.partitionsForFixed(16, 7, 3))).toBe('E_RANGE'); // 112 bytes > 100
    expect(code(() => b.partitionsForFixed(1, 11, 3))).toBe('E_RANGE'); // 11 keys > 10
    expect(code(() => b.partitionsForFixed(0, 1, 3))).toBe('E_RANGE');
    expect(code(() => b.partitionsForFixed(4, 2, 0))).toBe('E_RANGE');
    expect(code(() => b.partitionsForFixed(4, 1.5, 3))).toBe('E_RANGE');
    b.offsets.set([0, 5, 3]);
    expect(code(() => b.partitionsForPacked(2, 3))).toBe('E_PACKED');
    b.offsets.set([0, 5, 101]);
    expect(code(() => b.partitionsForPacked(2, 3))).toBe('E_PACKED');
    b.offsets.set([-1, 5, 6]);
    expect(code(() => b.partitionsForPacked(2, 3))).toBe('E_PACKED');
    expect(() => b.partitionsForPacked(2, 3)).toThrow('offsets[0] is -1');
    b.offsets.set([0, 5, 100]);
    expect(b.partitionsForPacked(2, 3).length).toBe(2);
    expect(b.partitionsForFixed(10, 10, 3).length).toBe(10);
    expect(b.partitionsForFixed(10, 0, 3).length).toBe(0);
  });
});

describe('KeyBatch options', () => {
  it('rejects sizes that are not positive integers, and unknown engines', () => {
    expect(code(() => createKeyBatch({ maxBytes: 0 }))).toBe('E_RANGE');
    expect(code(() => createKeyBatch({ maxKeys: -1 }))).toBe('E_RANGE');
    expect(code(() => createKeyBatch({ maxBytes: 2 ** 31 }))).toBe('E_RANGE');
    expect(code(() => createKeyBatch({ engine: 'gpu' as never }))).toBe('E_ENGINE');
    expect(createKeyBatch().bytes.length).toBe(1 << 20);
    expect(createKeyBatch().maxKeys).toBe(1 << 16);
  });
});
