import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { expandPlan, planChannels, planToJson, validatePlan, type ChannelPlan } from '../../src/channels/index.js';
import { STRATEGIES } from '../../src/channels/plan.js';
import { partitionsForKeys } from '../../src/hashing/partitioner.js';
import { AssignorError } from '../../src/errors.js';

/** Channel of each key under a plan: Kafka's murmur2 partition, then the plan's owner. */
function keyChannels(plan: ChannelPlan, keys: string[]): Int32Array {
  const parts = partitionsForKeys(keys, plan.partitions);
  return parts.map((p) => plan.channelOf[p]!);
}

const keysArb = fc.array(fc.string({ unit: 'grapheme', minLength: 0, maxLength: 16 }), { minLength: 50, maxLength: 400 });

describe('expandPlan', () => {
  it('keeps every key on its channel when the new count is a multiple of the base (Kafka hasher before and after)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(...STRATEGIES),
        keysArb,
        (n, w, m, strategy, keys) => {
          const plan = planChannels({ partitions: n, width: w, strategy, topic: 'events' });
          const x = expandPlan(plan, n * m);
          expect(x.keepsEveryKey).toBe(true);
          expect(x.keysChangingChannel).toBe(0);
          expect(x.moved.partitions.length).toBe(0);
          expect(x.plan.width).toBe(w);
          expect(x.plan.basePartitions).toBe(n);
          expect(validatePlan(x.plan, n * m).sound).toBe(true);
          expect(keyChannels(x.plan, keys)).toEqual(keyChannels(plan, keys));
          // existing partitions never move; new partition p joins the channel of p mod n
          for (let p = 0; p < n * m; p++) expect(x.plan.channelOf[p]).toBe(plan.channelOf[p % n]);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('chained expansions fold on the base: 4 -> 8 -> 12 keeps keys although 12 is not a multiple of 8', () => {
    const keys = Array.from({ length: 5000 }, (_, i) => `customer-${i}`);
    const p4 = planChannels({ partitions: 4, width: 2 });
    const p8 = expandPlan(p4, 8).plan;
    const x12 = expandPlan(planToJson(p8), 12); // through JSON, as the CLI does
    expect(x12.keepsEveryKey).toBe(true);
    expect(x12.plan.basePartitions).toBe(4);
    expect(keyChannels(x12.plan, keys)).toEqual(keyChannels(p4, keys));
    expect(keyChannels(p8, keys)).toEqual(keyChannels(p4, keys));
  });

  it('refuses a count that moves keys, with the share and the nearest safe counts', () => {
    const plan = planChannels({ partitions: 6, width: 3 });
    try {
      expandPlan(plan, 9);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(AssignorError);
      expect((e as AssignorError).code).toBe('E_KEY_MOVEMENT');
      expect((e as AssignorError).message).toMatch(/1\/2 of keys \(50%\)/);
      expect((e as AssignorError).message).toMatch(/6 or 12/);
      expect((e as AssignorError).message).toMatch(/of keys to another channel/);
    }
  });

  it('with allowKeyMovement: rebalances, reports moved partitions and the exact key share', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 40 }), fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 50 }), fc.constantFrom(...STRATEGIES), (n, w, extra, strategy) => {
        const plan = planChannels({ partitions: n, width: w, strategy, topic: 't' });
        const target = n + extra;
        const x = expandPlan(plan, target, { allowKeyMovement: true });
        expect(validatePlan(x.plan, target).sound).toBe(true);
        expect(x.plan.width).toBe(w);
        const moved = [];
        for (let p = 0; p < n; p++) if (x.plan.channelOf[p] !== plan.channelOf[p]) moved.push(p);
        expect(Array.from(x.moved.partitions)).toEqual(moved);
        if (!x.keepsEveryKey) {
          expect(x.plan.basePartitions).toBe(target);
          expect(x.plan.strategy).toBe('custom');
          // exact share: enumerate h over lcm(n, target)
          const l = (n * target) / gcdOf(n, target);
          let changed = 0;
          for (let h = 0; h < l; h++) if (plan.channelOf[h % n] !== x.plan.channelOf[h % target]) changed++;
          expect(x.keysChangingChannel).toBeCloseTo(changed / l, 12);
          expect(x.keysChangingChannel).toBeLessThanOrEqual(x.analysis.movedShare + 1e-12);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('the reported key share matches hashed keys', () => {
    const plan = planChannels({ partitions: 8, width: 4 });
    const x = expandPlan(plan, 12, { allowKeyMovement: true });
    const keys = Array.from({ length: 40000 }, (_, i) => `k${i}`);
    const a = keyChannels(plan, keys);
    const b = keyChannels(x.plan, keys);
    let changed = 0;
    for (let i = 0; i < keys.length; i++) if (a[i] !== b[i]) changed++;
    expect(Math.abs(changed / keys.length - x.keysChangingChannel)).toBeLessThan(0.02);
  });

  it('rejects shrinking, unsound plans, plans without a count, and a false base', () => {
    const plan = planChannels({ partitions: 6, width: 3 });
    expect(() => expandPlan(plan, 4)).toThrow(expect.objectContaining({ code: 'E_SHRINK' }));
    expect(() => expandPlan({ partitions: 4, channels: [[0, 1], [1, 2]] }, 8)).toThrow(expect.objectContaining({ code: 'E_UNSOUND_PLAN' }));
    expect(() => expandPlan({ channels: [[0, 1], [2, 3]] }, 8)).toThrow(expect.objectContaining({ code: 'E_PLAN', path: 'partitions' }));
    expect(() => expandPlan({ partitions: 4, basePartitions: 2, channels: [[0, 1], [2, 3]] }, 8)).toThrow(expect.objectContaining({ path: 'basePartitions' }));
    // a hand-written plan with a count expands from that count
    const x = expandPlan({ partitions: 4, channels: [[0, 3], [1, 2]] }, 8);
    expect(Array.from(x.plan.channelOf)).toEqual([0, 1, 1, 0, 0, 1, 1, 0]);
    expect(x.plan.strategy).toBe('custom');
  });
});

function gcdOf(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}
