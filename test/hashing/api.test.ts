// The API's boundary: bad input gets a clear AssignorError, never a wrong answer.
import { describe, expect, it } from 'vitest';
import { AssignorError } from '../../src/errors.js';
import { loadKernels, rereadEngineSetting } from '../../src/engine/kernels.js';
import { partitionForKey, partitionsForFixed, partitionsForInt32s, partitionsForInt64s, partitionsForKeys, partitionsForPacked, partitionForInt32, partitionForInt64 } from '../../src/hashing/index.js';
import { decodeKey } from '../../src/hashing/key-encoding.js';

function code(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(AssignorError);
    return (e as AssignorError).code;
  }
  throw new Error('expected an AssignorError');
}

describe('numPartitions must be an integer in [1, 2^31-1]', () => {
  for (const bad of [0, -1, 1.5, 2147483648, Number.NaN, Infinity, '12' as unknown as number]) {
    it(`rejects ${String(bad)}`, () => {
      expect(code(() => partitionForKey('k', bad))).toBe('E_RANGE');
      expect(code(() => partitionsForKeys(['k'], bad))).toBe('E_RANGE');
    });
  }
  it('names the problem', () => {
    expect(() => partitionForKey('k', 0)).toThrow('numPartitions must be an integer in [1, 2147483647], got 0');
  });
});

describe('key validation', () => {
  it('rejects keys that are neither string, bytes nor null', () => {
    expect(code(() => partitionsForKeys(['a', 5 as unknown as string], 3))).toBe('E_KEY_TYPE');
    expect(() => partitionsForKeys(['a', 5 as unknown as string], 3)).toThrow(/keys\[1\]|number/);
  });
  it('rejects malformed packed offsets', () => {
    expect(code(() => partitionsForPacked(new Uint8Array(4), Int32Array.of(0, 3, 2), 3))).toBe('E_PACKED');
    expect(code(() => partitionsForPacked(new Uint8Array(4), Int32Array.of(0, 5), 3))).toBe('E_PACKED');
    expect(code(() => partitionsForPacked(new Uint8Array(4), Int32Array.of(-1, 2), 3))).toBe('E_PACKED');
    expect(code(() => partitionsForPacked(new Uint8Array(4), new Int32Array(0), 3))).toBe('E_PACKED');
    expect(code(() => partitionsForFixed(new Uint8Array(5), 4, 3))).toBe('E_PACKED');
  });
  it('rejects out-of-range int keys', () => {
    expect(code(() => partitionForInt32(2 ** 31, 3))).toBe('E_RANGE');
    expect(code(() => partitionForInt64(1n << 63n, 3))).toBe('E_RANGE');
    expect(code(() => partitionsForInt32s([1, 2.5], 3))).toBe('E_RANGE');
    expect(code(() => partitionsForInt64s([1n, -(1n << 63n) - 1n], 3))).toBe('E_RANGE');
  });
  it('decodes textual keys strictly', () => {
    expect(code(() => decodeKey('abc', 'hex', 'line 3'))).toBe('E_KEY_HEX');
    expect(code(() => decodeKey('zz', 'hex', 'line 3'))).toBe('E_KEY_HEX');
    expect(code(() => decodeKey('a b', 'base64', 'line 3'))).toBe('E_KEY_BASE64');
    expect(code(() => decodeKey('2147483648', 'int32', 'line 3'))).toBe('E_KEY_INT32');
    expect(code(() => decodeKey('1e3', 'int32', 'line 3'))).toBe('E_KEY_INT32');
    expect(code(() => decodeKey('9223372036854775808', 'int64', 'line 3'))).toBe('E_KEY_INT64');
    expect(Array.from(decodeKey('-1', 'int64', 'x'))).toEqual([255, 255, 255, 255, 255, 255, 255, 255]);
    expect(Array.from(decodeKey('AQID', 'base64', 'x'))).toEqual([1, 2, 3]);
    expect(Array.from(decodeKey('0aff', 'hex', 'x'))).toEqual([10, 255]);
  });
  it('agrees between batch int forms and single forms', () => {
    const ints = [0, 1, -1, 2147483647, -2147483648, 123456];
    expect(Array.from(partitionsForInt32s(ints, 97))).toEqual(ints.map((v) => partitionForInt32(v, 97)));
    const longs = [0n, -1n, (1n << 63n) - 1n, -(1n << 63n), 42n];
    expect(Array.from(partitionsForInt64s(longs, 97))).toEqual(longs.map((v) => partitionForInt64(v, 97)));
  });
});

describe('engine selection', () => {
  it('rejects unknown engines by option and by ASSIGNOR_ENGINE', () => {
    expect(code(() => loadKernels({ engine: 'gpu' as never }))).toBe('E_ENGINE');
    const before = process.env.ASSIGNOR_ENGINE;
    process.env.ASSIGNOR_ENGINE = 'fast';
    rereadEngineSetting();
    try {
      expect(() => loadKernels()).toThrow(/ASSIGNOR_ENGINE/);
      process.env.ASSIGNOR_ENGINE = 'reference';
      rereadEngineSetting();
      expect(loadKernels().name).toBe('reference');
    } finally {
      if (before === undefined) delete process.env.ASSIGNOR_ENGINE;
      else process.env.ASSIGNOR_ENGINE = before;
      rereadEngineSetting();
    }
  });
  it('defaults to WASM with SIMD on this runtime', () => {
    expect(loadKernels({ engine: 'wasm' }).name).toBe('wasm-simd');
  });
});
