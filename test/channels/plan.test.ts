import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { planChannels, planTopics, channelOfPartition, channelPartitions, javaStringHashCode, type ChannelPlan } from '../../src/channels/index.js';
import { flinkStartIndex, formatRanges, STRATEGIES } from '../../src/channels/plan.js';
import { AssignorError } from '../../src/errors.js';

const lists = (plan: ChannelPlan): number[][] => Array.from({ length: plan.width }, (_, c) => Array.from(channelPartitions(plan, c)));
const engineArb = fc.constantFrom('reference' as const, 'wasm' as const, 'wasm-scalar' as const);

describe('the use-case document tables', () => {
  it('6 partitions, width 3: 0,1 / 2,3 / 4,5', () => {
    expect(lists(planChannels({ partitions: 6, width: 3 }))).toEqual([[0, 1], [2, 3], [4, 5]]);
  });
  it('5 partitions, width 3: 0,1 / 2,3 / 4 (the highest channel gets one)', () => {
    expect(lists(planChannels({ partitions: 5, width: 3 }))).toEqual([[0, 1], [2, 3], [4]]);
  });
  it('3 partitions 1-to-1: partition = channel', () => {
    expect(lists(planChannels({ partitions: 3, width: 3 }))).toEqual([[0], [1], [2]]);
  });
  it('12 partitions for 6 and for 4 operators (the refactoring the document complains about)', () => {
    expect(lists(planChannels({ partitions: 12, width: 6 }))).toEqual([[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11]]);
    expect(lists(planChannels({ partitions: 12, width: 4 }))).toEqual([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]);
  });
});

describe('Java String.hashCode and the flink start index', () => {
  it('matches known Java values', () => {
    expect(javaStringHashCode('')).toBe(0);
    expect(javaStringHashCode('hello')).toBe(99162322);
    expect(javaStringHashCode('Aa')).toBe(2112);
    expect(javaStringHashCode('BB')).toBe(2112);
    expect(javaStringHashCode('polygenelubricants')).toBe(-2147483648);
    // UTF-16 code units, not code points: U+1F600 is \uD83D\uDE00.
    expect(javaStringHashCode('\u{1F600}')).toBe(55357 * 31 + 56832);
  });
  it('equals an independent BigInt model of Java int arithmetic', () => {
    const toInt = (x: bigint): bigint => BigInt.asIntN(32, x);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.integer({ min: 1, max: 1 << 20 }), (s, w) => {
        let h = 0n;
        for (let i = 0; i < s.length; i++) h = toInt(31n * h + BigInt(s.charCodeAt(i)));
        expect(javaStringHashCode(s)).toBe(Number(h));
        const start = Number((toInt(h * 31n) & 0x7fffffffn) % BigInt(w));
        expect(flinkStartIndex(s, w)).toBe(start);
      }),
    );
  });
  it('flink plan: partition p on (start + p) mod W', () => {
    const plan = planChannels({ partitions: 20, width: 7, strategy: 'flink', topic: 'orders' });
    const s = flinkStartIndex('orders', 7);
    expect(plan.startIndex).toBe(s);
    for (let p = 0; p < 20; p++) expect(plan.channelOf[p]).toBe((s + p) % 7);
  });
  it('flink needs a topic', () => {
    expect(() => planChannels({ partitions: 4, width: 2, strategy: 'flink' })).toThrow(/topic/);
  });
});

describe('properties of every strategy', () => {
  const args = fc.record({
    n: fc.integer({ min: 1, max: 2000 }),
    w: fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 5000 })),
    strategy: fc.constantFrom(...STRATEGIES),
    topic: fc.string({ minLength: 1, maxLength: 12 }),
    engine: engineArb,
  });

  it('each partition exactly once, in its channel, lists ascending', () => {
    fc.assert(
      fc.property(args, ({ n, w, strategy, topic, engine }) => {
        const plan = planChannels({ partitions: n, width: w, strategy, topic, engine });
        const seen = new Int32Array(n);
        let wrong = 0;
        for (let c = 0; c < w; c++) {
          const own = channelPartitions(plan, c);
          for (let i = 0; i < own.length; i++) {
            seen[own[i]!]!++;
            if (plan.channelOf[own[i]!] !== c || (i > 0 && own[i]! <= own[i - 1]!)) wrong++;
          }
        }
        expect(wrong).toBe(0);
        expect(seen.every((x) => x === 1)).toBe(true);
      }),
    );
  });

  it('block sizes differ by at most one; contiguous blocks are contiguous with the larger ones first', () => {
    fc.assert(
      fc.property(args, ({ n, w, strategy, topic, engine }) => {
        const plan = planChannels({ partitions: n, width: w, strategy, topic, engine });
        const sizes = Array.from({ length: w }, (_, c) => plan.offsets[c + 1]! - plan.offsets[c]!);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        if (strategy === 'contiguous') {
          expect(sizes).toEqual(Array.from({ length: w }, (_, c) => Math.floor(n / w) + (c < n % w ? 1 : 0)));
          let backwards = 0;
          for (let p = 1; p < n; p++) if (plan.channelOf[p]! < plan.channelOf[p - 1]!) backwards++;
          expect(backwards).toBe(0);
        }
        if (strategy === 'round-robin') expect(plan.channelOf.every((c, p) => c === p % w)).toBe(true);
      }),
    );
  });

  it('a channel computes its own partitions alone (channelOfPartition = plan)', () => {
    fc.assert(
      fc.property(args, ({ n, w, strategy, topic }) => {
        const plan = planChannels({ partitions: n, width: w, strategy, topic });
        for (let p = 0; p < n; p += Math.max(1, n >> 5)) expect(channelOfPartition(strategy, p, n, w, topic)).toBe(plan.channelOf[p]);
      }),
    );
  });

  it('flink never moves an existing partition when N grows', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 1, max: 300 }), fc.string({ minLength: 1 }), (n, extra, w, topic) => {
        const before = planChannels({ partitions: n, width: w, strategy: 'flink', topic });
        const after = planChannels({ partitions: n + extra, width: w, strategy: 'flink', topic });
        expect(Array.from(after.channelOf.subarray(0, n))).toEqual(Array.from(before.channelOf));
      }),
    );
  });

  it('W > N leaves idle channels and says so', () => {
    const plan = planChannels({ partitions: 3, width: 5 });
    expect(lists(plan)).toEqual([[0], [1], [2], [], []]);
    expect(plan.warnings.join(' ')).toMatch(/2 of 5 channels get no partition \(3,4\)/);
    expect(planChannels({ partitions: 5, width: 5 }).warnings).toEqual([]);
  });
});

describe('input checks and several topics', () => {
  it('rejects bad counts with a path', () => {
    for (const [opts, path] of [
      [{ partitions: 0, width: 1 }, 'partitions'],
      [{ partitions: 4, width: 0 }, 'width'],
      [{ partitions: 1.5, width: 1 }, 'partitions'],
      [{ partitions: 4, width: 2, strategy: 'hash' }, 'strategy'],
    ] as const) {
      try {
        planChannels(opts as never);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(AssignorError);
        expect((e as AssignorError).path).toBe(path);
      }
    }
  });
  it('planTopics gives one plan per topic and names the failing topic', () => {
    const plans = planTopics({ topics: [{ topic: 'a', partitions: 4 }, { topic: 'b', partitions: 6 }], width: 2, strategy: 'flink' });
    expect(plans.map((p) => [p.topic, p.partitions])).toEqual([['a', 4], ['b', 6]]);
    expect(() => planTopics({ topics: [{ topic: 'a', partitions: 4 }, { topic: 'b', partitions: 0 }], width: 2 })).toThrow(
      expect.objectContaining({ path: 'topics[1].partitions' }),
    );
  });
});

describe('formatRanges', () => {
  it('runs, pairs, singles and even steps', () => {
    expect(formatRanges([0, 1, 2, 3, 8])).toBe('0-3,8');
    expect(formatRanges([0, 1])).toBe('0,1');
    expect(formatRanges([5])).toBe('5');
    expect(formatRanges([0, 3, 6, 9])).toBe('0-9/3');
    expect(formatRanges([0, 5, 10])).toBe('0,5,10');
    expect(formatRanges([])).toBe('');
  });
});
