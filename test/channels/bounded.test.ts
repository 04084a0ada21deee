// Issue 25: outputs bounded by the partitions, not by the width. A plan of 1,000
// partitions on 67 million channels used to print 67 million idle channels as
// JSON (2.8 GB, 20 s). Now a run of idle channels is one entry
// (`{"channel": a, "lastChannel": b, "partitions": []}`, plan version 2), the
// validation report writes it as [a, b], and every command reads such plans (and
// old ones, one entry per channel) to the same result. Runs the built CLI.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { channelPartitions, expandPlan, planChannels, planToJson, rewidthPlan, validatePlan, type ChannelPlan } from '../../src/channels/index.js';
import { readPlan } from '../../src/channels/json.js';
import { STRATEGIES } from '../../src/channels/plan.js';
import { CLI, ROOT, cli } from '../helpers.js';

const WIDE = 1 << 26;
/** The most a wide run may take: measured 2.8-3.5 s on the shared 2-core machine at load 10-12 (it was 16-20 s). */
const TIME_BOUND_MS = 12_000;
const dir = mkdtempSync(join(tmpdir(), 'assignor-bounded-'));

/** Runs the CLI with its stdout counted, not kept: size, the last bytes, elapsed ms. */
function measured(args: string[]): { status: number | null; size: number; head: string; tail: string; ms: number; stderr: string } {
  const t = Date.now();
  const r = spawnSync(process.execPath, [CLI, ...args, '--no-progress'], { cwd: ROOT, encoding: 'buffer', maxBuffer: 64 << 20, timeout: 60_000 });
  const out = r.stdout ?? Buffer.alloc(0);
  return { status: r.status, size: out.length, head: out.subarray(0, 600).toString(), tail: out.subarray(-300).toString(), ms: Date.now() - t, stderr: r.stderr.toString() };
}

const lists = (plan: ChannelPlan): number[][] => Array.from({ length: plan.width }, (_, c) => Array.from(channelPartitions(plan, c)));

/** The plan JSON as version 1 wrote it: one entry per channel. */
function oldJson(plan: ChannelPlan): object {
  const { channels: _collapsed, ...rest } = planToJson(plan);
  return { ...rest, version: 1, channels: lists(plan).map((partitions, channel) => ({ channel, partitions })) };
}

describe('channel outputs are bounded by the partitions, not the width (issue 25)', () => {
  it(`plan --partitions 1000 --width ${WIDE} --emit json: idle channels as one entry, in seconds`, () => {
    const r = measured(['channels', 'plan', '--partitions', '1000', '--width', String(WIDE), '--emit', 'json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.size).toBeLessThan(100 * 1000);
    expect(r.ms).toBeLessThan(TIME_BOUND_MS);
    expect(r.head).toContain('"version": 2,');
    expect(r.tail).toContain(`    {"channel":999,"partitions":[999]},\n    {"channel":1000,"lastChannel":${WIDE - 1},"partitions":[]}\n  ]\n}\n`);
  });

  it(`plan --partitions 1000 --width ${WIDE} as table and spl: a few rows, in seconds`, () => {
    for (const emit of ['table', 'spl']) {
      const r = measured(['channels', 'plan', '--partitions', '1000', '--width', String(WIDE), '--emit', emit]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.size, emit).toBeLessThan(300 * 1000);
      expect(r.ms, emit).toBeLessThan(TIME_BOUND_MS);
    }
  });

  it('validate, expand and rewidth of that plan: bounded outputs, in seconds', () => {
    const plan = join(dir, 'wide.json');
    writeFileSync(plan, cli(['channels', 'plan', '--partitions', '1000', '--width', String(WIDE)]).stdout);
    const v = measured(['channels', 'validate', plan, '--partitions', '1000', '--emit', 'json']);
    expect(v.status, v.stderr).toBe(0);
    expect(v.size).toBeLessThan(1000);
    expect(v.head).toContain('"version": 2,');
    expect(v.head).toContain(`"idleChannels": [[1000,${WIDE - 1}]],`);
    expect(v.head).toContain(`${WIDE - 1000} idle channel(s) (1000-${WIDE - 1})`);
    const vt = measured(['channels', 'validate', plan, '--partitions', '1000']);
    expect(vt.head).toContain(`idle         channels 1000-${WIDE - 1}`);
    for (const args of [
      ['expand', plan, '--partitions', '2000'],
      ['expand', plan, '--partitions', '2000', '--emit', 'table'],
      ['rewidth', plan, '--width', '1000'],
      ['rewidth', plan, '--width', '1000', '--emit', 'table'],
    ]) {
      const r = measured(['channels', ...args]);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.size, args.join(' ')).toBeLessThan(200 * 1000);
      expect(r.ms, args.join(' ')).toBeLessThan(TIME_BOUND_MS);
    }
    const x = measured(['channels', 'expand', plan, '--partitions', '2000']);
    expect(x.tail).toContain(`{"channel":1000,"lastChannel":${WIDE - 1},"partitions":[]}\n  ]\n}\n`);
  });

  it(`rewidth of a small plan to width ${WIDE}: bounded, in seconds`, () => {
    const plan = join(dir, 'small.json');
    writeFileSync(plan, cli(['channels', 'plan', '--partitions', '1000', '--width', '10']).stdout);
    for (const emit of ['json', 'table', 'spl']) {
      const r = measured(['channels', 'rewidth', plan, '--width', String(WIDE), '--emit', emit]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.size, emit).toBeLessThan(400 * 1000);
      expect(r.ms, emit).toBeLessThan(TIME_BOUND_MS);
    }
  });

  it(`the planner itself at ${WIDE} partitions on ${WIDE} channels takes seconds (the output is one line per partition)`, () => {
    const t = Date.now();
    const plan = planChannels({ partitions: WIDE, width: WIDE });
    expect(Date.now() - t).toBeLessThan(TIME_BOUND_MS);
    expect(plan.channelOf[WIDE - 1]).toBe(WIDE - 1);
  });
});

describe('the plan format with idle runs reads back as before (issue 25)', () => {
  const wide = fc
    .record({ n: fc.integer({ min: 1, max: 40 }), extra: fc.integer({ min: 0, max: 60 }), strategy: fc.constantFrom(...STRATEGIES) })
    .map(({ n, extra, strategy }) => planChannels({ partitions: n, width: n + extra, strategy, topic: 't' }));

  it('planToJson writes runs of two or more idle channels as one entry, and version 2 only then', () => {
    fc.assert(
      fc.property(wide, (plan) => {
        const json = planToJson(plan);
        const runs = json.channels.filter((c) => c.lastChannel !== undefined);
        expect(json.version).toBe(runs.length > 0 ? 2 : 1);
        expect(json.channels.length).toBeLessThanOrEqual(2 * plan.partitions + 1);
        for (const r of runs) expect(r.lastChannel! > r.channel && r.partitions.length === 0).toBe(true);
        const read = readPlan(json);
        expect(read.width).toBe(plan.width);
        expect(Array.from(read.start)).toEqual(Array.from(plan.offsets));
        expect(Array.from(read.entryPartition)).toEqual(Array.from(plan.members));
      }),
      { numRuns: 200 },
    );
  });

  it('validate, expand and rewidth give the same answers from new plans and old ones (one entry per channel)', () => {
    fc.assert(
      fc.property(wide, fc.integer({ min: 1, max: 50 }), (plan, w2) => {
        const fresh = planToJson(plan);
        const old = oldJson(plan);
        expect(validatePlan(fresh, plan.partitions)).toEqual(validatePlan(old as typeof fresh, plan.partitions));
        const a = expandPlan(fresh, plan.partitions * 2).plan;
        const b = expandPlan(old as typeof fresh, plan.partitions * 2).plan;
        expect(lists(a)).toEqual(lists(b));
        expect(lists(rewidthPlan(fresh, w2).plan)).toEqual(lists(rewidthPlan(old as typeof fresh, w2).plan));
      }),
      { numRuns: 100 },
    );
  });

  it('an old plan file with one entry per idle channel still works on the CLI', () => {
    const file = join(dir, 'old.json');
    writeFileSync(file, JSON.stringify(oldJson(planChannels({ partitions: 2, width: 5 }))));
    const v = cli(['channels', 'validate', file, '--partitions', '2', '--emit', 'json']);
    expect(v.status).toBe(0);
    expect(JSON.parse(v.stdout)).toMatchObject({ version: 2, sound: true, idleChannels: [[2, 4]] });
    const x = cli(['channels', 'expand', file, '--partitions', '4']);
    expect(x.status).toBe(0);
    expect(JSON.parse(x.stdout).channels).toEqual([{ channel: 0, partitions: [0, 2] }, { channel: 1, partitions: [1, 3] }, { channel: 2, lastChannel: 4, partitions: [] }]);
  });

  it('a bad run of idle channels is one clear line naming its place', () => {
    const cases: [unknown, string][] = [
      [{ channels: [[0], { channel: 2, lastChannel: 3, partitions: [] }] }, 'channels[1].channel'],
      [{ channels: [[0], { channel: 1, lastChannel: 0, partitions: [] }] }, 'channels[1].lastChannel'],
      [{ channels: [[0], { channel: 1, lastChannel: 3, partitions: [1] }] }, 'channels[1].partitions'],
      [{ channels: [[0], { channel: 1, lastChannel: WIDE, partitions: [] }] }, 'channels[1].lastChannel'],
      [{ width: 3, channels: [[0], { channel: 1, lastChannel: 3, partitions: [] }] }, 'width'],
    ];
    for (const [plan, where] of cases) {
      const file = join(dir, 'bad.json');
      writeFileSync(file, JSON.stringify(plan));
      const r = cli(['channels', 'validate', file, '--partitions', '1']);
      expect(r.status, where).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(`(at ${where})`);
    }
  });
});
