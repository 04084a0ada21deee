// Issue 34: findings and refusals name the entry as the file has it (a run of idle channels is one
// entry, in version 2), the width warning speaks only when the width exceeds the partitions, and
// rewidth to the plan's own width follows the rule of every other width.
import { describe, expect, it } from 'vitest';
import { channelPartitions, expandPlan, planChannels, rewidthPlan, validatePlan, type ChannelPlan } from '../../src/channels/index.js';
import { caught, cli } from '../helpers.js';

const lists = (plan: ChannelPlan): number[][] => Array.from({ length: plan.width }, (_, c) => Array.from(channelPartitions(plan, c)));

/** Version 2: channels 1-5 idle as one entry, so the 7 is written at channels[2].partitions[1] (its channel is 6). */
const V2 = { partitions: 2, channels: [[0], { channel: 1, lastChannel: 5, partitions: [] }, [1, 7]] };
/** The same plan in version 1, one entry per channel: there the entry is the channel. */
const V1 = { partitions: 2, channels: [[0], [], [], [], [], [], [1, 7]] };
const text = (v: unknown): string => JSON.stringify(v);

describe('places in the file, for every plan version', () => {
  it('validate: the summary and the table name the entry as written; outOfRange keeps the channel', () => {
    const r = validatePlan(V2, 2);
    expect(r.outOfRange).toEqual([{ channel: 6, index: 1, partition: 7 }]);
    expect(r.summary).toContain('(e.g. 7 at channels[2].partitions[1])');
    expect(validatePlan(V1, 2).summary).toContain('(e.g. 7 at channels[6].partitions[1])');
    const table = cli(['channels', 'validate', '-', '--partitions', '2'], text(V2));
    expect(table.status).toBe(1);
    expect(table.stdout).toContain('out of range 7 at channels[2].partitions[1]');
    expect(table.stdout).not.toContain('channels[6]');
    const json = cli(['channels', 'validate', '-', '--partitions', '2', '--emit', 'json'], text(V2));
    expect(JSON.parse(json.stdout).summary).toContain('7 at channels[2].partitions[1]');
  });

  it('several runs before the entry, and an entry between them', () => {
    const plan = { channels: [{ channel: 0, lastChannel: 2, partitions: [] }, [0], { channel: 4, lastChannel: 9, partitions: [] }, { partitions: [9] }, [1]] };
    expect(validatePlan(plan, 2).summary).toContain('(e.g. 9 at channels[3].partitions[0])');
  });

  it('expand and rewidth refuse an unsound plan naming the same entry, from the API and the CLI', () => {
    for (const e of [caught(() => expandPlan(V2, 4)), caught(() => rewidthPlan(V2, 3))]) {
      expect(e.code).toBe('E_UNSOUND_PLAN');
      expect(e.message).toContain('7 at channels[2].partitions[1]');
    }
    for (const args of [['expand', '-', '--partitions', '4'], ['rewidth', '-', '--width', '3']]) {
      const r = cli(['channels', ...args], text(V2));
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('7 at channels[2].partitions[1]');
      expect(r.stderr).not.toContain('channels[6]');
    }
  });
});

describe('the width warning', () => {
  it('is silent about the width when the width is not more than the partitions (expand, versions 1 and 2)', () => {
    for (const plan of [{ partitions: 2, channels: [[0], [1], []] }, { partitions: 2, channels: [[0], { channel: 1, lastChannel: 2, partitions: [] }, [1]] }]) {
      const x = expandPlan(plan, 4);
      expect(x.plan.warnings.join(' ')).not.toMatch(/is more than the/);
      expect(x.plan.warnings.join(' ')).toMatch(/channels get no partition .*the layout gives them none/);
    }
    const r = cli(['channels', 'expand', '-', '--partitions', '4'], '{"partitions":2,"channels":[[0],[1],[]]}');
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain('more than the 4 partitions');
  });

  it('speaks when the width is more than the partitions', () => {
    expect(planChannels({ partitions: 2, width: 3 }).warnings.join(' ')).toContain('width 3 is more than the 2 partitions');
    expect(expandPlan({ partitions: 2, channels: [[0], [1], []] }, 2).plan.warnings.join(' ')).toContain('width 3 is more than the 2 partitions');
  });
});

describe('rewidth to the same width', () => {
  it('balances an unbalanced custom plan with the fewest moves, as any other width does', () => {
    const r = rewidthPlan({ partitions: 4, channels: [[0, 1, 2], [3], []] }, 3);
    expect(lists(r.plan)).toEqual([[0, 1], [3], [2]]);
    expect(Array.from(r.moved.partitions)).toEqual([2]);
    expect(lists(rewidthPlan({ partitions: 4, channels: [[0, 1, 2], [3], []] }, 4).plan).map((l) => l.length)).toEqual([1, 1, 1, 1]);
  });

  it('keeps a balanced plan as it is (nothing moves), custom or a strategy', () => {
    const custom = rewidthPlan({ partitions: 5, channels: [[4, 0], [1, 3], [2]] }, 3);
    expect(custom.moved.partitions.length).toBe(0);
    for (const strategy of ['contiguous', 'round-robin'] as const) {
      const plan = planChannels({ partitions: 10, width: 4, strategy });
      const r = rewidthPlan(plan, 4);
      expect(lists(r.plan)).toEqual(lists(plan));
      expect(r.moved.partitions.length).toBe(0);
    }
  });

  it('the CLI prints the balanced plan', () => {
    const r = cli(['channels', 'rewidth', '-', '--width', '3'], '{"partitions":4,"channels":[[0,1,2],[3],[]]}');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.channels.map((c: { partitions: number[] }) => c.partitions)).toEqual([[0, 1], [3], [2]]);
    expect(out.rewidth.partitionsChangingChannel).toBe(1);
  });
});
