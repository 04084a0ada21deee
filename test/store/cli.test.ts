// `assignor store ...` and the store options of `assignor samza plan`, run as a user would (the
// built dist/ binary: build first, see package.json pretest).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../helpers.js';
import { CoordinatorStore, STORE_LOG_FILE as LOG_FILE } from '../../src/store/index.js';
import { cleanupTempDirs, tempDir } from './helpers.js';

afterEach(() => cleanupTempDirs());

function jobFile(dir: string, partitions: number, extra: Record<string, string> = {}): string {
  const file = path.join(dir, `job-${partitions}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify({
      config: { 'task.inputs': 'kafka.PVE', 'job.container.count': '2', 'stores.s.factory': 'org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory', ...extra },
      partitions: { 'kafka.PVE': partitions },
    }),
  );
  return file;
}

const plan = (job: string, store: string, ...more: string[]) => cli(['samza', 'plan', '--job', job, '--store', store, ...more]);

describe('assignor store inspect / compact / export', () => {
  it('inspect shows records, live keys per type, size and last write, and never writes', () => {
    const dir = tempDir();
    const store = path.join(dir, 'store');
    expect(plan(jobFile(dir, 4), store).status).toBe(0);
    expect(plan(jobFile(dir, 8), store).status).toBe(0);
    const bytes = fs.readFileSync(path.join(store, LOG_FILE));
    const r = cli(['store', 'inspect', '--store', store]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`store ${store}`);
    expect(r.stdout).toContain('format       version 2');
    expect(r.stdout).toMatch(/records {6}\d+: \d+ live, \d+ overwritten, deleted or tombstones/);
    expect(r.stdout).toMatch(/"set-task-partition-assignment" +8 keys/);
    expect(r.stdout).toMatch(/last write   \d{4}-\d\d-\d\dT/);
    const j = JSON.parse(cli(['store', 'inspect', '--store', store, '--json']).stdout) as Record<string, unknown>;
    expect(j).toMatchObject({ formatVersion: 2, frames: 2, fileBytes: bytes.length, tornBytes: 0 });
    expect(j.types).toContainEqual({ type: 'set-task-partition-assignment', keys: 8 });
    expect(j.liveKeys).toBe((j.types as Array<{ keys: number }>).reduce((a, t) => a + t.keys, 0));
    expect(Date.parse(j.lastWrite as string)).toBeGreaterThan(Date.now() - 3_600_000);
    expect(fs.readFileSync(path.join(store, LOG_FILE)).equals(bytes)).toBe(true);
    expect(fs.readdirSync(store)).toEqual([LOG_FILE]);
  });

  it('compact keeps the state (export is identical) and shrinks a log of overwrites', () => {
    const dir = tempDir();
    const store = path.join(dir, 'store');
    for (let i = 0; i < 6; i++) expect(plan(jobFile(dir, 4, { 'job.container.count': String(1 + (i % 2)) }), store).status).toBe(0);
    const before = cli(['store', 'export', '--store', store]).stdout;
    const size = fs.statSync(path.join(store, LOG_FILE)).size;
    const r = cli(['store', 'compact', '--store', store]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^compacted .*: [\d,]+ -> [\d,]+ bytes, [\d,]+ -> [\d,]+ records \([\d,]+ live keys\)\n$/);
    expect(fs.statSync(path.join(store, LOG_FILE)).size).toBeLessThan(size);
    expect(cli(['store', 'export', '--store', store]).stdout).toBe(before);
  });

  it("export prints Samza's messages, and they import back into a store unchanged", () => {
    const dir = tempDir();
    const store = path.join(dir, 'store');
    expect(plan(jobFile(dir, 4, { 'job.standbytasks.replication.factor': '2' }), store).status).toBe(0);
    const lines = cli(['store', 'export', '--store', store]).stdout.trim().split('\n');
    const messages = lines.map((l) => JSON.parse(l) as { key: string; value: string });
    expect(messages).toContainEqual({
      key: JSON.stringify([1, 'set-task-partition-assignment', '{"system":"kafka","partition":1,"stream":"PVE","keyBucket":-1}']),
      value: expect.stringMatching(/^\{"host":".*","username":".*","source":"SamzaContainer","timestamp":\d+,"values":\{"taskNames":"\[\\"Partition 1\\",\\"Standby-Partition 1-0\\"\]"\}\}$/),
    });
    const copy = path.join(dir, 'copy');
    const s = CoordinatorStore.open(copy);
    s.writeMessages(messages);
    s.close();
    expect(cli(['store', 'export', '--store', copy]).stdout.trim().split('\n').sort()).toEqual([...lines].sort());
    // and the imported state plans as the original: nothing to write
    expect(plan(jobFile(dir, 4, { 'job.standbytasks.replication.factor': '2' }), copy).stderr).toContain('store: unchanged (nothing written)');
  });

  it('usage errors exit 2 with one line', () => {
    const dir = tempDir();
    const cases: Array<[string[], string]> = [
      [['store'], 'store needs a subcommand: inspect, compact or export'],
      [['store', 'frobnicate', '--store', dir], 'unknown store subcommand "frobnicate"'],
      [['store', 'inspect'], '--store is required'],
      [['store', 'inspect', '--store', ''], '--store needs a directory'],
      [['store', 'inspect', '--store', dir, '--repair'], '--repair writes to the store; inspect only reads'],
      [['store', 'inspect', '--store', path.join(dir, 'nothing')], 'no coordinator store at'],
      [['store', 'export', '--store', path.join(dir, 'nothing')], 'no coordinator store at'],
      [['store', 'compact', '--store', path.join(dir, 'nothing')], 'no coordinator store at'],
      [['store', 'compact', '--store', path.join(dir, 'nothing', 'deeper'), '--repair'], 'no coordinator store at'],
    ];
    for (const [args, text] of cases) {
      const r = cli(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr).toContain(text);
      expect(r.stderr.split('\n')).toHaveLength(2);
    }
    // A command that only reads or looks after a store never creates one.
    expect(fs.existsSync(path.join(dir, 'nothing'))).toBe(false);
  });

  it('compact on an empty directory refuses and creates no log or lock in it', () => {
    const dir = tempDir();
    const r = cli(['store', 'compact', '--store', dir]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^assignor: no coordinator store at .*nothing was created/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('samza plan --dry-run', () => {
  it('on a store that does not exist: prints the model, says what it would write, creates nothing', () => {
    const dir = tempDir();
    const store = path.join(dir, 'store');
    const r = plan(jobFile(dir, 4), store, '--dry-run');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('containers');
    expect(r.stderr).toMatch(/store: dry run: would write \d+ records in one batch \(nothing written\)/);
    expect(r.stderr).toContain('does not exist yet');
    expect(fs.existsSync(store)).toBe(false);
  });

  it('on an existing store: shows the change (the fold), writes nothing, takes no lock', () => {
    const dir = tempDir();
    const store = path.join(dir, 'store');
    expect(plan(jobFile(dir, 4), store).status).toBe(0);
    const bytes = fs.readFileSync(path.join(store, LOG_FILE));
    const held = CoordinatorStore.open(store); // a writer holds the lock: a dry run still reads
    try {
      const r = plan(jobFile(dir, 8), store, '--dry-run');
      expect(r.status).toBe(0);
      expect(r.stderr).toContain('kafka.PVE: 4 -> 8 partitions, base 4, folded');
      expect(r.stderr).toContain('4 SSPs new (all joined existing tasks)');
      expect(r.stderr).toMatch(/store: dry run: would write \d+ records/);
      const same = plan(jobFile(dir, 4), store, '--dry-run');
      expect(same.stderr).toContain('store: unchanged (dry run: nothing written)');
    } finally {
      held.close();
    }
    expect(fs.readFileSync(path.join(store, LOG_FILE)).equals(bytes)).toBe(true);
    const real = plan(jobFile(dir, 8), store);
    expect(real.stderr).toMatch(/store: \d+ records written in one batch/);
  });

  it('needs --store and cannot be combined with --repair', () => {
    const dir = tempDir();
    expect(cli(['samza', 'plan', '--job', jobFile(dir, 4), '--dry-run']).stderr).toBe('assignor: --dry-run needs --store (without a store nothing is written anyway) (at --dry-run)\n');
    const r = plan(jobFile(dir, 4), path.join(dir, 's'), '--dry-run', '--repair');
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('assignor: --repair writes to the store, so it cannot be combined with --dry-run (at --repair)\n');
  });
});

describe('samza plan --repair', () => {
  it('a damaged store is refused with one line naming the file, the byte and --repair; --repair keeps a copy and goes on', () => {
    const dir = tempDir();
    const store = path.join(dir, 'store');
    expect(plan(jobFile(dir, 4), store).status).toBe(0);
    const good = fs.statSync(path.join(store, LOG_FILE)).size;
    expect(plan(jobFile(dir, 8), store).status).toBe(0);
    const file = path.join(store, LOG_FILE);
    const damaged = fs.readFileSync(file);
    damaged[good + 40]! ^= 0x20; // inside the last frame, which is committed: damage, not a crash
    fs.writeFileSync(file, damaged);

    const r = plan(jobFile(dir, 8), store);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(r.stderr).toContain(`${file} is damaged at byte ${good}`);
    expect(r.stderr).toContain('--repair');
    expect(fs.readFileSync(file).equals(damaged)).toBe(true);
    expect(cli(['store', 'inspect', '--store', store]).stderr).toContain('--repair');

    const fixed = plan(jobFile(dir, 8), store, '--repair');
    expect(fixed.status).toBe(0);
    const backup = /copied to (\S+) and cut at byte (\d+)/.exec(fixed.stderr);
    expect(backup).not.toBeNull();
    expect(Number(backup![2])).toBe(good);
    expect(fs.readFileSync(backup![1]!).equals(damaged)).toBe(true);
    // The cut store held the 4-partition model; the plan wrote the 8-partition one again.
    expect(fixed.stderr).toContain('kafka.PVE: 4 -> 8 partitions, base 4, folded');
    expect(plan(jobFile(dir, 8), store).stderr).toContain('store: unchanged (nothing written)');
  });
});

describe('symbolic links through the CLI (the reproducers)', () => {
  it('a dangling coordinator.log link: exit 2, one line naming link and target, the link untouched', () => {
    const dir = tempDir();
    const store = path.join(dir, 's');
    fs.mkdirSync(store);
    const target = '/nonexistent/coordinator.log';
    fs.symlinkSync(target, path.join(store, LOG_FILE));
    const r = plan(jobFile(dir, 4), store);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(r.stderr).toContain(path.join(store, LOG_FILE));
    expect(r.stderr).toContain(target);
    expect(fs.readlinkSync(path.join(store, LOG_FILE))).toBe(target);
    expect(fs.readdirSync(store)).toEqual([LOG_FILE]);
    expect(plan(jobFile(dir, 4), store, '--dry-run').status).toBe(2);
  });

  it('a coordinator.log link loop: exit 2 naming the link, nothing written', () => {
    const dir = tempDir();
    const store = path.join(dir, 's');
    fs.mkdirSync(store);
    fs.symlinkSync(path.join(store, LOG_FILE), path.join(store, LOG_FILE));
    const r = plan(jobFile(dir, 4), store);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('loop');
    expect(r.stderr).toContain(path.join(store, LOG_FILE));
    expect(fs.readdirSync(store)).toEqual([LOG_FILE]);
  });
});
