// Issue 13, item 1: `channels rewidth`. What changes channel when the width
// changes, which keys follow, and the widths that move nothing or the least.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { expandPlan, planChannels, planToJson, rewidthPlan, channelPartitions, type ChannelPlan } from '../../src/channels/index.js';
import { STRATEGIES } from '../../src/channels/plan.js';
import { stickyLayout } from '../../src/channels/rewidth.js';
import { partitionsForKeys } from '../../src/hashing/partitioner.js';
import { caught } from '../helpers.js';

const lists = (plan: ChannelPlan): number[][] => Array.from({ length: plan.width }, (_, c) => Array.from(channelPartitions(plan, c)));
const moves = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let m = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) m++;
  return m;
};

describe('channels rewidth', () => {
  it('contiguous 12 partitions, width 4 -> 5: partitions 8, 10 and 11 move, a quarter of the keys', () => {
    const r = rewidthPlan(planToJson(planChannels({ partitions: 12, width: 4, topic: 'orders' })), 5);
    expect(lists(r.plan)).toEqual([[0, 1, 2], [3, 4, 5], [6, 7], [8, 9], [10, 11]]);
    expect(Array.from(r.moved.partitions)).toEqual([8, 10, 11]);
    expect(Array.from(r.moved.from)).toEqual([2, 3, 3]);
    expect(Array.from(r.moved.to)).toEqual([3, 4, 4]);
    expect(r.keysChangingChannel).toBe(0.25);
    expect(r.checked).toEqual({ count: 11, all: true, lowest: 1, highest: 12 });
    expect(r.proposals[0]).toEqual({ width: 5, partitionsChangingChannel: 3, keysChangingChannel: 0.25 });
    expect(r.summary).toMatch(/deploy the SPL for width 5/);
  });

  it('the new plan is the strategy at the new width; moves, keys and proposals agree with brute force', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 70 }),
        fc.constantFrom(...STRATEGIES),
        fc.array(fc.string({ maxLength: 8 }), { minLength: 20, maxLength: 80 }),
        (n, w, w2, strategy, keys) => {
          const before = planChannels({ partitions: n, width: w, strategy, topic: 'clicks' });
          const r = rewidthPlan(before, w2);
          const want = planChannels({ partitions: n, width: w2, strategy, topic: 'clicks' });
          expect(Array.from(r.plan.channelOf)).toEqual(Array.from(want.channelOf));
          expect(r.plan.startIndex).toBe(want.startIndex);
          const moved = moves(before.channelOf, want.channelOf);
          expect(r.moved.partitions.length).toBe(moved);
          expect(r.keysChangingChannel).toBeCloseTo(moved / n, 12);
          // A key changes channel exactly when its partition is one of the moved.
          const movedSet = new Set(r.moved.partitions);
          for (const p of partitionsForKeys(keys, n)) expect(before.channelOf[p] !== r.plan.channelOf[p]).toBe(movedSet.has(p));
          // Proposals: the fewest moves over every other width (n <= 60, so all are checked).
          expect(r.checked.all).toBe(true);
          let best = Infinity;
          for (let wd = 1; wd <= n; wd++) if (wd !== w) best = Math.min(best, moves(before.channelOf, planChannels({ partitions: n, width: wd, strategy, topic: 'clicks' }).channelOf));
          if (n > 1 || w !== 1) expect(r.proposals[0]?.partitionsChangingChannel).toBe(best);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('a folded plan keeps its base: partition p stays with p mod base', () => {
    const x = expandPlan(planChannels({ partitions: 6, width: 3 }), 18).plan;
    const r = rewidthPlan(x, 2);
    expect(r.plan.basePartitions).toBe(6);
    for (let p = 0; p < 18; p++) expect(r.plan.channelOf[p]).toBe(r.plan.channelOf[p % 6]);
    expect(lists(r.plan)[0]).toEqual([0, 1, 2, 6, 7, 8, 12, 13, 14]);
    expect(r.keysChangingChannel).toBeCloseTo(r.moved.partitions.length / 18, 12);
  });

  it('custom plans: a balanced layout that keeps as many partitions as any balanced layout can (brute force)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 7 }), fc.integer({ min: 1, max: 4 }), (owners, wd) => {
        const current = Int32Array.from(owners);
        const out = stickyLayout(current, owners.length, wd);
        const sizes = new Array(wd).fill(0);
        for (const c of out) sizes[c]++;
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        // Brute force over every assignment with sizes differing by at most one.
        let best = Infinity;
        const n = owners.length;
        for (let code = 0; code < wd ** n; code++) {
          const a = Array.from({ length: n }, (_, i) => Math.floor(code / wd ** i) % wd);
          const s = new Array(wd).fill(0);
          for (const c of a) s[c]++;
          if (Math.max(...s) - Math.min(...s) > 1) continue;
          best = Math.min(best, moves(current, a));
        }
        expect(moves(current, out)).toBe(best);
      }),
      { numRuns: 150 },
    );
  });

  it('refuses what it cannot do, naming why', () => {
    expect(caught(() => rewidthPlan({ channels: [[0, 1], [2, 3]] }, 3)).message).toMatch(/does not say how many partitions/);
    expect(rewidthPlan({ channels: [[0, 1], [2, 3]] }, 3, { partitions: 4 }).plan.width).toBe(3);
    expect(caught(() => rewidthPlan({ partitions: 4, channels: [[0, 1], [1, 3]] }, 3)).code).toBe('E_UNSOUND_PLAN');
    expect(caught(() => rewidthPlan({ partitions: 4, strategy: 'flink', channels: [[0, 2], [1, 3]] }, 3)).message).toMatch(/topic/);
    expect(caught(() => rewidthPlan({ partitions: 4, channels: [[0, 1], [2, 3]] }, 0)).code).toBe('E_RANGE');
  });
});
