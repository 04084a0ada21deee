// The streams spread kernel (streamsSpread): the WASM kernel (scalar and SIMD builds) equals its
// TypeScript twin on random placements, and keeps its promises: no task's tag spread falls below
// where it started, no process leaves the starting range of loads, no process holds two copies of
// a task; and it moves a standby, or swaps two, where that spreads a task more.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { engines } from '../helpers.js';
import type { StreamsSpreadProblem } from '../../src/engine/abi.js';

const [ref, ...wasms] = engines();

const placement = fc.record({
  sizes: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 9 }),
  keys: fc.integer({ min: 1, max: 3 }),
  values: fc.array(fc.integer({ min: -1, max: 2 }), { minLength: 27, maxLength: 27 }),
  width: fc.integer({ min: 1, max: 3 }),
  tasks: fc.integer({ min: 0, max: 30 }),
  picks: fc.array(fc.nat(), { minLength: 200, maxLength: 200 }),
  extra: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 27, maxLength: 27 }),
});

/** A valid starting placement: per task an active member and up to W standbys on other processes, none twice in a process. */
function problemOf(s: typeof placement extends fc.Arbitrary<infer X> ? X : never): StreamsSpreadProblem {
  const P = s.sizes.length;
  const processStart = new Int32Array(P + 1);
  s.sizes.forEach((n, q) => (processStart[q + 1] = processStart[q]! + n));
  const M = processStart[P]!;
  const processOf = (m: number): number => processStart.findLastIndex((x) => x <= m);
  const memberLoad = Int32Array.from({ length: M }, (_, m) => s.extra[m % 27]!);
  const W = Math.min(s.width, P - 1);
  const activeMember = new Int32Array(s.tasks);
  const standbyMember = new Int32Array(s.tasks * Math.max(W, 0)).fill(-1);
  let k = 0;
  const next = (n: number): number => s.picks[k++ % s.picks.length]! % n;
  for (let t = 0; t < s.tasks; t++) {
    activeMember[t] = next(M);
    memberLoad[activeMember[t]!]!++;
    const used = new Set([processOf(activeMember[t]!)]);
    for (let j = 0; j < W; j++) {
      const m = next(M);
      if (used.has(processOf(m)) || next(4) === 0) continue;
      used.add(processOf(m));
      standbyMember[t * W + j] = m;
      memberLoad[m]!++;
    }
  }
  return { processStart, keys: s.keys, processValues: Int32Array.from({ length: P * s.keys }, (_, i) => s.values[i % 27]!), memberLoad, tasks: s.tasks, width: Math.max(W, 0), activeMember, standbyMember };
}

function spreadOf(p: StreamsSpreadProblem, processOf: (m: number) => number, members: number[]): number[] {
  return Array.from({ length: p.keys }, (_, k) => new Set(members.map((m) => p.processValues[processOf(m) * p.keys + k]!).filter((v) => v >= 0)).size);
}

const lexGe = (a: number[], b: number[]): boolean => {
  const k = a.findIndex((v, i) => v !== b[i]);
  return k < 0 || a[k]! > b[k]!;
};

describe('streams spread kernel', () => {
  it('WASM equals the reference; no task spreads less, loads stay in range, a process holds one copy', () => {
    fc.assert(
      fc.property(placement, (s) => {
        const p = problemOf(s);
        if (p.width === 0) return;
        const want = ref!.streamsSpread(p);
        for (const k of wasms) expect(k.streamsSpread(p), k.name).toEqual(want);
        const P = p.processStart.length - 1;
        const processOf = (m: number): number => p.processStart.findLastIndex((x) => x <= m);
        const W = p.width;
        const loadOf = (standby: Int32Array): number[] => {
          const load = new Array<number>(P).fill(0);
          p.memberLoad.forEach((n, m) => (load[processOf(m)]! += n));
          p.standbyMember.forEach((m) => m >= 0 && load[processOf(m)]!--);
          standby.forEach((m) => m >= 0 && load[processOf(m)]!++);
          return load.map((n, q) => n / (p.processStart[q + 1]! - p.processStart[q]!));
        };
        const before = loadOf(p.standbyMember);
        const after = loadOf(want);
        for (const l of after) {
          expect(l).toBeGreaterThanOrEqual(Math.min(...before) - 1e-9);
          expect(l).toBeLessThanOrEqual(Math.max(...before) + 1e-9);
        }
        for (let t = 0; t < p.tasks; t++) {
          const was = [p.activeMember[t]!, ...Array.from(p.standbyMember.subarray(t * W, t * W + W)).filter((m) => m >= 0)];
          const now = [p.activeMember[t]!, ...Array.from(want.subarray(t * W, t * W + W)).filter((m) => m >= 0)];
          expect(now.length).toBe(was.length);
          expect(new Set(now.map(processOf)).size).toBe(now.length);
          expect(lexGe(spreadOf(p, processOf, now), spreadOf(p, processOf, was))).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('moves a standby out of its active zone when a process in another zone has room', () => {
    // Processes 0 and 1 in zone 0, process 2 in zone 1 (one member each); task 0 active on 0 with
    // its standby on 1. Loads 1, 1, 0: the move to 2 keeps both inside [0, 1], so it is taken.
    const p = (load2: number): StreamsSpreadProblem => ({
      processStart: Int32Array.of(0, 1, 2, 3), keys: 1, processValues: Int32Array.of(0, 0, 1), memberLoad: Int32Array.of(1, 1, load2),
      tasks: 1, width: 1, activeMember: Int32Array.of(0), standbyMember: Int32Array.of(1),
    });
    for (const k of [ref!, ...wasms]) expect([...k.streamsSpread(p(0))], k.name).toEqual([2]);
    // Loads 1, 1, 1: process 2 would go above the range and process 1 below it, so nothing moves.
    for (const k of [ref!, ...wasms]) expect([...k.streamsSpread(p(1))], k.name).toEqual([1]);
  });

  it('swaps two standbys when that spreads one task and costs the other nothing', () => {
    // Zones: process 0 z0, 1 z0, 2 z1, 3 z1. Task 0: active on 0, standby on 1 (both z0). Task 1:
    // active on 3, standby on 2 (both z1). Every load is 1, so the range is [1, 1] and no move fits; swapping the two
    // standbys puts each task in both zones.
    const p: StreamsSpreadProblem = {
      processStart: Int32Array.of(0, 1, 2, 3, 4), keys: 1, processValues: Int32Array.of(0, 0, 1, 1), memberLoad: Int32Array.of(1, 1, 1, 1),
      tasks: 2, width: 1, activeMember: Int32Array.of(0, 3), standbyMember: Int32Array.of(1, 2),
    };
    for (const k of [ref!, ...wasms]) expect([...k.streamsSpread(p)], k.name).toEqual([2, 1]);
  });
});
