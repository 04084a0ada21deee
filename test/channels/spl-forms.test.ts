// Issue 13, "the channel planner against the whole IBM document": a getChannel()
// form for every layout, the document's composites, submission-time width with
// its guard, consistent regions and groupId. Every form is evaluated here for
// every channel twice: by the module's own SPL evaluator and, independently, as
// JavaScript (the operators used mean the same in both, integer division aside).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { emitSpl, expandPlan, planChannels, channelPartitions, MAX_FORM_ARITY, type ChannelPlan } from '../../src/channels/index.js';
import { STRATEGIES } from '../../src/channels/plan.js';
import { parallelForm, submissionForm } from '../../src/channels/spl.js';
import { compileSpl } from '../../src/channels/spl-eval.js';
import { caught } from '../helpers.js';

const lists = (plan: ChannelPlan): number[][] => Array.from({ length: plan.width }, (_, c) => Array.from(channelPartitions(plan, c)));
const distinct = (v: number[]): number[] => [...new Set(v)].sort((a, b) => a - b);

/** One SPL expression as a JavaScript function of (channel, width, nPartitions); SPL's int32 `/` becomes Math.trunc. */
function jsFunction(expr: string): (c: number, width: number, n: number) => number {
  const js = expr
    .replaceAll('getChannel()', 'c')
    .replaceAll('$nPartitions', 'n')
    .replaceAll('$width', 'width')
    .replace(/\((n|\d+) \/ width\)/g, 'Math.trunc($1 / width)');
  return Function('c', 'width', 'n', `return (${js});`) as (c: number, width: number, n: number) => number;
}

/** Both evaluations of a form for every channel at `width`; returns each channel's distinct list. */
function evaluate(items: string[], width: number, n: number): number[][] {
  const compiled = items.map((t) => compileSpl(t));
  const js = items.map(jsFunction);
  return Array.from({ length: width }, (_, c) => {
    const ours = compiled.map((f) => f({ channel: c, width, nPartitions: n }));
    expect(ours).toEqual(js.map((f) => f(c, width, n)));
    return distinct(ours);
  });
}

/** The `partition:` expressions of the @parallel consumer in emitted SPL. */
function parallelLine(spl: string): string[] | null {
  const at = spl.indexOf('@parallel (width');
  if (at < 0) return null;
  return splitTop(/partition: (.*);/.exec(spl.slice(at))![1]!);
}

/** Splits at top-level commas (list literals contain commas too). */
function splitTop(line: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === '[' || ch === '(') depth++;
    else if (ch === ']' || ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(line.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(line.slice(start).trim());
  return out;
}

const planArb = fc
  .record({
    n: fc.integer({ min: 1, max: 90 }),
    w: fc.integer({ min: 1, max: 30 }),
    strategy: fc.constantFrom(...STRATEGIES),
    topic: fc.string({ minLength: 1, maxLength: 6 }),
    grow: fc.constantFrom(0, 2, 3, 'move' as const),
  })
  .map(({ n, w, strategy, topic, grow }) => {
    const plan = planChannels({ partitions: n, width: w, strategy, topic });
    if (grow === 0) return plan;
    if (grow === 'move') return expandPlan(plan, n + 1 + (n % 5), { allowKeyMovement: true }).plan;
    return expandPlan(plan, n * grow).plan;
  });

describe('a getChannel() form for every layout (issue 13, item 5)', () => {
  it('12 partitions on 5 channels: a ternary form, evaluated for every channel', () => {
    const plan = planChannels({ partitions: 12, width: 5 });
    const items = parallelLine(emitSpl(plan))!;
    expect(items).toEqual([
      'getChannel() * 2 + (getChannel() < 2 ? getChannel() : 2)',
      'getChannel() * 2 + (getChannel() < 2 ? getChannel() : 2) + 1',
      'getChannel() * 2 + (getChannel() < 2 ? getChannel() : 2) + (getChannel() < 2 ? 2 : 0)',
    ]);
    expect(evaluate(items, 5, 12)).toEqual(lists(plan));
  });

  it('a custom plan gets an indexed list literal', () => {
    const x = expandPlan(planChannels({ partitions: 6, width: 3 }), 9, { allowKeyMovement: true }).plan;
    const items = parallelLine(emitSpl(x))!;
    expect(items[0]).toMatch(/^\[[\d, ]+\]\[getChannel\(\)\]$/);
    expect(evaluate(items, 3, 9)).toEqual(lists(x));
  });

  it('every plan without idle channels gets a form that reproduces it; the document forms stay as they were', () => {
    fc.assert(
      fc.property(planArb, fc.boolean(), (plan, fixedArity) => {
        const spl = emitSpl(plan, { fixedArity });
        const items = parallelLine(spl);
        const idle = lists(plan).some((l) => l.length === 0);
        expect(items === null).toBe(idle);
        if (items === null) expect(spl).toMatch(/No form for a parallel region: .*(has no partition|more than the)/);
        else expect(evaluate(items, plan.width, plan.partitions)).toEqual(lists(plan));
      }),
      { numRuns: 250 },
    );
    expect(parallelLine(emitSpl(planChannels({ partitions: 6, width: 3 })))).toEqual(['getChannel() * 2', 'getChannel() * 2 + 1']);
    expect(parallelLine(emitSpl(planChannels({ partitions: 5, width: 3 })))).toEqual(['getChannel() * 2', 'getChannel() * 2 + ((getChannel() * 2 + 1) > 4 ? 0 : 1)']);
    expect(parallelLine(emitSpl(planChannels({ partitions: 3, width: 3 })))).toEqual(['getChannel()']);
  });

  it('a form is never left out silently: each omission says why', () => {
    const idle = emitSpl(planChannels({ partitions: 2, width: 3 }));
    expect(idle).toContain('// No form for a parallel region: width 3 is more than the 2 partitions');
    const long = planChannels({ partitions: 3000, width: 2 });
    expect(parallelForm(long)).toEqual({ omitted: `each channel would list 1500 partition expressions, more than the ${MAX_FORM_ARITY} this form allows; use the manual invocation` });
    expect(emitSpl(long)).toContain('// No form for a parallel region: each channel would list 1500 partition expressions');
  });

  it('with one partition and padding, the document writes 0, 0 (--fixed-arity)', () => {
    const spl = emitSpl(planChannels({ partitions: 1, width: 1 }), { fixedArity: true });
    expect(spl).toContain('        partition: 0, 0;');
    expect(parallelLine(spl)).toEqual(['getChannel()', 'getChannel()']);
    expect(emitSpl(planChannels({ partitions: 5, width: 3 }), { fixedArity: true })).toContain('        partition: 4, 4;');
    expect(emitSpl(planChannels({ partitions: 1, width: 1 }))).toContain('        partition: 0;');
    expect(emitSpl(planChannels({ partitions: 5, width: 3 }), { arity: 4 })).toContain('        partition: 4, 4, 4, 4;');
    expect(caught(() => emitSpl(planChannels({ partitions: 5, width: 3 }), { arity: 1 })).code).toBe('E_USAGE');
  });
});

describe("the document's composites (issue 13, item 4)", () => {
  it('2-to-1: TwoPartitionConsumer with $partition1, $partition2; manual invocations padded like 4, 4', () => {
    const spl = emitSpl(planChannels({ partitions: 5, width: 3, topic: 'myTopic' }), { composite: true });
    expect(spl).toContain('public composite TwoPartitionConsumer {');
    expect(spl).toContain('    expression <int32> $partition1;\n    expression <int32> $partition2;');
    expect(spl).toContain('            partition: $partition1, $partition2;');
    expect(spl).toContain('    @parallel (width = 3)\n    () as PartitionChannel = TwoPartitionConsumer() {');
    expect(spl).toContain('            partition1: getChannel() * 2;\n            partition2: getChannel() * 2 + ((getChannel() * 2 + 1) > 4 ? 0 : 1);');
    expect(spl).toContain('    () as Channel2 = TwoPartitionConsumer() {\n        param\n            topic: "myTopic";\n            partition1: 4;\n            partition2: 4;');
    expect(spl).toContain('public composite Assigned5Partitions {');
    expect(spl).toContain('public composite Assigned5PartitionsManual {');
  });

  it('1-to-1: SinglePartitionConsumer with $partition (partition: getChannel())', () => {
    const spl = emitSpl(planChannels({ partitions: 3, width: 3 }), { composite: true });
    expect(spl).toContain('public composite SinglePartitionConsumer {');
    expect(spl).toContain('            partition: getChannel();');
  });

  it('k-ary: one parameter per entry, every invocation evaluated', () => {
    fc.assert(
      fc.property(planArb, (plan) => {
        if (lists(plan).some((l) => l.length === 0)) return;
        const spl = emitSpl(plan, { composite: true });
        const k = Math.max(...lists(plan).map((l) => l.length));
        const name = k === 1 ? 'SinglePartitionConsumer' : k === 2 ? 'TwoPartitionConsumer' : `PartitionConsumer${k}`;
        expect(spl).toContain(`public composite ${name} {`);
        const main = spl.slice(spl.indexOf('() as PartitionChannel'));
        const items = [...main.slice(0, main.indexOf('config')).matchAll(/ partition\d*: (.*);/g)].map((m) => m[1]!);
        expect(items.length).toBe(k);
        expect(evaluate(items, plan.width, plan.partitions)).toEqual(lists(plan));
        const manual = spl.slice(spl.indexOf('Manual {'));
        const perChannel = manual.split('() as Channel').slice(1).map((b) => distinct([...b.matchAll(/ partition\d*: (\d+);/g)].map((m) => Number(m[1]))));
        expect(perChannel).toEqual(lists(plan));
      }),
      { numRuns: 100 },
    );
  });

  it('a composite cannot take more than the limit of parameters: refused with the reason', () => {
    expect(caught(() => emitSpl(planChannels({ partitions: 3000, width: 1 }), { composite: true })).message).toMatch(/more than the 1024 a generated composite may take/);
  });
});

describe('submission-time width with a guard (issue 13, item 2)', () => {
  it('12 partitions, width 5: $nPartitions and $width from getSubmissionTimeValue, a guard, widths 4 to 12', () => {
    const spl = emitSpl(planChannels({ partitions: 12, width: 5, topic: 'orders' }), { submissionTime: true });
    expect(spl).toContain('    expression <int32> $nPartitions: (int32) getSubmissionTimeValue("nPartitions", "12");');
    expect(spl).toContain('    expression <int32> $width: (int32) getSubmissionTimeValue("width", "5");');
    expect(spl).toContain('    @parallel (width = $width)\n    () as PartitionChannel = PartitionConsumer3() {');
    expect(spl).toContain('                if ($nPartitions != 12) {');
    expect(spl).toContain('                if ($width < 4 || $width > 12) {');
    expect(spl.match(/abort\(\);/g)).toHaveLength(2);
    expect(spl).toContain('evaluated for every channel at every width from 4 to 12');
  });

  it('serves every width it claims, for every strategy and for folded plans (checked against a fresh plan per width)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 30 }),
        fc.constantFrom(...STRATEGIES),
        fc.string({ minLength: 1, maxLength: 6 }),
        fc.constantFrom(1, 2, 3),
        (n, w0, strategy, topic, folds) => {
          const w = Math.min(w0, n);
          const base = planChannels({ partitions: n, width: w, strategy, topic });
          const plan = folds === 1 ? base : expandPlan(base, n * folds).plan;
          const form = submissionForm(plan);
          if ('omitted' in form) throw new Error(form.omitted);
          expect(form.lowWidth).toBeLessThanOrEqual(w);
          expect(form.highWidth).toBe(n);
          for (let wd = form.lowWidth; wd <= form.highWidth; wd++) {
            const fresh = planChannels({ partitions: n, width: wd, strategy, topic });
            const want = folds === 1 ? fresh : expandPlan(fresh, n * folds).plan;
            expect(evaluate(form.items, wd, plan.partitions)).toEqual(lists(want));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('--min-width widens the range; a custom plan is refused with the reason', () => {
    const form = submissionForm(planChannels({ partitions: 12, width: 6 }), 3);
    expect('items' in form && [form.lowWidth, form.highWidth, form.items.length]).toEqual([3, 12, 4]);
    const custom = expandPlan(planChannels({ partitions: 6, width: 3 }), 9, { allowKeyMovement: true }).plan;
    expect(caught(() => emitSpl(custom, { submissionTime: true })).message).toMatch(/no submission-time form for this plan: a custom plan has lists for its own width only/);
  });
});

describe('consistent regions, the JobControlPlane and groupId (issue 13, item 3)', () => {
  const plan = planChannels({ partitions: 6, width: 3, topic: 'myTopic' });

  it('operator driven: one region per channel, triggerCount in every consumer, one JobControlPlane', () => {
    const spl = emitSpl(plan, { consistentRegion: 'operatorDriven', groupId: 'g1' });
    expect(spl.match(/\(\) as JCP = JobControlPlane\(\) \{\}/g)).toHaveLength(1);
    expect(spl.match(/@consistent \(trigger = operatorDriven\)\n/g)).toHaveLength(1 + 3);
    expect(spl.match(/KafkaConsumer\(\)/g)).toHaveLength(4);
    expect(spl.match(/        triggerCount: 1000;/g)).toHaveLength(4);
    expect(spl.match(/        groupId: "g1";/g)).toHaveLength(4);
  });

  it('periodic, with the document period; composites put the JobControlPlane in each main composite', () => {
    const spl = emitSpl(plan, { consistentRegion: 'periodic', composite: true });
    expect(spl.match(/@consistent \(trigger = periodic, period = 60\.0\)/g)).toHaveLength(1 + 3);
    expect(spl).not.toContain('triggerCount');
    expect(spl.match(/JobControlPlane/g)).toHaveLength(2);
    const driven = emitSpl(plan, { consistentRegion: 'operatorDriven', composite: true, triggerCount: 500 });
    expect(driven.match(/            triggerCount: 500;/g)).toHaveLength(1);
    const sub = emitSpl(plan, { consistentRegion: 'operatorDriven', submissionTime: true });
    expect(sub).toContain('    @consistent (trigger = operatorDriven)\n    @parallel (width = $width)');
  });
});
