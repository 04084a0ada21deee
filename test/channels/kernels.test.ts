// Differential tests: every WASM build of the channel kernels equals the pure-TS twin.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { engines } from '../helpers.js';
import { STRATEGY_CONTIGUOUS, STRATEGY_ROTATE } from '../../src/engine/abi.js';
import { loadKernels } from '../../src/engine/kernels.js';
import { loadWasmCore } from '../../src/engine/core.js';

/** Byte equality: much faster than a deep toEqual on 100,000-entry arrays. */
function same(a: Int32Array, b: Int32Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

const [ref, ...wasms] = engines();

// n from 0, w from 1, including w > n and large w.
const sizes = fc.oneof(
  fc.record({ n: fc.integer({ min: 0, max: 300 }), w: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ n: fc.integer({ min: 0, max: 5000 }), w: fc.integer({ min: 1, max: 20000 }) }),
  fc.constantFrom({ n: 0, w: 1 }, { n: 1, w: 1 }, { n: 1, w: 100000 }, { n: 100000, w: 1 }, { n: 7, w: 7 }),
);

describe.each(wasms.map((k) => [k.name, k] as const))('channel kernels: %s = reference', (_name, k) => {
  it('channelPlan, both strategies, any start', () => {
    fc.assert(
      fc.property(sizes, fc.constantFrom(STRATEGY_CONTIGUOUS, STRATEGY_ROTATE), fc.nat(), ({ n, w }, s, seed) => {
        const start = seed % w;
        expect(same(k.channelPlan(s, n, w, start), ref!.channelPlan(s, n, w, start))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('channelLayout = channelPlan + channelGroup, in WASM and in the reference', () => {
    fc.assert(
      fc.property(sizes, fc.constantFrom(STRATEGY_CONTIGUOUS, STRATEGY_ROTATE), fc.nat(), ({ n, w }, s, seed) => {
        const start = seed % w;
        const a = k.channelLayout(s, n, w, start);
        const b = ref!.channelLayout(s, n, w, start);
        const channelOf = ref!.channelPlan(s, n, w, start);
        const g = ref!.channelGroup(channelOf, w);
        for (const x of [a, b]) {
          expect(same(x.channelOf, channelOf)).toBe(true);
          expect(same(x.offsets, g.offsets)).toBe(true);
          expect(same(x.members, g.members)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('channelGroup on random channel maps', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3000 }), fc.array(fc.nat(), { maxLength: 2000 }), (w, raw) => {
        const channelOf = Int32Array.from(raw, (x) => x % w);
        const a = k.channelGroup(channelOf, w);
        const b = ref!.channelGroup(channelOf, w);
        expect(a.offsets).toEqual(b.offsets);
        expect(a.members).toEqual(b.members);
      }),
      { numRuns: 200 },
    );
  });

  it('channelValidate on random grouped entries, partitions in and out of range', () => {
    const entries = fc.integer({ min: 1, max: 50 }).chain((w) =>
      fc.record({
        w: fc.constant(w),
        n: fc.integer({ min: 0, max: 200 }),
        lists: fc.array(fc.array(fc.integer({ min: -5, max: 220 }), { maxLength: 12 }), { minLength: w, maxLength: w }),
      }),
    );
    fc.assert(
      fc.property(entries, ({ w, n, lists }) => {
        const start = new Int32Array(w + 1);
        lists.forEach((l, c) => (start[c + 1] = start[c]! + l.length));
        const partitions = Int32Array.from(lists.flat());
        expect(k.channelValidate(start, partitions, n)).toEqual(ref!.channelValidate(start, partitions, n));
      }),
      { numRuns: 300 },
    );
  });

  it('kernel memory stays flat over many calls', () => {
    const core = loadWasmCore(k.name === 'wasm-simd');
    k.channelPlan(STRATEGY_ROTATE, 100000, 77, 3);
    k.channelValidate(Int32Array.of(0, 100000), new Int32Array(100000), 100000);
    const before = core.memoryBytes();
    for (let i = 0; i < 5000; i++) {
      k.channelValidate(Int32Array.of(0, 1000), new Int32Array(1000), 1000);
      k.channelPlan(STRATEGY_CONTIGUOUS, 5000, 13, 0);
    }
    expect(core.memoryBytes()).toBe(before);
  });
});

describe('reference kernels: the document cases', () => {
  const k = loadKernels({ engine: 'reference' });
  it('contiguous 6/3 and 5/3', () => {
    expect(Array.from(k.channelPlan(STRATEGY_CONTIGUOUS, 6, 3, 0))).toEqual([0, 0, 1, 1, 2, 2]);
    expect(Array.from(k.channelPlan(STRATEGY_CONTIGUOUS, 5, 3, 0))).toEqual([0, 0, 1, 1, 2]);
  });
  it('validate marks a partition on two channels with the last one, negated', () => {
    const r = k.channelValidate(Int32Array.of(0, 1, 2, 3), Int32Array.of(0, 0, 0), 2);
    expect(Array.from(r.state)).toEqual([-3, 0]);
    expect(r).toMatchObject({ missing: 1, duplicated: 1, repeats: 0 });
  });
  it('validate counts a within-channel repeat once (4, 4)', () => {
    const r = k.channelValidate(Int32Array.of(0, 2, 4, 6), Int32Array.of(0, 1, 2, 3, 4, 4), 5);
    expect(r).toMatchObject({ outOfRange: 0, missing: 0, duplicated: 0, repeats: 1 });
    expect(Array.from(r.perChannel)).toEqual([2, 2, 1]);
    expect(Array.from(r.state)).toEqual([1, 1, 2, 2, 3]);
  });
});
