import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { channelPartitions, planChannels, planToJson, validatePlan } from '../../src/channels/index.js';
import { readPlan } from '../../src/channels/json.js';
import { STRATEGIES } from '../../src/channels/plan.js';
import { AssignorError } from '../../src/errors.js';

/** Naive model: Sets and Maps, obviously right, slow. */
function model(lists: number[][], n: number) {
  const owners = new Map<number, Set<number>>();
  const outOfRange: { channel: number; index: number; partition: number }[] = [];
  lists.forEach((l, c) =>
    l.forEach((p, index) => {
      if (p < 0 || p >= n) outOfRange.push({ channel: c, index, partition: p });
      else owners.set(p, (owners.get(p) ?? new Set()).add(c));
    }),
  );
  const missing: number[] = [];
  const duplicated: { partition: number; channels: number[] }[] = [];
  for (let p = 0; p < n; p++) {
    const o = owners.get(p);
    if (o === undefined) missing.push(p);
    else if (o.size > 1) duplicated.push({ partition: p, channels: [...o].sort((a, b) => a - b) });
  }
  const idleChannels = lists.map((l, c) => (l.some((p) => p >= 0 && p < n) ? -1 : c)).filter((c) => c >= 0);
  return { missing, duplicated, outOfRange, idleChannels, sound: missing.length + duplicated.length + outOfRange.length === 0 };
}

describe('validatePlan', () => {
  it('the document plans are sound, including the `4, 4` padding', () => {
    expect(validatePlan({ channels: [[0, 1], [2, 3], [4, 5]] }, 6).sound).toBe(true);
    const r = validatePlan({ channels: ['partition: 0, 1;', 'partition: 2, 3;', 'partition: 4, 4;'] }, 5);
    expect(r.sound).toBe(true);
    expect(r.repeated).toEqual([{ channel: 2, partition: 4, times: 2 }]);
  });

  it('every generated plan is sound', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 1, max: 100 }), fc.constantFrom(...STRATEGIES), (n, w, strategy) => {
        const plan = planChannels({ partitions: n, width: w, strategy, topic: 't' });
        const r = validatePlan(plan, n);
        const j = validatePlan(planToJson(plan), n);
        expect(r.sound && j.sound).toBe(true);
        expect(r.idleChannels.length).toBe(Math.max(0, w - n));
      }),
    );
  });

  it('finds every seeded defect in random corrupted plans (and nothing else)', () => {
    const corruption = fc.record({
      n: fc.integer({ min: 1, max: 200 }),
      w: fc.integer({ min: 1, max: 30 }),
      strategy: fc.constantFrom(...STRATEGIES),
      drops: fc.array(fc.nat(), { maxLength: 5 }),
      dups: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 5 }),
      outs: fc.array(fc.tuple(fc.nat(), fc.oneof(fc.integer({ min: -1000, max: -1 }), fc.integer({ min: 0, max: 1000 }))), { maxLength: 4 }),
      pads: fc.array(fc.nat(), { maxLength: 3 }),
      engine: fc.constantFrom('reference' as const, 'wasm' as const),
    });
    fc.assert(
      fc.property(corruption, ({ n, w, strategy, drops, dups, outs, pads, engine }) => {
        const plan = planChannels({ partitions: n, width: w, strategy, topic: 'x' });
        const lists = Array.from({ length: w }, (_, c) => Array.from(channelPartitions(plan, c)));
        const seededMissing = new Set<number>();
        const seededDup = new Set<number>();
        const seededOut: number[] = [];
        for (const d of drops) {
          const c = d % w;
          if (lists[c]!.length === 0) continue;
          const [p] = lists[c]!.splice(d % lists[c]!.length, 1);
          seededMissing.add(p!);
        }
        for (const [a, b] of dups) {
          const p = a % n;
          const c = b % w;
          if (seededMissing.has(p) || lists[c]!.includes(p)) continue;
          lists[c]!.push(p);
          seededDup.add(p);
        }
        for (const [a, v] of outs) {
          const bad = v < 0 ? v : n + v;
          lists[a % w]!.push(bad);
          seededOut.push(bad);
        }
        for (const a of pads) {
          const first = lists[a % w]![0];
          if (first !== undefined && first >= 0 && first < n) lists[a % w]!.push(first);
        }
        const r = validatePlan({ channels: lists }, n, { engine });
        for (const p of seededMissing) expect(r.missing).toContain(p);
        for (const p of seededDup) expect(r.duplicated.map((d) => d.partition)).toContain(p);
        expect(r.outOfRange.map((o) => o.partition).sort((x, y) => x - y)).toEqual([...seededOut].sort((x, y) => x - y));
        const m = model(lists, n);
        expect({ missing: r.missing, duplicated: r.duplicated, outOfRange: r.outOfRange, idleChannels: r.idleChannels, sound: r.sound }).toEqual(m);
        expect(r.sound).toBe(seededMissing.size + seededDup.size + seededOut.length === 0);
      }),
      { numRuns: 300 },
    );
  });

  it('names the place of malformed input', () => {
    const at = (plan: unknown): string | undefined => {
      try {
        readPlan(plan);
      } catch (e) {
        expect(e).toBeInstanceOf(AssignorError);
        return (e as AssignorError).path;
      }
      return 'no error';
    };
    expect(at({ channels: [{ partitions: [0] }, { partitions: [1] }, { partitions: [2] }, { partitions: [3, 4, 'five'] }] })).toBe('channels[3].partitions[2]');
    expect(at({ channels: [[0], [1.5]] })).toBe('channels[1][0]');
    expect(at({ channels: ['partition: 0, x;'] })).toBe('channels[0][1]');
    expect(at({ channels: [{ channel: 1, partitions: [0] }] })).toBe('channels[0].channel');
    expect(at({ channels: [] })).toBe('channels');
    expect(at({ chanels: [[0]] })).toBe('channels');
    expect(at({ channels: [[0]], width: 2 })).toBe('width');
    expect(at({ channels: [[0]], format: 'other' })).toBe('format');
    expect(at(42)).toBe('plan');
  });

  it('reads every channel form into one flat list: arrays, objects, SPL text (beyond the arrays\' length), ids outside int32', () => {
    const big = 2 ** 31;
    const r = readPlan({ channels: [[3, -0, big], 'partition: 4, 5, 6, 7;', { partitions: [] }, { channel: 3, partitions: 'partition: -1, 9' }, { partitions: [-big - 1, 8] }] });
    expect(r.width).toBe(5);
    expect([...r.start]).toEqual([0, 3, 7, 7, 9, 11]);
    expect([...r.entryPartition]).toEqual([3, 0, -1, 4, 5, 6, 7, -1, 9, -1, 8]);
    expect(Object.is(r.entryPartition[1], 0)).toBe(true);
    expect([...r.wideIds!]).toEqual([
      [2, big],
      [9, -big - 1],
    ]);
    expect(readPlan([[1], [0]]).wideIds).toBeUndefined();
    // The first bad place in channel order, as the lists are read one after the other.
    expect(() => readPlan({ channels: [[0, 'x'], { channel: 7, partitions: [1] }] })).toThrow(/channels\[0\]\[1\]/);
    expect(() => readPlan({ channels: [[0], { channel: 7, partitions: [1, 'x'] }] })).toThrow(/channels\[1\]\.channel/);
  });

  it('summarises what is wrong in one sentence', () => {
    const r = validatePlan({ channels: [[0, 1], [1, 2], [7]] }, 4);
    expect(r.sound).toBe(false);
    expect(r.summary).toMatch(/1 partition\(s\) consumed by no channel \(3\)/);
    expect(r.summary).toMatch(/partition 1 on channels 0 and 1/);
    expect(r.summary).toMatch(/7 at channels\[2\]\.partitions\[0\]/);
    expect(r.idleChannels).toEqual([2]);
  });
});

describe('validatePlan against a grown topic', () => {
  it('points to expand when the plan was made for fewer partitions', () => {
    const r = validatePlan(planToJson(planChannels({ partitions: 6, width: 3 })), 8);
    expect(r.sound).toBe(false);
    expect(r.missing).toEqual([6, 7]);
    expect(r.summary).toMatch(/made for 6 partitions: grow it with channels expand/);
  });
});
