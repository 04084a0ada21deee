// docs/channels.md shows a worked example of each SPL form (issue 13, "done
// when"). Each `<!-- example: COMMAND -->` block must be what the command prints
// now (a contiguous part of it), and every getChannel() form in it must give
// every channel exactly its partitions when evaluated, at every width it serves.
// Runs the built CLI (npm run build first).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { planChannels, channelPartitions, expandPlan, type ChannelPlan } from '../../src/channels/index.js';
import type { Strategy } from '../../src/channels/plan.js';
import { compileSpl } from '../../src/channels/spl-eval.js';
import { ROOT, cli } from '../helpers.js';

const doc = readFileSync(join(ROOT, 'docs/channels.md'), 'utf8');
const examples = [...doc.matchAll(/<!-- example: (.*?) -->\n```[a-z]*\n([\s\S]*?)```\n/g)].map((m) => ({ command: m[1]!, block: m[2]! }));

/** Runs `channels ... | channels ...` as the shell would. */
function run(command: string): string {
  let input: string | undefined;
  for (const part of command.split(' | ')) {
    const args = part.trim().split(' ');
    const r = cli(args, input);
    expect(r.status === 0 || r.status === 1, `${part}: ${r.stderr}`).toBe(true);
    input = r.stdout;
  }
  return input!;
}

/** The plan behind an SPL command: the same command printing JSON. */
function planOf(command: string): ChannelPlan {
  const json = JSON.parse(run(command.replace(/ --emit spl.*$/, ''))) as { strategy: Strategy | 'custom'; topic: string | null; partitions: number; basePartitions: number; width: number; channels: { partitions: number[] }[] };
  return {
    strategy: json.strategy,
    topic: json.topic,
    partitions: json.partitions,
    basePartitions: json.basePartitions,
    width: json.width,
    channelOf: new Int32Array(0),
    offsets: Int32Array.from(json.channels.reduce<number[]>((o, c) => [...o, o[o.length - 1]! + c.partitions.length], [0])),
    members: Int32Array.from(json.channels.flatMap((c) => c.partitions)),
    warnings: [],
  };
}

const lists = (plan: ChannelPlan): number[][] => Array.from({ length: plan.width }, (_, c) => Array.from(channelPartitions(plan, c)));

/** The entries of the @parallel invocation: `partition: a, b;` or `partition1: a; partition2: b;`. */
function parallelItems(block: string): string[] {
  const at = block.indexOf('@parallel (width');
  const body = block.slice(at, block.indexOf('config placement', at));
  const one = /\n\s+partition: (.*);/.exec(body);
  if (one !== null) return splitTop(one[1]!);
  return [...body.matchAll(/\n\s+partition\d+: (.*);/g)].map((m) => m[1]!);
}

function splitTop(line: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    if ('[('.includes(line[i]!)) depth++;
    else if ('])'.includes(line[i]!)) depth--;
    else if (line[i] === ',' && depth === 0) {
      out.push(line.slice(start, i).trim());
      start = i + 1;
    }
  }
  return [...out, line.slice(start).trim()];
}

function evaluate(items: string[], width: number, n: number): number[][] {
  const fs = items.map((t) => compileSpl(t));
  return Array.from({ length: width }, (_, c) => [...new Set(fs.map((f) => f({ channel: c, width, nPartitions: n })))].sort((a, b) => a - b));
}

describe('docs/channels.md worked examples', () => {
  it('has an example of every SPL form', () => {
    const all = examples.map((e) => e.block).join('\n');
    for (const form of ['getChannel() < 2 ? getChannel() : 2', '][getChannel()]', 'partition: 0, 0;', 'public composite TwoPartitionConsumer', 'getSubmissionTimeValue("nPartitions"', 'abort();', '@consistent (trigger = operatorDriven)', 'JobControlPlane', 'groupId:']) {
      expect(all, form).toContain(form);
    }
  });

  for (const { command, block } of examples) {
    it(command, () => {
      expect(run(command)).toContain(block);
      if (!block.includes('@parallel (width')) return;
      const plan = planOf(command);
      const items = parallelItems(block);
      const sub = /any width from (\d+) to (\d+)/.exec(block);
      if (sub === null) {
        expect(evaluate(items, plan.width, plan.partitions)).toEqual(lists(plan));
        return;
      }
      for (let w = Number(sub[1]); w <= Number(sub[2]); w++) {
        const fresh = planChannels({ partitions: plan.basePartitions, width: w, strategy: plan.strategy as Strategy, ...(plan.topic !== null ? { topic: plan.topic } : {}) });
        const want = plan.basePartitions === plan.partitions ? fresh : expandPlan(fresh, plan.partitions).plan;
        expect(evaluate(items, w, plan.partitions)).toEqual(lists(want));
      }
    });
  }
});
