// Every batch path gives the same partitions, on whatever runtime runs this file (the CI matrix
// runs it on Node 22/24/26, Bun and Deno): the plain-JS path, the WASM path on each engine and
// the reference twin, on random keys including empty keys, non-ASCII, astral characters and
// unpaired surrogates; and the int32/int64 batches (plain JS unless an engine is named).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashKeysInJs, hashKeysInWasm, partitionsForInt32s, partitionsForInt64s, partitionsForKeys, type Key } from '../../src/hashing/partitioner.js';
import { policyFor, STRING_POLICY, stringPathOf } from '../../src/hashing/string-path.js';

const RUNS = { numRuns: 200 };
const ENGINES = ['reference', 'wasm-scalar', 'wasm-simd'] as const;
const partitions = fc.oneof(fc.constantFrom(1, 2, 3, 12, 1000, 2147483647), fc.integer({ min: 1, max: 2147483647 }));
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const keyString = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(fc.oneof(fc.string({ maxLength: 5 }), loneSurrogate), { maxLength: 8 }).map((a) => a.join('')),
  fc.constantFrom('', 'a', '100:48069', 'ключ', '日本', '🙂', '\uD800', '\uDC00x', 'x\uD83D'),
);
const key: fc.Arbitrary<Key> = fc.oneof(
  { weight: 6, arbitrary: keyString },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined) },
);

describe('string batches: the JS path = the WASM path on every engine = the reference', () => {
  it('on random mixed keys, partitions and raw hashes', () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 300 }), partitions, (keys, n) => {
        const js = Array.from(hashKeysInJs(keys, n));
        expect(Array.from(hashKeysInJs(keys, n, true))).toEqual(js);
        for (const engine of ENGINES) expect(Array.from(hashKeysInWasm(keys, n, { engine }))).toEqual(js);
        const raw = Array.from(hashKeysInJs(keys, 0));
        expect(Array.from(hashKeysInWasm(keys, 0, { engine: 'reference' }))).toEqual(raw);
        expect(Array.from(partitionsForKeys(keys, n))).toEqual(js);
      }),
      RUNS,
    );
  });

  it('on batches of one shape, whichever path the runtime picks for it', () => {
    for (const make of [(i: number) => `user-${1000000 + i}`, (i: number) => `${i}`.padStart(36, 'x'), (i: number) => `ключ-${i}`, (i: number) => `k${i}\uD800`]) {
      const keys = Array.from({ length: 5000 }, (_, i) => make(i));
      const want = Array.from(hashKeysInWasm(keys, 1000, { engine: 'reference' }));
      expect(Array.from(partitionsForKeys(keys, 1000))).toEqual(want);
      expect(Array.from(hashKeysInJs(keys, 1000))).toEqual(want);
      expect(Array.from(hashKeysInJs(keys, 1000, true))).toEqual(want);
    }
  });

  // hashKeysInJs runs a string-only loop while the keys are strings and hands the rest of the batch
  // to the loop that takes every kind at the first other key: wherever that key falls, and whatever
  // the strings are, the partitions are the reference's.
  it('a batch of strings that changes shape at any index: the hand-over loses nothing', () => {
    const strings = fc.array(keyString, { maxLength: 60 });
    const other = fc.oneof(fc.uint8Array({ maxLength: 20 }), fc.constantFrom(null, undefined));
    fc.assert(
      fc.property(strings, other, fc.array(key, { maxLength: 20 }), partitions, (head, switchKey, tail, n) => {
        for (const keys of [head, [...head, switchKey], [...head, switchKey, ...tail]] as Key[][]) {
          for (const m of [n, 0]) {
            const want = Array.from(hashKeysInWasm(keys, m, { engine: 'reference' }));
            expect(Array.from(hashKeysInJs(keys, m))).toEqual(want);
            expect(Array.from(hashKeysInJs(keys, m, true))).toEqual(want);
          }
        }
      }),
      RUNS,
    );
  });

  it('the string-only loop on its edge cases: empty, non-ASCII, lone surrogates, 1 and 2^31-1 partitions', () => {
    const edge = ['', 'a', 'user-1234567', 'ключ', '日本', '🙂', '\uD800', '\uDC00x', 'x\uD83D', '\uD83D\uDE42', 'é'.repeat(40), '\uDFFF\uD800'];
    for (const n of [1, 2, 1000, 2147483647, 0]) {
      for (const keys of [edge, [...edge, null, ...edge], [...edge, new Uint8Array([0xe9]), ...edge], [null, ...edge]] as Key[][]) {
        const want = Array.from(hashKeysInWasm(keys, n, { engine: 'reference' }));
        expect(Array.from(hashKeysInJs(keys, n))).toEqual(want);
        expect(Array.from(hashKeysInJs(keys, n, true))).toEqual(want);
        for (const engine of ENGINES) expect(Array.from(hashKeysInWasm(keys, n, { engine }))).toEqual(want);
        if (n > 0) expect(Array.from(partitionsForKeys(keys, n))).toEqual(want);
      }
    }
  });

  it('a bad key is refused the same way on both paths', () => {
    const keys = ['a', 5 as unknown as string];
    expect(() => hashKeysInJs(keys, 3)).toThrow(expect.objectContaining({ code: 'E_KEY_TYPE', path: 'keys[1]' }));
    expect(() => hashKeysInJs(keys, 3, true)).toThrow(expect.objectContaining({ code: 'E_KEY_TYPE', path: 'keys[1]' }));
    expect(() => hashKeysInWasm(keys, 3)).toThrow(expect.objectContaining({ code: 'E_KEY_TYPE', path: 'keys[1]' }));
  });
});

describe('the path choice (string-path.ts)', () => {
  it('JavaScriptCore takes the JS path for every batch', () => {
    const jsc = policyFor('jsc');
    for (const keys of [['user-1234567'], ['0'.repeat(64)], [new Uint8Array(3)], []]) expect(stringPathOf(keys, jsc)).toBe('js');
    // Not ASCII: encoded first, by encodeInto where the key is well-formed.
    expect(stringPathOf(['ключ', 'a'], jsc)).toBe('js-encode');
  });

  it('V8 takes the JS path for short ASCII keys and WASM for longer ones and for byte keys', () => {
    const v8 = policyFor('v8-node');
    expect(stringPathOf(Array.from({ length: 100 }, (_, i) => `k${100000 + i}`), v8)).toBe('js');
    // 12 units: WASM (the copy and the kernel beat the charCodeAt loop on every V8 line, issue 33).
    expect(stringPathOf(Array.from({ length: 100 }, (_, i) => `user-${1000000 + i}`), v8)).toBe('wasm');
    expect(stringPathOf(Array.from({ length: 100 }, () => '0'.repeat(36)), v8)).toBe('wasm');
    expect(stringPathOf([new Uint8Array(16), 'a'], v8)).toBe('wasm');
    expect(stringPathOf([null, null], v8)).toBe('wasm');
    expect(stringPathOf(['ключ', 'a'], v8)).toBe('wasm');
    // Without Node's Buffer (Deno, Chromium) the units cannot be copied natively: non-ASCII in JS, encoded first.
    expect(stringPathOf(['ключ', 'a'], policyFor('v8'))).toBe('js-encode');
    expect(stringPathOf(['user-1234567'], policyFor('v8'))).toBe('wasm');
    expect(stringPathOf(['k1234'], policyFor('v8'))).toBe('js');
  });

  // Independent of how string-path.ts detects it: the runtime .ci/run says it started.
  it.runIf(process.env.ASSIGNOR_EXPECT_RUNTIME !== undefined)('this runtime was recognised as the one .ci/run started', () => {
    const expected = { bun: 'jsc', deno: 'v8' }[process.env.ASSIGNOR_EXPECT_RUNTIME as string] ?? 'v8-node';
    expect(STRING_POLICY.engine).toBe(expected);
  });
});

describe('int32 and int64 batches: plain JS = every engine', () => {
  const int32 = fc.oneof(fc.constantFrom(0, 1, -1, 2147483647, -2147483648), fc.integer({ min: -2147483648, max: 2147483647 }));
  const int64 = fc.oneof(fc.constantFrom(0n, 1n, -1n, (1n << 63n) - 1n, -(1n << 63n), 2147483647n), fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }));

  it('int32', () => {
    fc.assert(
      fc.property(fc.array(int32, { maxLength: 200 }), partitions, (values, n) => {
        const js = Array.from(partitionsForInt32s(values, n));
        for (const engine of ENGINES) expect(Array.from(partitionsForInt32s(values, n, { engine }))).toEqual(js);
        expect(Array.from(partitionsForInt32s(Int32Array.from(values), n))).toEqual(js);
      }),
      RUNS,
    );
  });

  it('int64, from arrays and BigInt64Arrays', () => {
    fc.assert(
      fc.property(fc.array(int64, { maxLength: 200 }), partitions, (values, n) => {
        const js = Array.from(partitionsForInt64s(values, n));
        for (const engine of ENGINES) expect(Array.from(partitionsForInt64s(values, n, { engine }))).toEqual(js);
        expect(Array.from(partitionsForInt64s(BigInt64Array.from(values), n))).toEqual(js);
      }),
      RUNS,
    );
  });

  it('bad values and counts are refused with their path', () => {
    expect(() => partitionsForInt32s([1, 2.5], 3)).toThrow(expect.objectContaining({ code: 'E_RANGE', path: 'values[1]' }));
    expect(() => partitionsForInt32s([1, 2 ** 31], 3)).toThrow(expect.objectContaining({ code: 'E_RANGE', path: 'values[1]' }));
    expect(() => partitionsForInt64s([1n, 1n << 63n], 3)).toThrow(expect.objectContaining({ code: 'E_RANGE', path: 'values[1]' }));
    expect(() => partitionsForInt64s([1 as unknown as bigint], 3)).toThrow(expect.objectContaining({ code: 'E_RANGE', path: 'values[0]' }));
    expect(() => partitionsForInt32s([], 0)).toThrow(expect.objectContaining({ code: 'E_RANGE', path: 'numPartitions' }));
  });
});
