// The balancing kernel inside the group planner keeps its promises (on its reference twin; the
// WASM planner equals it, plan-kernel.test.ts): per-topic and per-class balance, owners that
// subscribe, and the fewest (weighted) moves, checked against exhaustive search.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { referenceGroupAssign } from '../../src/engine/reference/group.js';
import type { GroupProblem } from '../../src/engine/abi.js';
import { bruteForceMinMoves, buildProblem, checkOwners, problemSpec } from './group-problems.js';

function empty(members: number): GroupProblem {
  return {
    members,
    rackCount: 0,
    memberRack: new Int32Array(members).fill(-1),
    topicClass: new Int32Array(0),
    topicWeight: new Int32Array(0),
    subStart: new Int32Array(1),
    subs: new Int32Array(0),
    subBase: new Int32Array(0),
    subList: new Int32Array(0),
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
    subBase: new Int32Array(1),
    subList: new Int32Array([0]),
    itemStart: new Int32Array([0, prev.length]),
    prevOwner: Int32Array.from(prev),
    softOwner: Int32Array.from(soft),
    rackStart: new Int32Array(prev.length + 1),
  };
}

describe('group kernel guarantees (reference)', () => {
  it('balanced per topic and per class; owners subscribe', () => {
    fc.assert(
      fc.property(problemSpec(40, 10, 80), (spec) => {
        const p = buildProblem(spec);
        const c = checkOwners(p, referenceGroupAssign(p));
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
        const c = checkOwners(p, referenceGroupAssign(p));
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
      subs: new Int32Array([0, 1]),
      subBase: new Int32Array([0, 0]),
      subList: new Int32Array([0, 0]),
      itemStart: new Int32Array([0, 3, 6]),
      prevOwner: new Int32Array([0, 0, 0, 0, 0, 0]),
      softOwner: new Int32Array(6).fill(-1),
      rackStart: new Int32Array(7),
    };
    const owner = referenceGroupAssign(p);
    expect(checkOwners(p, owner)).toEqual({ ok: true, why: '', moves: 3 });
    // Without the class (topics shared with other subscriptions), only per-topic balance binds: 2 moves.
    const q = { ...p, topicClass: new Int32Array([-1, -1]) };
    expect(checkOwners(q, referenceGroupAssign(q)).moves).toBe(2);
  });

  it('orphans go to their soft owner while it has room', () => {
    // 2 members; items 0..3 owned 0,1,0,1; items 4..7 new, soft owners 0,1,0,1 (a doubling).
    const p = oneTopic(2, [0, 1, 0, 1, -1, -1, -1, -1], [-1, -1, -1, -1, 0, 1, 0, 1]);
    expect(Array.from(referenceGroupAssign(p))).toEqual([0, 1, 0, 1, 0, 1, 0, 1]);
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
    expect(Array.from(referenceGroupAssign(p))).toEqual([2, 1, 0]);
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
    expect(Array.from(referenceGroupAssign(p))).toEqual([1, 1, 0, 0]);
  });
});
