// WASM = reference, both modes, on random clusters (fast-check), plus a
// bigger seeded cluster and a memory-flatness check.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { loadKernels } from '../../src/engine/kernels.js';
import { loadWasmCore } from '../../src/engine/core.js';
import { placeStandbys, type ClusterSpec } from '../../src/standby/index.js';
import { arbCluster, seededCluster } from './generators.js';

const ref = loadKernels({ engine: 'reference' });
const wasm = [loadKernels({ engine: 'wasm-scalar' }), loadKernels({ engine: 'wasm-simd' })];

function same(spec: ClusterSpec, mode: 'kafka' | 'balanced', zeroStandbyGuard = true): void {
  const a = placeStandbys(spec, { mode, engine: 'reference', zeroStandbyGuard });
  for (const k of wasm) {
    const b = placeStandbys(spec, { mode, engine: k.name, zeroStandbyGuard });
    expect(Array.from(b.slots)).toEqual(Array.from(a.slots));
    expect(Array.from(b.masks)).toEqual(Array.from(a.masks));
  }
}

describe('standby kernels: WASM = reference', () => {
  it('balanced mode, random clusters', () => {
    fc.assert(fc.property(arbCluster(), (spec) => same(spec, 'balanced')), { numRuns: 300 });
  });
  it('kafka mode, random clusters', () => {
    fc.assert(fc.property(arbCluster(), (spec) => same(spec, 'kafka')), { numRuns: 300 });
  });
  it('both modes with missing keys, unowned tasks and existing standbys', () => {
    fc.assert(
      fc.property(arbCluster({ missingKeys: true, existing: true }), (spec) => {
        same(spec, 'balanced');
        same(spec, 'kafka');
      }),
      { numRuns: 300 },
    );
  });
  it('kafka mode without the numStandbys = 0 guard (X04)', () => {
    fc.assert(fc.property(arbCluster(), (spec) => same({ ...spec, numStandbys: 0 }, 'kafka', false)), { numRuns: 100 });
  });
  it('capacities past 2^12, where the kernel compares equal load keys exactly, both modes', () => {
    const caps = [1, 3, 4096, 4097, 699051, 1048575, 1048576];
    fc.assert(
      fc.property(arbCluster({ existing: true }), fc.array(fc.integer({ min: 0, max: caps.length - 1 }), { minLength: 64, maxLength: 64 }), (spec, picks) => {
        const wide = { ...spec, clients: spec.clients.map((c, i) => ({ ...c, capacity: caps[picks[i % 64]!]! })) };
        same(wide, 'balanced');
        same(wide, 'kafka');
      }),
      { numRuns: 200 },
    );
  });
  // The Kafka phase's group streams (assembly/standby.ts) rebuild a group's batch every few
  // picks per member: many tasks on few clients, with holders at the front of a batch
  // (existing standbys, unowned tasks for the fallback, no tags at all) and capacities around
  // the streams' limit of 256, where the kernel goes back to its heaps.
  it('many tasks per client (the group streams refill often), both modes', () => {
    const caps = [1, 2, 3, 5, 8, 255, 256, 257];
    fc.assert(
      fc.property(arbCluster({ maxClients: 24, maxTasks: 300, missingKeys: true, existing: true }), fc.array(fc.integer({ min: 0, max: caps.length - 1 }), { minLength: 24, maxLength: 24 }), fc.boolean(), (spec, picks, wide) => {
        const c = wide ? { ...spec, clients: spec.clients.map((cl, i) => ({ ...cl, capacity: caps[picks[i]!]! })) } : spec;
        same(c, 'balanced');
        same(c, 'kafka');
      }),
      { numRuns: 150 },
    );
  });
  it('a seeded cluster of 300 clients and 3,000 tasks, both modes', () => {
    const spec = seededCluster(42, 300, 3000, 2, [3, 3]);
    same(spec, 'balanced');
    same(spec, 'kafka');
  });
  it('kernel memory stays flat over repeated calls', () => {
    // Linear memory itself (not process.memoryUsage()): after the first call of each
    // size it must not grow at all, whichever kernel runs and however often.
    const small = seededCluster(7, 50, 500, 2, [3, 3]);
    const big = seededCluster(8, 200, 1500, 2, [3, 3]);
    for (const engine of ['wasm-scalar', 'wasm-simd'] as const) {
      const core = loadWasmCore(engine === 'wasm-simd');
      // One mode at a time, so that no other kernel's reset hides a missing one.
      for (const mode of ['balanced', 'kafka'] as const) {
        placeStandbys(big, { engine, mode });
        const size = core.memoryBytes();
        for (let i = 0; i < 30; i++) {
          placeStandbys(small, { engine, mode });
          placeStandbys(big, { engine, mode });
        }
        expect(core.memoryBytes(), `${engine} ${mode}`).toBe(size);
      }
    }
  });
  it('raw kernel calls agree on an empty problem', () => {
    const spec: ClusterSpec = { clients: [], numStandbys: 2, tagKeys: [] };
    same(spec, 'balanced');
    same(spec, 'kafka');
  });
});
