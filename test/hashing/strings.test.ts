// String batches: partitionsForKeys joins runs of keys and copies them into kernel
// memory at once (as bytes when ASCII, else as UTF-16 units that the kernel
// encodes key by key: javaUtf8Keys). The oracle here is
// independent of that path: each key alone, through Java's encoding and the
// reference murmur2. Surrogates that pair only across a key boundary must stay
// two unpaired surrogates ('?' each), also where a run of joined keys ends.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { loadKernels, type Kernels } from '../../src/engine/kernels.js';
import { murmur2Ref } from '../../src/engine/reference/hash.js';
import { javaUtf8Bytes, murmur2Batch, partitionsForKeys, type Key } from '../../src/hashing/index.js';

const engines = [loadKernels({ engine: 'reference' }), loadKernels({ engine: 'wasm-scalar' }), loadKernels({ engine: 'wasm-simd' })];
const RUN_KEYS = 2048; // partitioner.ts joins this many keys at most per run (and at most 2^16 units)

/** Each key alone: Java's bytes, the reference murmur2, toPositive % n; -1 for null. */
function oracle(keys: readonly Key[], n: number): number[] {
  return keys.map((k) => {
    if (k === null || k === undefined) return -1;
    const h = murmur2Ref(typeof k === 'string' ? javaUtf8Bytes(k) : k);
    return (h & 0x7fffffff) % n;
  });
}

const HIGH = '\ud83d';
const LOW = '\ude00';
const unit = fc.constantFrom('a', 'Z', '0', '-', 'é', 'ж', '日', '\u07ff', '\u0800', '\ufffd', '\uffff', HIGH, LOW, '\udbff', '\udc00', '😀', '𝄞');
const key = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit, maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constantFrom(HIGH, LOW, `x${HIGH}`, `${LOW}x`, '', null) },
);
const partitionCount = fc.oneof(fc.constantFrom(1, 7, 1000, 2147483647), fc.integer({ min: 1, max: 2147483647 }));

describe('partitionsForKeys on string batches = each key alone, on every engine', () => {
  it('random keys: ASCII, non-ASCII, astral, unpaired and boundary-split surrogates, empty and null', () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 300 }), partitionCount, (keys, n) => {
        const want = oracle(keys, n);
        for (const k of engines) expect(Array.from(partitionsForKeys(keys, n, { engine: k.name }))).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });

  it('a key ending in a high surrogate followed by a key starting with the low one: two unpaired surrogates', () => {
    // Joined, these keys are well-formed (every surrogate pairs with a neighbour), so
    // only the boundary kernel can tell that two pairs are split between keys.
    const keys = [`a${HIGH}`, `${LOW}b`, HIGH, LOW, `${HIGH}${LOW}`, 'é'];
    expect(keys.join('').isWellFormed()).toBe(true);
    const want = oracle(keys, 1000);
    // The first two keys are 'a?' and '?b' in Java, not one emoji split in two.
    expect(want[0]).toBe((murmur2Ref(Uint8Array.of(0x61, 0x3f)) & 0x7fffffff) % 1000);
    expect(want[1]).toBe((murmur2Ref(Uint8Array.of(0x3f, 0x62)) & 0x7fffffff) % 1000);
    for (const k of engines) expect(Array.from(partitionsForKeys(keys, 1000, { engine: k.name }))).toEqual(want);
    // Empty and null keys between the halves join to nothing: the halves still meet in the joined run.
    const apart: Key[] = [`a${HIGH}`, '', null, undefined, `${LOW}b`, 'ж'];
    for (const k of engines) expect(Array.from(partitionsForKeys(apart, 1000, { engine: k.name }))).toEqual(oracle(apart, 1000));
  });

  it('split pairs and unpaired surrogates at the edges of joined runs, among thousands of ASCII and non-ASCII keys', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.integer({ min: 0, max: 3 * RUN_KEYS }), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (shift, splits, nonAscii) => {
          const keys: Key[] = Array.from({ length: 3 * RUN_KEYS + 5 }, (_, i) => (nonAscii && i % 3 === 0 ? `ключ-${i}` : `user-${1000000 + i}`));
          // Around each run edge and at random places: key i ends high, key i+1 starts low.
          for (const at of [RUN_KEYS - 1 + shift, 2 * RUN_KEYS - 1 - shift, ...splits]) {
            keys[at] = `${keys[at]}${HIGH}`;
            keys[at + 1] = `${LOW}${keys[at + 1]}`;
          }
          const want = oracle(keys, 997);
          for (const k of engines) expect(Array.from(partitionsForKeys(keys, 997, { engine: k.name }))).toEqual(want);
        },
      ),
      { numRuns: 20 },
    );
  });

  it('well-formed runs of non-ASCII keys with a real U+FFFD stay U+FFFD (only unpaired surrogates become ?)', () => {
    const keys = Array.from({ length: 5000 }, (_, i) => (i % 7 === 0 ? `\ufffd${i}` : `日本-${i}-😀`));
    for (const k of engines) expect(Array.from(partitionsForKeys(keys, 12, { engine: k.name }))).toEqual(oracle(keys, 12));
  });

  it('mixed strings, byte keys and nulls take the key-by-key path and agree', () => {
    const keys: Key[] = ['a', Uint8Array.of(1, 2, 3), null, `x${HIGH}`, `${LOW}`, new Uint8Array(0), '', undefined, 'ключ'];
    for (const k of engines) expect(Array.from(partitionsForKeys(keys, 31, { engine: k.name }))).toEqual(oracle(keys, 31));
  });

  it('raw hashes: murmur2Batch gives each key\'s murmur2 and 0 for null keys', () => {
    const keys: Key[] = ['foobar', null, `a${HIGH}`, `${LOW}`, '21', undefined];
    for (const k of engines) {
      expect(Array.from(murmur2Batch(keys, { engine: k.name }))).toEqual([-790332482, 0, murmur2Ref(javaUtf8Bytes(`a${HIGH}`)), murmur2Ref(Uint8Array.of(0x3f)), -973932308, 0]);
    }
  });

  it('long keys: at and over the run limit of 2^16 UTF-16 units, among short ones', () => {
    const keys = ['a', 'é'.repeat(1 << 16), 'b', 'é'.repeat((1 << 16) + 1), `${'x'.repeat((1 << 16) - 1)}${HIGH}`, `${LOW}`, 'c'];
    for (const k of engines) expect(Array.from(partitionsForKeys(keys, 1000, { engine: k.name }))).toEqual(oracle(keys, 1000));
  });

  it('keys in any of V8\'s string shapes (flat, concatenated, sliced, ASCII held as 16-bit units) hash by their characters', () => {
    // The batch path appends keys to one run string and copies it out natively;
    // a copy that read V8's storage (latin1 bytes, say) would go wrong on some shapes.
    const twoByteParent = `日${'user-1234567890'.repeat(4)}`; // 16-bit storage, ASCII after the first unit
    let cons = 'user-';
    cons += 'abcdefghijkl'; // 17 units: V8 keeps a concatenation this long as a cons string
    const shapes: Key[] = [
      twoByteParent.slice(1, 16), // a slice of 15 ASCII units that V8 keeps as 16-bit units
      cons,
      `${HIGH}${twoByteParent.slice(1, 14)}`, // lone high surrogate, then 16-bit ASCII
      twoByteParent.slice(1, 16),
      twoByteParent.slice(0, 20),
      'user-1234567890',
    ];
    const flat = shapes.map((k) => (typeof k === 'string' ? Array.from(k).join('') : k));
    const want = oracle(flat, 1000);
    for (const k of engines) expect(Array.from(partitionsForKeys(shapes, 1000, { engine: k.name }))).toEqual(want);
    // The ASCII shapes alone make an ASCII run (the direct byte path): the same partitions as flat copies.
    const ascii = [shapes[0]!, shapes[1]!, shapes[3]!, shapes[5]!];
    for (const k of engines) expect(Array.from(partitionsForKeys(ascii, 1000, { engine: k.name }))).toEqual(oracle(ascii, 1000));
    expect(want[0]).toBe(want[5]);
  });

  it('many byte keys between strings and nulls, and one byte key larger than a run', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.uint8Array({ maxLength: 40 }), key), { minLength: 2000, maxLength: 6000 }), (keys) => {
        keys.splice(keys.length >> 1, 0, new Uint8Array(3 * (1 << 16) + 1).fill(7));
        const want = oracle(keys, 1013);
        for (const k of engines) expect(Array.from(partitionsForKeys(keys, 1013, { engine: k.name }))).toEqual(want);
      }),
      { numRuns: 10 },
    );
  });
});

describe('without Node\'s Buffer (other runtimes), units are copied by a loop and agree', () => {
  it('non-ASCII runs, split pairs and nulls', () => {
    const keys: Key[] = [`a${HIGH}`, `${LOW}b`, 'ключ', null, '😀x', 'plain', `${HIGH}`];
    const want = oracle(keys, 1000);
    vi.stubGlobal('Buffer', undefined);
    try {
      for (const k of engines) expect(Array.from(partitionsForKeys(keys, 1000, { engine: k.name }))).toEqual(want);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('hashUnits (javaUtf8Keys + hashVar): wasm scalar = wasm simd = reference = each key alone', () => {
  /** Writes the keys' UTF-16 units into the run area and runs the engine's kernel on keys from .. from+len. */
  function runWith(k: Kernels, keys: string[], from: number, n: number) {
    const joined = keys.join('');
    let got = { written: 0, offsets: [] as number[], bytes: [] as number[], out: [] as number[] };
    k.hashRuns(from + keys.length, Math.max(joined.length, 1), n, (runs) => {
      for (let i = 0; i < joined.length; i++) {
        runs.units[2 * i] = joined.charCodeAt(i) & 0xff;
        runs.units[2 * i + 1] = joined.charCodeAt(i) >> 8;
      }
      let u = 0;
      runs.offsets[from] = u;
      keys.forEach((s, i) => (runs.offsets[from + i + 1] = u += s.length));
      const written = runs.hashUnits(from, from + keys.length);
      got = {
        written,
        offsets: Array.from(runs.offsets.subarray(from, from + keys.length + 1)),
        bytes: Array.from(runs.bytes.subarray(0, written)),
        out: Array.from(runs.out.subarray(from)),
      };
    });
    return got;
  }

  it('encodes each key on its own (unpaired and boundary-split surrogates are ?, pairs inside a key 4 bytes) and hashes it', () => {
    const anyKey = fc.oneof(fc.string({ unit, maxLength: 14 }), fc.string({ unit: 'binary', maxLength: 14 }), fc.constantFrom(`a${HIGH}`, `${LOW}b`, HIGH, LOW, ''));
    fc.assert(
      fc.property(fc.array(anyKey, { maxLength: 60 }), fc.nat(5), fc.constantFrom(0, 1, 12, 1000), (keys, from, n) => {
        const want = runWith(engines[0]!, keys, from, n);
        for (const k of engines.slice(1)) expect(runWith(k, keys, from, n)).toEqual(want);
        let p = 0;
        const alone = keys.map((s) => javaUtf8Bytes(s));
        expect(want).toEqual({
          written: alone.reduce((t, b) => t + b.length, 0),
          offsets: [0, ...alone.map((b) => (p += b.length))],
          bytes: alone.flatMap((b) => Array.from(b)),
          out: alone.map((b) => (n > 0 ? (murmur2Ref(b) & 0x7fffffff) % n : murmur2Ref(b))),
        });
      }),
      { numRuns: 500 },
    );
  });
});
