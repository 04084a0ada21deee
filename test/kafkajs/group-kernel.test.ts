// The group-balancing kernel: WASM (scalar and SIMD builds) equals the TypeScript reference on
// random problems, and the reference keeps its promises: per-topic and per-class balance, owners
// that subscribe, and the fewest (weighted) moves, checked against exhaustive search.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { engines } from '../helpers.js';
import { getKernels } from '../../src/engine/kernels.js';
import { loadWasmCore } from '../../src/engine/core.js';
import type { GroupProblem } from '../../src/engine/abi.js';
import { bruteForceMinMoves, buildProblem, checkOwners, problemSpec } from './group-problems.js';

function same(a: Int32Array, b: Int32Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

const [ref, ...wasms] = engines();

function empty(members: number): GroupProblem {
  return {
    members,
    rackCount: 0,
    memberRack: new Int32Array(members).fill(-1),
    topicClass: new Int32Array(0),
    topicWeight: new Int32Array(0),
    subStart: new Int32Array(1),
    subs: new Int32Array(0),
    itemStart: new Int32Array(1),
    prevOwner: new Int32Array(0),
    softOwner: new Int32Array(0),
    rackStart: new Int32Array(1),
    racks: new Int32Array(0),
  };
}

/** One topic of n items, all members subscribed, one class. */
function oneTopic(members: number, prev: number[], soft: number[] = prev.map(() => -1)): GroupProblem {
  return {
    ...empty(members),
    topicClass: new Int32Array([0]),
    topicWeight: new Int32Array([1]),
    subStart: new Int32Array([0, members]),
    subs: Int32Array.from({ length: members }, (_, m) => m),
    itemStart: new Int32Array([0, prev.length]),
    prevOwner: Int32Array.from(prev),
    softOwner: Int32Array.from(soft),
    rackStart: new Int32Array(prev.length + 1),
  };
}

describe.each(wasms.map((k) => [k.name, k] as const))('group kernel: %s = reference', (_name, k) => {
  it('small random problems (classes, racks, soft owners, weights, stray owners)', () => {
    fc.assert(
      fc.property(problemSpec(12, 6, 30), (spec) => {
        const p = buildProblem(spec);
        expect(same(k.groupAssign(p), ref!.groupAssign(p))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('larger random problems', () => {
    fc.assert(
      fc.property(problemSpec(80, 25, 200), (spec) => {
        const p = buildProblem(spec);
        expect(same(k.groupAssign(p), ref!.groupAssign(p))).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('an empty softOwner means no soft owners; without racks, rack arrays may be empty', () => {
    fc.assert(
      fc.property(problemSpec(12, 6, 30), (spec) => {
        const p = buildProblem(spec);
        const none = { ...p, softOwner: new Int32Array(0) };
        const minusOne = { ...p, softOwner: new Int32Array(p.prevOwner.length).fill(-1) };
        expect(same(k.groupAssign(none), ref!.groupAssign(minusOne))).toBe(true);
        expect(same(ref!.groupAssign(none), ref!.groupAssign(minusOne))).toBe(true);
        const noRacks = { ...p, rackCount: 0, memberRack: new Int32Array(p.members).fill(-1), rackStart: new Int32Array(0), racks: new Int32Array(0) };
        const zeroRacks = { ...noRacks, rackStart: new Int32Array(p.prevOwner.length + 1) };
        expect(same(k.groupAssign(noRacks), ref!.groupAssign(zeroRacks))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('edge cases: nothing at all, no subscribers, one member, one item', () => {
    for (const p of [empty(0), empty(3), oneTopic(1, [0, -1, 0]), oneTopic(3, [2]), oneTopic(3, []), { ...oneTopic(2, [0, 1]), subStart: new Int32Array([0, 0]), subs: new Int32Array(0) }]) {
      expect(same(k.groupAssign(p), ref!.groupAssign(p))).toBe(true);
    }
  });

  it('memory stays flat over many calls', () => {
    const core = loadWasmCore(k.name === 'wasm-simd');
    const p = buildProblem(fc.sample(problemSpec(60, 20, 100), { numRuns: 1, seed: 7 })[0]!);
    k.groupAssign(p);
    const before = core.memoryBytes();
    for (let i = 0; i < 2000; i++) k.groupAssign(p);
    expect(core.memoryBytes()).toBe(before);
  });
});

describe('group kernel guarantees (reference)', () => {
  it('balanced per topic and per class; owners subscribe', () => {
    fc.assert(
      fc.property(problemSpec(40, 10, 80), (spec) => {
        const p = buildProblem(spec);
        const c = checkOwners(p, ref!.groupAssign(p));
        expect(c.why).toBe('');
      }),
      { numRuns: 300 },
    );
  });

  it('moves the fewest items that any balanced assignment must move (exhaustive search on tiny problems)', () => {
    fc.assert(
      fc.property(problemSpec(3, 3, 3), (spec) => {
        const p = buildProblem(spec);
        if (p.prevOwner.length > 8) return;
        const c = checkOwners(p, ref!.groupAssign(p));
        expect(c.why).toBe('');
        expect(c.moves).toBe(bruteForceMinMoves(p));
      }),
      { numRuns: 400 },
    );
  });

  it('balance comes before totals only where a topic is shared by different subscriptions', () => {
    // A and B subscribe t0,t1; A alone held all 6 partitions. Totals must be 3/3: 3 moves, not 2.
    const p: GroupProblem = {
      ...empty(2),
      topicClass: new Int32Array([0, 0]),
      topicWeight: new Int32Array([1, 1]),
      subStart: new Int32Array([0, 2, 4]),
      subs: new Int32Array([0, 1, 0, 1]),
      itemStart: new Int32Array([0, 3, 6]),
      prevOwner: new Int32Array([0, 0, 0, 0, 0, 0]),
      softOwner: new Int32Array(6).fill(-1),
      rackStart: new Int32Array(7),
    };
    const owner = ref!.groupAssign(p);
    expect(checkOwners(p, owner)).toEqual({ ok: true, why: '', moves: 3 });
    // Without the class (topics shared with other subscriptions), only per-topic balance binds: 2 moves.
    const q = { ...p, topicClass: new Int32Array([-1, -1]) };
    expect(checkOwners(q, ref!.groupAssign(q)).moves).toBe(2);
  });

  it('orphans go to their soft owner while it has room', () => {
    // 2 members; items 0..3 owned 0,1,0,1; items 4..7 new, soft owners 0,1,0,1 (a doubling).
    const p = oneTopic(2, [0, 1, 0, 1, -1, -1, -1, -1], [-1, -1, -1, -1, 0, 1, 0, 1]);
    expect(Array.from(ref!.groupAssign(p))).toEqual([0, 1, 0, 1, 0, 1, 0, 1]);
  });

  it('free items prefer a member in one of their replica racks, scarcest items first', () => {
    // 3 members in racks 0, 1, 2; 3 new items with replicas in racks {2}, {1, 2}, {0, 1, 2}.
    const p: GroupProblem = {
      ...oneTopic(3, [-1, -1, -1]),
      rackCount: 3,
      memberRack: new Int32Array([0, 1, 2]),
      rackStart: new Int32Array([0, 1, 3, 6]),
      racks: new Int32Array([2, 1, 2, 0, 1, 2]),
    };
    expect(Array.from(ref!.groupAssign(p))).toEqual([2, 1, 0]);
  });

  it('a member over its quota sheds items outside its rack first', () => {
    // Member 0 (rack 0) held items 0..3; items 2 and 3 have a replica in rack 0. Member 1 joins.
    const p: GroupProblem = {
      ...oneTopic(2, [0, 0, 0, 0]),
      rackCount: 2,
      memberRack: new Int32Array([0, 1]),
      rackStart: new Int32Array([0, 1, 2, 3, 4]),
      racks: new Int32Array([1, 1, 0, 0]),
    };
    expect(Array.from(ref!.groupAssign(p))).toEqual([1, 1, 0, 0]);
  });

  it('WASM and reference throw nothing on a million items', () => {
    const members = 1000;
    const p = oneTopic(members, Array.from({ length: 1_000_000 }, (_, i) => (i * 7) % members));
    const owner = getKernels({ engine: 'wasm' }).groupAssign(p);
    expect(checkOwners(p, owner).moves).toBe(0);
  });
});
