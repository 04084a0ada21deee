// The base mapper's fold runs in the WASM kernel; its reference twin must agree on large inputs,
// and whole plans must not depend on the engine.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldPartitions } from '../../src/expansion/index.js';
import { calculateJobModel, emptyPrevious } from '../../src/samza/plan.js';
import { jobModelJson } from '../../src/samza/job-model.js';
import { SamzaConfig } from '../../src/samza/config.js';
import { after, STATEFUL } from './helpers.js';

function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0);
}

describe('fold kernel: WASM equals the reference twin', () => {
  it('on 2 million random (stream, partition) pairs over 1,000 random base counts', () => {
    const next = lcg(42);
    const bases = new Int32Array(1000).map(() => 1 + (next() % 100_000));
    const n = 2_000_000;
    const streams = new Int32Array(n).map(() => next() % 1000);
    const partitions = new Int32Array(n).map(() => next() & 0x7fffffff);
    const ref = foldPartitions(streams, partitions, bases, { engine: 'reference' });
    for (const engine of ['wasm-scalar', 'wasm-simd'] as const) {
      const got = foldPartitions(streams, partitions, bases, { engine });
      expect(got.length).toBe(n);
      // A plain loop: deep equality on 2 million elements is slow in the assertion library.
      let firstDiff = -1;
      for (let i = 0; i < n && firstDiff < 0; i++) if (got[i] !== ref[i]) firstDiff = i;
      expect(firstDiff).toBe(-1);
    }
  });

  it('on random small inputs including the extremes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 2147483647 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 2147483647 })), { maxLength: 200 }),
        (b, pairs) => {
          const bases = Int32Array.from(b);
          const streams = Int32Array.from(pairs.map(([s]) => s % b.length));
          const partitions = Int32Array.from(pairs.map(([, p]) => p));
          const ref = foldPartitions(streams, partitions, bases, { engine: 'reference' });
          expect(foldPartitions(streams, partitions, bases, { engine: 'wasm' })).toEqual(ref);
        },
      ),
    );
  });
});

describe('plans do not depend on the engine', () => {
  it('a 2x expansion of 200 streams (400,000 SSPs) gives the same JobModel on every engine', () => {
    const names = Array.from({ length: 200 }, (_, i) => `kafka.s${i}`);
    const cfg = new SamzaConfig(Object.entries({ ...STATEFUL, 'task.inputs': names.join(','), 'job.container.count': '8' }));
    const counts = (k: number) => new Map(names.map((n, i) => [n, k * (500 + (i % 3) * 250)] as [string, number]));
    const prev = after(calculateJobModel({ config: cfg, partitionCounts: counts(1) }, emptyPrevious(), { engine: 'reference' }));
    const ref = jobModelJson(calculateJobModel({ config: cfg, partitionCounts: counts(2) }, prev, { engine: 'reference' }));
    for (const engine of ['wasm-scalar', 'wasm-simd'] as const) {
      expect(jobModelJson(calculateJobModel({ config: cfg, partitionCounts: counts(2) }, prev, { engine })) === ref).toBe(true);
    }
  });
});
