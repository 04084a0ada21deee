// Runs the built binary (dist/cli/main.js) as a user would. Build first:
// npm run build:wasm && npx tsc -p tsconfig.json; node scripts/post-build.mjs
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers.js';

let dir: string;
const file = (name: string, content: unknown): string => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'assignor-channels-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('assignor channels plan', () => {
  it('json by default: the document layout for 5 partitions, width 3', () => {
    const r = cli(['channels', 'plan', '--partitions', '5', '--width', '3']);
    expect(r.status).toBe(0);
    const plan = JSON.parse(r.stdout);
    expect(plan).toMatchObject({ format: 'assignor-channel-plan', version: 1, strategy: 'contiguous', partitions: 5, basePartitions: 5, width: 3, topic: null });
    expect(plan.channels).toEqual([
      { channel: 0, partitions: [0, 1] },
      { channel: 1, partitions: [2, 3] },
      { channel: 2, partitions: [4] },
    ]);
  });

  it('table: one row per channel with ranges', () => {
    const r = cli(['channels', 'plan', '--partitions', '20', '--width', '3', '--emit', 'table', '--topic', 'orders']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        'topic orders: 20 partitions, width 3, strategy contiguous',
        'channel  count  partitions',
        '      0      7  0-6',
        '      1      7  7-13',
        '      2      6  14-19',
        '',
      ].join('\n'),
    );
  });

  it('spl with fixed arity pads like the document (4, 4)', () => {
    const r = cli(['channels', 'plan', '--partitions', '5', '--width', '3', '--emit', 'spl', '--fixed-arity', '--topic', 'myTopic']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('partition: 4, 4;');
    expect(r.stdout).toContain('partition: getChannel() * 2, getChannel() * 2 + ((getChannel() * 2 + 1) > 4 ? 0 : 1);');
  });

  it('flink and round-robin, every engine gives the same plan', () => {
    const outs = ['reference', 'wasm-scalar', 'wasm-simd'].map((e) => cli(['channels', 'plan', '--partitions', '100', '--width', '7', '--strategy', 'flink', '--topic', 'clicks', '--engine', e]).stdout);
    expect(new Set(outs).size).toBe(1);
    expect(JSON.parse(outs[0]!).startIndex).toBeTypeOf('number');
    const rr = JSON.parse(cli(['channels', 'plan', '--partitions', '4', '--width', '2', '--strategy', 'round-robin']).stdout);
    expect(rr.channels.map((c: { partitions: number[] }) => c.partitions)).toEqual([[0, 2], [1, 3]]);
  });

  it('bad input: one line on stderr naming the option, exit 2', () => {
    for (const args of [
      ['--partitions', '0', '--width', '3'],
      ['--partitions', '6'],
      ['--partitions', '6', '--width', '2', '--strategy', 'hash'],
      ['--partitions', '6', '--width', '2', '--strategy', 'flink'],
      ['--partitions', '6', '--width', '2', '--emit', 'xml'],
      ['--partitions', '6', '--width', '2', 'extra'],
    ]) {
      const r = cli(['channels', 'plan', ...args]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^assignor: /);
    }
    expect(cli(['channels', 'plan', '--partitions', '0', '--width', '3']).stderr).toMatch(/--partitions/);
  });
});

describe('assignor channels validate', () => {
  it('sound plan: exit 0', () => {
    const plan = file('sound.json', { channels: [[0, 1], [2, 3], [4, 4]] });
    const r = cli(['channels', 'validate', plan, '--partitions', '5']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^SOUND: /);
  });

  it('missing and duplicated partitions: exit 1 with a report', () => {
    const plan = file('bad.json', { channels: [{ partitions: [0, 1] }, { partitions: [1, 2] }, { partitions: [9] }] });
    const r = cli(['channels', 'validate', plan, '--partitions', '4', '--emit', 'json']);
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      format: 'assignor-channel-validation',
      sound: false,
      missing: [3],
      duplicated: [{ partition: 1, channels: [0, 1] }],
      outOfRange: [{ channel: 2, index: 0, partition: 9 }],
      idleChannels: [2],
    });
    const t = cli(['channels', 'validate', plan, '--partitions', '4']);
    expect(t.status).toBe(1);
    expect(t.stdout).toMatch(/^UNSOUND: /);
    expect(t.stdout).toMatch(/missing\s+3/);
  });

  it('idle channels alone are a warning: exit 0', () => {
    const r = cli(['channels', 'validate', file('idle.json', { channels: [[0, 1], []] }), '--partitions', '2']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/idle\s+channels 1/);
  });

  it('malformed plan: exit 2 naming the place', () => {
    const plan = file('malformed.json', { channels: [{ partitions: [0] }, { partitions: [1] }, { partitions: [2] }, { partitions: [3, 4, '5'] }] });
    const r = cli(['channels', 'validate', plan, '--partitions', '6']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('channels[3].partitions[2]');
    const notJson = cli(['channels', 'validate', file('x.json', '{"channels": [[0,'), '--partitions', '2']);
    expect(notJson.status).toBe(2);
    expect(notJson.stderr).toMatch(/not valid JSON/);
    expect(cli(['channels', 'validate', join(dir, 'nope.json'), '--partitions', '2']).status).toBe(2);
    expect(cli(['channels', 'validate', plan]).stderr).toMatch(/--partitions is required/);
    for (const cmd of ['validate', 'expand']) {
      const empty = cli(['channels', cmd, '', '--partitions', '6']);
      expect(empty.status).toBe(2);
      expect(empty.stderr).toBe(`assignor: channels ${cmd} needs a PLAN.json file name, got an empty string\n`);
    }
  });
});

describe('assignor channels expand', () => {
  it('4 -> 8 -> 12 through files keeps the base and every key', () => {
    const p4 = file('p4.json', cli(['channels', 'plan', '--partitions', '4', '--width', '2']).stdout);
    const r8 = cli(['channels', 'expand', p4, '--partitions', '8']);
    expect(r8.status).toBe(0);
    const p8 = JSON.parse(r8.stdout);
    expect(p8).toMatchObject({ partitions: 8, basePartitions: 4, expansion: { from: 4, to: 8, keepsEveryKey: true, moved: [] } });
    expect(p8.channels.map((c: { partitions: number[] }) => c.partitions)).toEqual([[0, 1, 4, 5], [2, 3, 6, 7]]);
    const r12 = cli(['channels', 'expand', file('p8.json', r8.stdout), '--partitions', '12', '--emit', 'table']);
    expect(r12.status).toBe(0);
    expect(r12.stdout).toContain('      0      6  0,1,4,5,8,9');
  });

  it('refuses a key-moving count (exit 2) unless --allow-key-movement', () => {
    const p6 = file('p6.json', cli(['channels', 'plan', '--partitions', '6', '--width', '3']).stdout);
    const refused = cli(['channels', 'expand', p6, '--partitions', '9']);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/6 or 12/);
    expect(refused.stderr).toMatch(/--allow-key-movement/);
    const ok = cli(['channels', 'expand', p6, '--partitions', '9', '--allow-key-movement']);
    expect(ok.status).toBe(0);
    const j = JSON.parse(ok.stdout);
    expect(j).toMatchObject({ partitions: 9, basePartitions: 9, strategy: 'custom', expansion: { keepsEveryKey: false } });
    expect(j.expansion.keysChangingChannel).toBeGreaterThan(0);
    // The table and SPL forms say it once (it used to be printed as a heading and again as a warning).
    for (const emit of ['table', 'spl']) {
      const out = cli(['channels', 'expand', p6, '--partitions', '9', '--allow-key-movement', '--emit', emit]).stdout;
      expect(out.split(j.expansion.summary).length - 1).toBe(1);
    }
    const kept = cli(['channels', 'expand', p6, '--partitions', '12', '--emit', 'table']).stdout;
    expect(kept.startsWith('6 -> 12 partitions, width 3: 12 is a multiple of the base 6')).toBe(true);
  });

  it('help', () => {
    const r = cli(['channels', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/channels plan --partitions N --width W/);
    // No command is a usage error: exit 2 with its one line on stderr (issue 14, defect 6).
    const none = cli(['channels']);
    expect(none.status).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe('assignor: channels needs a subcommand: plan, validate, expand or rewidth (see assignor channels --help)\n');
  });
});
