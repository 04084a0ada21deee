// Kafka mode (flat scan kernels) = a literal model of Kafka's PriorityQueue-based
// assignors (test/standby/kafka-literal.ts) on random clusters. This checks the
// claim the kernels rest on: with the heap kept consistent, every poll returns
// the least-loaded qualifying client (ties: smallest ProcessId).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { normalizeCluster, placeCluster } from '../../src/standby/index.js';
import { kafkaLiteral } from './kafka-literal.js';
import { arbCluster, seededCluster } from './generators.js';

function check(spec: unknown, engine: 'reference' | 'wasm-simd', zeroGuard = true): void {
  const cluster = normalizeCluster(spec);
  const pl = placeCluster(cluster, 'kafka', { engine, zeroStandbyGuard: zeroGuard });
  const got = cluster.tasks.map((_, t) => Array.from(pl.slots.subarray(t * pl.width, (t + 1) * pl.width)).filter((c) => c >= 0));
  expect(got).toEqual(kafkaLiteral(cluster, zeroGuard));
}

describe('kafka mode = literal PriorityQueue model', () => {
  it.each(['reference', 'wasm-simd'] as const)('random clusters (%s)', (engine) => {
    fc.assert(fc.property(arbCluster({ missingKeys: true, existing: true }), (spec) => check(spec, engine)), { numRuns: 300 });
  });
  it('without the zero guard (X04)', () => {
    fc.assert(fc.property(arbCluster({ missingKeys: true }), (spec) => check({ ...spec, numStandbys: 0 }, 'reference', false)), { numRuns: 100 });
  });
  it('the report blames the fallback (X01) only for standbys the fallback placed, the filter (X02) only for the others', () => {
    let x01 = 0;
    let x02 = 0;
    const spec = seededCluster(5, 120, 600, 3, [2, 3]);
    const check2 = (s: unknown): void => {
      const cluster = normalizeCluster(s);
      const phase: number[] = [];
      kafkaLiteral(cluster, true, phase);
      const r = placeCluster(cluster, 'kafka', { engine: 'reference' }).report();
      r.tasks.forEach((task, t) => {
        task.standbys.forEach((sb, j) => {
          const inPhase = j < (phase[t] ?? 0);
          if (sb.why?.includes('(quirk X01)')) {
            x01++;
            expect(inPhase).toBe(false);
          }
          if (sb.why?.includes('(quirk X02)')) {
            x02++;
            expect(inPhase).toBe(true);
          }
        });
      });
    };
    fc.assert(fc.property(arbCluster({ missingKeys: true, existing: true }), check2), { numRuns: 300 });
    check2(spec);
    expect(x01).toBeGreaterThan(0);
    expect(x02).toBeGreaterThan(0);
  });
  it('a seeded cluster of 120 clients and 600 tasks over a 2 x 3 grid (fallbacks happen)', () => {
    check(seededCluster(5, 120, 600, 3, [2, 3]), 'wasm-simd');
  });
});
