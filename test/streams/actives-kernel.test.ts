// The streams actives kernel (streamsActives): the WASM kernel (scalar and SIMD builds) equals its
// TypeScript twin on random groups (processes of several members, claims that overlap or name
// nothing, warm candidates with equal and extreme offsets), and the answer keeps its promises:
// every task placed, every member at floor(T/M) or ceil(T/M), no quota choice keeps more tasks
// in their previous owner's process.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { engines } from '../helpers.js';
import type { StreamsActivesProblem } from '../../src/engine/abi.js';

const [ref, ...wasms] = engines();

const OFFSETS = [0n, 1n, 100n, 2n ** 31n - 1n, 2n ** 62n, -1n];

const groupSpec = fc.record({
  sizes: fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 8 }),
  tasks: fc.integer({ min: 0, max: 40 }),
  claims: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 60 }),
  warm: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean(), fc.constantFrom(...OFFSETS)), { maxLength: 40 }),
});

type Spec = typeof groupSpec extends fc.Arbitrary<infer S> ? S : never;

/** The flat problem of a spec: claims as (member, task), warm candidates as (task, member, standby, offset). */
function problemOf(s: Spec): StreamsActivesProblem {
  const processStart = new Int32Array(s.sizes.length + 1);
  s.sizes.forEach((n, q) => (processStart[q + 1] = processStart[q]! + n));
  const M = processStart[s.sizes.length]!;
  const T = s.tasks;
  const mine: number[][] = Array.from({ length: M }, () => []);
  if (M > 0 && T > 0) for (const [m, t] of s.claims) mine[m % M]!.push(t % T);
  const claimStart = new Int32Array(M + 1);
  mine.forEach((l, m) => (claimStart[m + 1] = claimStart[m]! + l.length));
  const warm: [number, number, number, bigint][][] = Array.from({ length: T }, () => []);
  if (M > 0 && T > 0) {
    for (const [t, m, sb, o] of s.warm) if (!warm[t % T]!.some((w) => w[0] === m % M)) warm[t % T]!.push([m % M, sb ? 1 : 0, 0, o]);
  }
  const warmStart = new Int32Array(T + 1);
  warm.forEach((l, t) => (warmStart[t + 1] = warmStart[t]! + l.length));
  const flat = warm.flat();
  return {
    processStart, tasks: T, claimStart, claims: Int32Array.from(mine.flat()), warmStart,
    warmMember: Int32Array.from(flat, (w) => w[0]), warmStandby: Int32Array.from(flat, (w) => w[1]), warmOffset: BigInt64Array.from(flat, (w) => w[3]),
  };
}

/** Per task the first claimant (in member order), -1. */
function previous(p: StreamsActivesProblem): Int32Array {
  const prev = new Int32Array(p.tasks).fill(-1);
  for (let m = 0; m < p.claimStart.length - 1; m++) for (let k = p.claimStart[m]!; k < p.claimStart[m + 1]!; k++) if (prev[p.claims[k]!]! < 0) prev[p.claims[k]!] = m;
  return prev;
}

/** Most tasks any floor/ceil quota choice lets stay in their previous owner's process. */
function bestKeptInProcess(p: StreamsActivesProblem): number {
  const P = p.processStart.length - 1;
  const M = p.processStart[P]!;
  const base = Math.floor(p.tasks / M);
  const processOf = (m: number): number => p.processStart.findLastIndex((s) => s <= m);
  const held = new Array<number>(P).fill(0);
  for (const m of previous(p)) if (m >= 0) held[processOf(m)]!++;
  let kept = 0;
  let extra = 0;
  held.forEach((h, q) => {
    const size = p.processStart[q + 1]! - p.processStart[q]!;
    kept += Math.min(h, size * base);
    extra += Math.max(0, Math.min(h - size * base, size));
  });
  return kept + Math.min(extra, p.tasks % M);
}

describe('streams actives kernel', () => {
  it('WASM equals the reference, and the answer is balanced and keeps the most', () => {
    fc.assert(
      fc.property(groupSpec, (s) => {
        const p = problemOf(s);
        const want = ref!.streamsActives(p);
        for (const k of wasms) expect(k.streamsActives(p), k.name).toEqual(want);
        const M = p.processStart[p.processStart.length - 1]!;
        if (M === 0) {
          expect([...want].every((o) => o === -1)).toBe(true);
          return;
        }
        const count = new Array<number>(M).fill(0);
        for (const o of want) count[o]!++;
        const base = Math.floor(p.tasks / M);
        expect(count.every((c) => c === base || c === base + 1)).toBe(true);
        const prev = previous(p);
        const processOf = (m: number): number => p.processStart.findLastIndex((s) => s <= m);
        expect(want.filter((o, t) => prev[t]! >= 0 && processOf(o) === processOf(prev[t]!)).length).toBe(bestKeptInProcess(p));
      }),
      { numRuns: 400 },
    );
  });

  it('answers the same on a group large enough to grow the kernel memory (300,000 tasks, 3,000 members)', () => {
    const M = 3000;
    const T = 300_000;
    const processStart = Int32Array.from({ length: M / 3 + 1 }, (_, q) => 3 * q);
    const claims = Int32Array.from({ length: T / 2 }, (_, i) => (i * 7919) % T);
    const claimStart = Int32Array.from({ length: M + 1 }, (_, m) => Math.min(claims.length, m * 60));
    const p: StreamsActivesProblem = { processStart, tasks: T, claimStart, claims, warmStart: new Int32Array(T + 1), warmMember: new Int32Array(0), warmStandby: new Int32Array(0), warmOffset: new BigInt64Array(0) };
    const want = ref!.streamsActives(p);
    for (const k of wasms) expect(k.streamsActives(p), k.name).toEqual(want);
  });

  it('keeps a task in its previous process when its owner is gone, before any warm member', () => {
    // Process 0 has members 0 and 1, process 1 has member 2. Member 0 claims tasks 0..3 (over its
    // quota of 2 with 6 tasks and 3 members); member 2 is warm for task 3 (a previous standby).
    const p: StreamsActivesProblem = {
      processStart: Int32Array.of(0, 2, 3), tasks: 6, claimStart: Int32Array.of(0, 4, 4, 4), claims: Int32Array.of(0, 1, 2, 3),
      warmStart: Int32Array.of(0, 0, 0, 0, 1, 1, 1), warmMember: Int32Array.of(2), warmStandby: Int32Array.of(1), warmOffset: BigInt64Array.of(5n),
    };
    for (const k of [ref!, ...wasms]) expect([...k.streamsActives(p)], k.name).toEqual([0, 0, 1, 1, 2, 2]);
  });
});
