// Issue 13 (defects 1, 6, 7) and issue 14 (defects 2, 3), at the API level:
// input nested 10,000 deep, ids beyond int32, the flink start index through
// expandPlan, and outputs that come in bounded pieces however large the plan.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { emitSpl, expandPlan, planChannels, planToJson, reportJsonText, rewidthPlan, validatePlan, type PlanLike } from '../../src/channels/index.js';
import { formatRanges, STRATEGIES } from '../../src/channels/plan.js';
import { planChunks, planJsonText, readPlan } from '../../src/channels/json.js';
import { clipDots, clipRuns, idsOf } from '../../src/channels/ranges.js';
import { findings, reportJsonChunks } from '../../src/channels/validate.js';
import { splChunks } from '../../src/channels/spl.js';
import { planTableChunks } from '../../src/channels/table.js';
import { caught } from '../helpers.js';

const DEEP = 10_000;
const nested = (depth: number, inner: unknown = 0): unknown => {
  let v: unknown = inner;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

describe('input nested 10,000 deep is an input error that names its place (issue 13, defect 1)', () => {
  it('in a partition list, a channel list, startIndex, or as the whole file', () => {
    const cases: [unknown, string][] = [
      [{ channels: [[0, nested(DEEP)]] }, 'channels[0][1]'],
      [{ channels: [{ partitions: nested(DEEP) }] }, 'channels[0].partitions[0]'],
      [{ channels: [nested(DEEP)] }, 'channels[0][0]'],
      [{ channels: [[0]], startIndex: nested(DEEP) }, 'startIndex'],
      [{ channels: [[0]], partitions: nested(DEEP) }, 'partitions'],
      [{ channels: [[0]], format: nested(DEEP) }, 'format'],
      [{ channels: nested(DEEP, {}) }, 'channels[0][0]'],
      [nested(DEEP), 'channels[0][0]'],
      [{ channels: [{ channel: nested(DEEP), partitions: [0] }] }, 'channels[0].channel'],
    ];
    for (const [plan, path] of cases) {
      for (const f of [() => validatePlan(plan as PlanLike, 3), () => expandPlan(plan as PlanLike, 6), () => readPlan(plan)]) {
        const e = caught(f);
        expect(e.code).toBe('E_PLAN');
        expect(e.path).toBe(path);
        expect(e.message.length).toBeLessThan(400);
      }
    }
  });

  it('long strings in error messages are clipped, with their length', () => {
    const e = caught(() => readPlan({ channels: ['partition: 0, ' + 'x'.repeat(5_000_000)] }));
    expect(e.message.length).toBeLessThan(400);
    expect(e.message).toMatch(/5000000 characters/);
  });
});

describe('ids outside the topic are findings, even beyond int32 (issue 13, defect 7)', () => {
  it('3000000000 with 3 partitions is out of range, not "must be an integer"', () => {
    for (const plan of [{ channels: [[0, 1], [2, 3000000000]] }, { channels: ['0, 1', 'partition: 2, 3000000000;'] }]) {
      const r = validatePlan(plan, 3);
      expect(r.sound).toBe(false);
      expect(r.outOfRange).toEqual([{ channel: 1, index: 1, partition: 3000000000 }]);
      expect(r.summary).toMatch(/outside the topic's partitions 0-2 \(e\.g\. 3000000000 at channels\[1\]\.partitions\[1\]\)/);
    }
    expect(validatePlan({ channels: [[0, -3000000000, 1e20], [1, 2]] }, 3).outOfRange.map((o) => o.partition)).toEqual([-3000000000, 1e20]);
  });

  it('non-integers are still input errors', () => {
    expect(caught(() => validatePlan({ channels: [[0, 1.5]] }, 3)).path).toBe('channels[0][1]');
    expect(caught(() => validatePlan({ channels: ['0, ' + '9'.repeat(400)] }, 3)).message).toMatch(/too large to represent/);
  });
});

describe('expandPlan keeps the flink start index (issue 13, defect 6)', () => {
  it('10 partitions, width 10, topic orders, expanded to 20: start index 9 in the plan, its JSON and its SPL', () => {
    const plan = planChannels({ partitions: 10, width: 10, strategy: 'flink', topic: 'orders' });
    expect(plan.startIndex).toBe(9);
    for (const from of [plan, planToJson(plan)]) {
      const x = expandPlan(from, 20).plan;
      expect(x.startIndex).toBe(9);
      expect(planToJson(x).startIndex).toBe(9);
      const spl = emitSpl(x);
      expect(spl).toContain('@parallel (width = 10)');
      expect(spl).toContain('partition: ((getChannel() + 1) % 10), ((getChannel() + 1) % 10) + 10;');
    }
  });
});

/** The previous implementations of the range texts, to prove the one-pass versions print the same. */
function oldFormatRanges(ids: number[]): string {
  const n = ids.length;
  if (n === 0) return '';
  if (n >= 4) {
    const step = ids[1]! - ids[0]!;
    let even = step > 1;
    for (let i = 2; even && i < n; i++) even = ids[i]! - ids[i - 1]! === step;
    if (even) return `${ids[0]}-${ids[n - 1]}/${step}`;
  }
  const parts: string[] = [];
  let i = 0;
  while (i < n) {
    let j = i;
    while (j + 1 < n && ids[j + 1] === ids[j]! + 1) j++;
    parts.push(j === i ? `${ids[i]}` : j === i + 1 ? `${ids[i]},${ids[j]}` : `${ids[i]}-${ids[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}
function oldClipTable(s: string): string {
  if (s.length <= 100) return s;
  const cut = s.lastIndexOf(',', 100);
  const shown = s.slice(0, cut > 0 ? cut : 100);
  return `${shown},... (+${s.slice(shown.length + 1).split(',').length} more runs)`;
}
const oldClipSummary = (s: string): string => (s.length > 60 ? `${s.slice(0, 57)}...` : s);

describe('range texts in one pass print what the full texts printed', () => {
  it('formatRanges, the table cell clip and the summary clip', () => {
    const sets = fc.oneof(
      fc.uniqueArray(fc.integer({ min: 0, max: 400 }), { maxLength: 120 }).map((a) => a.sort((x, y) => x - y)),
      fc.tuple(fc.nat(50), fc.integer({ min: 2, max: 9 }), fc.integer({ min: 1, max: 60 })).map(([s, st, k]) => Array.from({ length: k }, (_, i) => s + i * st)),
      fc.array(fc.integer({ min: -5, max: 20 }), { maxLength: 12 }),
    );
    fc.assert(
      fc.property(sets, (ids) => {
        expect(formatRanges(ids)).toBe(oldFormatRanges(ids));
        expect(clipRuns(idsOf(ids), 100)).toBe(oldClipTable(oldFormatRanges(ids)));
        expect(clipDots(idsOf(ids), 60)).toBe(oldClipSummary(oldFormatRanges(ids)));
      }),
      { numRuns: 400 },
    );
  });
});

/** The previous whole-string JSON texts. */
function oldPlanJsonText(json: Record<string, unknown> & { channels: unknown[] }): string {
  const { channels, ...head } = json;
  const headText = JSON.stringify(head, null, 2);
  const lines = channels.map((c) => `    ${JSON.stringify(c)}`);
  const body = lines.length === 0 ? '[]' : `[\n${lines.join(',\n')}\n  ]`;
  return `${headText.slice(0, -2)},\n  "channels": ${body}\n}\n`;
}
function oldReportJsonText(r: object): string {
  return `{\n${Object.entries(r)
    .map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(',\n')}\n}\n`;
}

/** The report as written since issue 25: runs of two or more idle channels as [first, last], and then version 2. */
function withIdleRanges(r: { version: number; idleChannels: number[] }): object {
  const idle: (number | number[])[] = [];
  for (const c of r.idleChannels) {
    const last = idle[idle.length - 1];
    const end = typeof last === 'number' ? last : last?.[1];
    if (end === c - 1) idle[idle.length - 1] = [typeof last === 'number' ? last : last![0]!, c];
    else idle.push(c);
  }
  return { ...r, version: idle.some((x) => typeof x !== 'number') ? 2 : 1, idleChannels: idle };
}

describe('outputs in pieces print exactly the former texts', () => {
  it('plan JSON, with and without a large array in the head', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9000 }), fc.integer({ min: 1, max: 40 }), fc.constantFrom(...STRATEGIES), fc.nat(30), (n, w, strategy, movedCount) => {
        const plan = planChannels({ partitions: n, width: w, strategy, topic: 't' });
        const json = planToJson(plan);
        expect([...planChunks(plan)].join('')).toBe(oldPlanJsonText(json));
        expect(planJsonText(json)).toBe(oldPlanJsonText(json));
        const moved = Array.from({ length: movedCount }, (_, i) => ({ partition: i, from: 0, to: 1 }));
        const expansion = { from: 1, to: 2, keepsEveryKey: false, moved, summary: 's' };
        const marker = '\u0000moved';
        const streamed = [...planChunks(plan, { expansion: { ...expansion, moved: marker } }, { marker, count: moved.length, item: (i) => moved[i] })].join('');
        expect(streamed).toBe(oldPlanJsonText({ ...json, expansion }));
      }),
      { numRuns: 60 },
    );
  });

  it('validation report JSON', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer({ min: -3, max: 40 }), { maxLength: 12 }), { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 30 }), (lists, n) => {
        const r = validatePlan({ channels: lists }, n);
        expect(reportJsonText(r)).toBe(oldReportJsonText(withIdleRanges(r)));
      }),
    );
  });
});

/** Reads every piece, keeping only the longest piece and the total length (so nothing big is held). */
function drain(pieces: Iterable<string>): { longest: number; total: number; tail: string } {
  let longest = 0;
  let total = 0;
  let tail = '';
  for (const p of pieces) {
    longest = Math.max(longest, p.length);
    total += p.length;
    tail = (tail + p).slice(-200);
  }
  return { longest, total, tail };
}

describe('large outputs come in bounded pieces (issue 14, defects 2 and 3)', () => {
  const N = 1 << 21;
  const BOUND = 1 << 20;

  it('a plan of 2M partitions on one channel: JSON, SPL and table', () => {
    const plan = planChannels({ partitions: N, width: 1 });
    const json = drain(planChunks(plan));
    expect(json.longest).toBeLessThan(BOUND);
    expect(json.tail.endsWith(`${N - 2},${N - 1}]}\n  ]\n}\n`)).toBe(true);
    const spl = drain(splChunks(plan));
    expect(spl.longest).toBeLessThan(BOUND);
    expect(spl.total).toBeGreaterThan(N * 2);
    expect(drain(planTableChunks(plan)).total).toBeLessThan(1000);
  });

  it('6 partitions on 2M channels: idle channels share one table row and one SPL comment', () => {
    const plan = planChannels({ partitions: 6, width: N });
    const json = drain(planChunks(plan));
    expect(json.longest).toBeLessThan(BOUND);
    // Issue 25: the idle channels are one entry, so the JSON is bounded by the partitions.
    expect(json.total).toBeLessThan(1000);
    expect(json.tail).toContain(`{"channel":6,"lastChannel":${N - 1},"partitions":[]}\n  ]\n}\n`);
    const table = [...planTableChunks(plan)].join('');
    expect(table.split('\n').length).toBeLessThan(20);
    expect(table).toContain(`6-${N - 1}      0  (idle)`);
    const spl = [...splChunks(plan)].join('');
    expect(spl).toContain(`// channels 6-${N - 1}: no partition.`);
    expect(spl).toMatch(new RegExp(`No form for a parallel region: width ${N} is more than the 6 partitions`));
    expect(plan.warnings[0]).toMatch(new RegExp(`^${N - 6} of ${N} channels get no partition \\(6-${N - 1}\\)`));
  });

  it('an 8-partition plan checked against 2M partitions: the report streams the missing partitions', () => {
    const f = findings(readPlan({ partitions: 8, channels: [[0, 1, 2, 3], [4, 5, 6, 7]] }), N);
    expect(f.missingCount).toBe(N - 8);
    expect(f.summary.startsWith(`data would be lost or read twice (${N} partitions, 2 channels); ${N - 8} partition(s) consumed by no channel (8-${N - 1})`)).toBe(true);
    const json = drain(reportJsonChunks(f));
    expect(json.longest).toBeLessThan(BOUND);
    expect(json.total).toBeGreaterThan(N * 7);
  });

  it('an 8-partition plan expanded to 2M partitions', () => {
    const x = expandPlan({ partitions: 8, channels: [[0, 1, 2, 3], [4, 5, 6, 7]] }, N);
    expect(x.plan.channelOf[N - 1]).toBe(1);
    expect(drain(planChunks(x.plan)).longest).toBeLessThan(BOUND);
  });
});

describe('API arguments nested 10,000 deep are range errors, not stack overflows (issue 13, defect 1 audit)', () => {
  it('planChannels, validatePlan, expandPlan, rewidthPlan and emitSpl options', () => {
    const d = nested(DEEP) as number;
    const plan = planChannels({ partitions: 4, width: 2 });
    const calls: (() => unknown)[] = [
      () => planChannels({ partitions: d, width: 2 }),
      () => planChannels({ partitions: 4, width: 2, strategy: nested(DEEP) as 'flink' }),
      () => validatePlan(plan, d),
      () => expandPlan(plan, d),
      () => rewidthPlan(plan, d),
      () => rewidthPlan(plan, 3, { partitions: d }),
      () => emitSpl(plan, { arity: d }),
      () => emitSpl(plan, { groupId: nested(DEEP) as string }),
      () => emitSpl(plan, { consistentRegion: 'operatorDriven', triggerCount: d }),
    ];
    for (const f of calls) {
      const e = caught(f);
      expect(['E_RANGE', 'E_USAGE']).toContain(e.code);
      expect(e.message).toMatch(/\[\[\[\[.*…/); // the shared clipped quote (errors.describe)
    }
  });
});
