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
  it('a seeded cluster of 120 clients and 600 tasks over a 2 x 3 grid (fallbacks happen)', () => {
    check(seededCluster(5, 120, 600, 3, [2, 3]), 'wasm-simd');
  });
});
