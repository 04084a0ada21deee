// The single-key path (plain JS, no WASM) equals the reference murmur2 over
// Java's bytes, on random strings with astral characters and unpaired
// surrogates, on ASCII keys of every tail length, and on int32/int64 keys.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { murmur2Ref } from '../../src/engine/reference/hash.js';
import { int32Bytes, int64Bytes, javaUtf8Bytes, murmur2, partitionForBytes, partitionForInt32, partitionForInt64, partitionForKey, partitionForString } from '../../src/hashing/index.js';
import { murmur2OfBytes, murmur2OfInt32, murmur2OfInt64, murmur2OfString } from '../../src/hashing/single-key.js';
import { AssignorError } from '../../src/errors.js';

const whatwg = new TextEncoder();
const part = (h: number, n: number) => (h & 0x7fffffff) % n;
const partitionCount = fc.oneof(fc.constantFrom(1, 2, 12, 1000, 2147483647), fc.integer({ min: 1, max: 2147483647 }));
const anyString = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('a', 'é', '\u0100', '\u07ff', '\u0800', '\uffff', '\ud800', '\udbff', '\udc00', '\udfff', '😀'), maxLength: 12 }),
);

describe('single keys in plain JS = reference murmur2 of the serialized bytes', () => {
  it('random strings, Java encoding (unpaired surrogates as ?)', () => {
    fc.assert(
      fc.property(anyString, partitionCount, (s, n) => {
        const want = murmur2Ref(javaUtf8Bytes(s));
        expect(murmur2OfString(s)).toBe(want);
        expect(partitionForString(s, n)).toBe(part(want, n));
        expect(partitionForKey(s, n)).toBe(part(want, n));
        expect(partitionForKey(s, n, { engine: 'wasm-simd' })).toBe(part(want, n));
      }),
      { numRuns: 1000 },
    );
  });

  it('random strings, WHATWG encoding (unpaired surrogates as U+FFFD, as KafkaJS hashes them)', () => {
    fc.assert(
      fc.property(anyString, partitionCount, (s, n) => {
        const want = murmur2Ref(whatwg.encode(s));
        expect(murmur2OfString(s, 'whatwg')).toBe(want);
        expect(partitionForString(s, n, 'whatwg')).toBe(part(want, n));
      }),
      { numRuns: 500 },
    );
  });

  it('ASCII keys of length 0..70 and a non-ASCII unit at every position of the block and the tail', () => {
    for (let len = 0; len <= 70; len++) {
      const ascii = Array.from({ length: len }, (_, i) => String.fromCharCode(32 + ((i * 7 + len) % 95))).join('');
      expect(murmur2OfString(ascii)).toBe(murmur2Ref(javaUtf8Bytes(ascii)));
      for (let at = 0; at < len; at++) {
        for (const u of ['\u0080', '\u00ff', '\u0100', '\ud800']) {
          const s = ascii.slice(0, at) + u + ascii.slice(at + 1);
          expect(murmur2OfString(s)).toBe(murmur2Ref(javaUtf8Bytes(s)));
        }
      }
    }
  });

  it('a long non-ASCII key after short ones (the reused buffer grows)', () => {
    for (const s of ['é', 'ж'.repeat(5000), '🙂'.repeat(3000) + '\ud800', 'ab']) {
      expect(murmur2OfString(s)).toBe(murmur2Ref(javaUtf8Bytes(s)));
    }
  });

  it('key boundaries inside one string do not exist: a high surrogate ending a key is ?', () => {
    expect(murmur2OfString('a\ud83d')).toBe(murmur2Ref(Uint8Array.of(0x61, 0x3f)));
    expect(murmur2OfString('\ude00b')).toBe(murmur2Ref(Uint8Array.of(0x3f, 0x62)));
    expect(murmur2OfString('\ud83d\ude00')).toBe(murmur2Ref(Uint8Array.of(0xf0, 0x9f, 0x98, 0x80)));
  });

  it('byte keys, including a subarray of a larger buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), fc.nat(8), partitionCount, (bytes, skip, n) => {
        const big = new Uint8Array(bytes.length + skip + 3);
        big.set(bytes, skip);
        const view = big.subarray(skip, skip + bytes.length);
        const want = murmur2Ref(bytes);
        expect(murmur2OfBytes(view)).toBe(want);
        expect(murmur2OfBytes(big, skip, bytes.length)).toBe(want);
        expect(partitionForBytes(Buffer.from(bytes), n)).toBe(part(want, n));
        expect(murmur2(bytes)).toBe(want);
      }),
      { numRuns: 500 },
    );
  });

  it('int32 and int64 keys equal the serializers\' big-endian bytes', () => {
    fc.assert(
      fc.property(fc.integer({ min: -2147483648, max: 2147483647 }), fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), partitionCount, (i, l, n) => {
        expect(murmur2OfInt32(i)).toBe(murmur2Ref(int32Bytes(i)));
        expect(murmur2OfInt64(l)).toBe(murmur2Ref(int64Bytes(l)));
        expect(partitionForInt32(i, n)).toBe(part(murmur2Ref(int32Bytes(i)), n));
        expect(partitionForInt64(l, n)).toBe(part(murmur2Ref(int64Bytes(l)), n));
      }),
      { numRuns: 500 },
    );
    for (const i of [0, 1, -1, 2147483647, -2147483648]) expect(murmur2OfInt32(i)).toBe(murmur2Ref(int32Bytes(i)));
    for (const l of [0n, 1n, -1n, (1n << 63n) - 1n, -(1n << 63n), 2147483647n]) expect(murmur2OfInt64(l)).toBe(murmur2Ref(int64Bytes(l)));
  });
});

describe('single-key input checks', () => {
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(AssignorError);
      return (e as AssignorError).code;
    }
    return 'no error';
  };
  it('rejects partition counts outside [1, 2^31-1] and non-integers, also for null keys', () => {
    for (const bad of [0, -1, 1.5, 2147483648, Number.NaN, '3' as unknown as number]) {
      expect(code(() => partitionForString('k', bad))).toBe('E_RANGE');
      expect(code(() => partitionForBytes(new Uint8Array(1), bad))).toBe('E_RANGE');
      expect(code(() => partitionForKey(null, bad))).toBe('E_RANGE');
      expect(code(() => partitionForInt32(1, bad))).toBe('E_RANGE');
    }
  });
  it('rejects keys of the wrong type', () => {
    expect(code(() => partitionForString(5 as unknown as string, 3))).toBe('E_KEY_TYPE');
    expect(code(() => partitionForBytes('k' as unknown as Uint8Array, 3))).toBe('E_KEY_TYPE');
    expect(code(() => partitionForKey(5 as unknown as string, 3))).toBe('E_KEY_TYPE');
    expect(code(() => murmur2({} as unknown as string))).toBe('E_KEY_TYPE');
  });
  it('gives a null key no partition', () => {
    expect(partitionForKey(null, 12)).toBe(-1);
    expect(partitionForKey(undefined, 12)).toBe(-1);
  });
});
