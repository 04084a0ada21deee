import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { emitSpl, expandPlan, planChannels, channelPartitions, type ChannelPlan } from '../../src/channels/index.js';
import { STRATEGIES } from '../../src/channels/plan.js';

/** The `partition:` line of the @parallel form, or null. */
function parallelLine(spl: string): string | null {
  const at = spl.indexOf('@parallel');
  if (at < 0) return null;
  return /partition: (.*);/.exec(spl.slice(at))![1]!;
}

/** Evaluates the emitted SPL expressions for channel c (the operators used are also JS operators). */
function evalFor(line: string, c: number): number[] {
  return line.split(', ').map((e) => Function(`return (${e.replaceAll('getChannel()', String(c))});`)() as number);
}

function manualLists(spl: string): number[][] {
  const manual = spl.slice(spl.indexOf('// Manual invocation'));
  return [...manual.matchAll(/partition: (.*);/g)].map((m) => m[1]!.split(', ').map(Number));
}

const lists = (plan: ChannelPlan): number[][] => Array.from({ length: plan.width }, (_, c) => Array.from(channelPartitions(plan, c)));

describe('emitSpl', () => {
  it('the document 1-to-1 form', () => {
    const spl = emitSpl(planChannels({ partitions: 3, width: 3, topic: 'myTopic' }));
    expect(parallelLine(spl)).toBe('getChannel()');
    expect(spl).toContain('@parallel (width = 3)');
    expect(spl).toContain('topic: "myTopic";');
  });

  it('the document 2-to-1 forms, six and five partitions, with `4, 4` under fixed arity', () => {
    expect(parallelLine(emitSpl(planChannels({ partitions: 6, width: 3 })))).toBe('getChannel() * 2, getChannel() * 2 + 1');
    const five = emitSpl(planChannels({ partitions: 5, width: 3 }), { fixedArity: true });
    expect(parallelLine(five)).toBe('getChannel() * 2, getChannel() * 2 + ((getChannel() * 2 + 1) > 4 ? 0 : 1)');
    expect(manualLists(five)).toEqual([[0, 1], [2, 3], [4, 4]]);
    expect(manualLists(emitSpl(planChannels({ partitions: 5, width: 3 })))).toEqual([[0, 1], [2, 3], [4]]);
  });

  it('k-to-1: 12 partitions on 4 channels', () => {
    expect(parallelLine(emitSpl(planChannels({ partitions: 12, width: 4 })))).toBe('getChannel() * 3, getChannel() * 3 + 1, getChannel() * 3 + 2');
  });

  it('the @parallel expressions and the manual lists reproduce the plan, for every strategy', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 1, max: 30 }), fc.constantFrom(...STRATEGIES), fc.string({ minLength: 1, maxLength: 8 }), fc.boolean(), (n, w, strategy, topic, fixedArity) => {
        const plan = planChannels({ partitions: n, width: w, strategy, topic });
        const spl = emitSpl(plan, { fixedArity });
        const want = lists(plan);
        const busy = want.filter((l) => l.length > 0);
        const manual = manualLists(spl);
        expect(manual.map((l) => [...new Set(l)].sort((a, b) => a - b))).toEqual(busy);
        if (fixedArity) expect(new Set(manual.map((l) => l.length)).size).toBe(1);
        const line = parallelLine(spl);
        // Every layout without idle channels has a form (issue 13: 12 partitions on 5 channels used to get none).
        expect(line !== null).toBe(w <= n);
        if (line !== null) for (let c = 0; c < w; c++) expect([...new Set(evalFor(line, c))].sort((a, b) => a - b)).toEqual(want[c]);
      }),
      { numRuns: 300 },
    );
  });

  it('folded plans get an expression too (base expression + j * base)', () => {
    const x = expandPlan(planChannels({ partitions: 6, width: 3 }), 12).plan;
    const line = parallelLine(emitSpl(x))!;
    expect(line).toBe('getChannel() * 2, getChannel() * 2 + 1, getChannel() * 2 + 6, getChannel() * 2 + 1 + 6');
    for (let c = 0; c < 3; c++) expect(evalFor(line, c).sort((a, b) => a - b)).toEqual(lists(x)[c]);
  });

  it('idle channels get no consumer, with the reason', () => {
    const spl = emitSpl(planChannels({ partitions: 2, width: 3 }));
    expect(spl).toContain('// channel 2: no partition');
    expect(parallelLine(spl)).toBeNull();
  });
});
