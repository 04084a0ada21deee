// `assignor samza` run as a user would (the built binary: build first, see package.json pretest).
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, cli } from '../helpers.js';
import { CoordinatorStore } from '../../src/store/index.js';

const dir = mkdtempSync(join(tmpdir(), 'samza-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function jobFile(name: string, partitions: Record<string, number>, extra: Record<string, unknown> = {}, config: Record<string, string> = {}): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    JSON.stringify({
      config: {
        'task.inputs': Object.keys(partitions).join(','),
        'job.container.count': '2',
        'stores.counts.factory': 'org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory',
        ...config,
      },
      partitions,
      ...extra,
    }),
  );
  return path;
}

type Model = { containers: { id: string; tasks: { taskName: string; ssps: { partition: number }[] }[] }[] };
const tasks = (m: Model) => Object.fromEntries(m.containers.flatMap((c) => c.tasks.map((t) => [t.taskName, t.ssps.map((s) => s.partition)])));

describe('assignor samza plan', () => {
  it('prints the JobModel on stdout and a summary on stderr', () => {
    const r = cli(['samza', 'plan', '--job', jobFile('a.json', { 'kafka.PVE': 4 })]);
    expect(r.status).toBe(0);
    const m = JSON.parse(r.stdout) as Model;
    expect(m.containers.map((c) => c.id)).toEqual(['0', '1']);
    expect(tasks(m)).toEqual({ 'Partition 0': [0], 'Partition 2': [2], 'Partition 1': [1], 'Partition 3': [3] });
    expect(r.stderr).toContain('4 tasks in 2 containers');
  });

  it('with --store is idempotent, and after a partition-count change shows the fold', () => {
    const store = join(dir, 'store1');
    const a = cli(['samza', 'plan', '--job', jobFile('b.json', { 'kafka.PVE': 4 }), '--store', store]);
    const b = cli(['samza', 'plan', '--job', jobFile('b.json', { 'kafka.PVE': 4 }), '--store', store]);
    expect(a.status).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(b.stderr).toContain('store: unchanged (nothing written)');
    const c = cli(['samza', 'plan', '--job', jobFile('b.json', { 'kafka.PVE': 8 }), '--store', store]);
    expect(c.status).toBe(0);
    expect(tasks(JSON.parse(c.stdout) as Model)).toEqual({ 'Partition 0': [0, 4], 'Partition 2': [2, 6], 'Partition 1': [1, 5], 'Partition 3': [3, 7] });
    expect(c.stderr).toContain('kafka.PVE: 4 -> 8 partitions, base 4, folded');
    expect(c.stderr).toContain('4 SSPs new (all joined existing tasks); 0 moved to another task');
  });

  it('refuses a non-multiple with the share and the safe counts (exit 2), and --allow-key-movement accepts it', () => {
    const store = join(dir, 'store2');
    cli(['samza', 'plan', '--job', jobFile('c.json', { 'kafka.PVE': 4 }), '--store', store]);
    const r = cli(['samza', 'plan', '--job', jobFile('c.json', { 'kafka.PVE': 6 }), '--store', store]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('1/2 of keys (50%) would change task');
    expect(r.stderr).toContain('partition counts that keep every key: 4 or 8');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    const ok = cli(['samza', 'plan', '--job', jobFile('c.json', { 'kafka.PVE': 6 }), '--store', store, '--allow-key-movement']);
    expect(ok.status).toBe(0);
    expect(ok.stderr).toContain('key-movement');
  });

  it('--mapper samza reproduces Samza, including its failure on 4 -> 8 -> 12', () => {
    const store = join(dir, 'store3');
    for (const n of [4, 8]) expect(cli(['samza', 'plan', '--job', jobFile('d.json', { 'kafka.PVE': n }), '--store', store, '--mapper', 'samza']).status).toBe(0);
    const r = cli(['samza', 'plan', '--job', jobFile('d.json', { 'kafka.PVE': 12 }), '--store', store, '--mapper', 'samza']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('Error in partition-to-task assignment via the SSPGroupProxy.');
    expect(r.stderr).toContain('New partition count: 12 should be a multiple of previous partition count: 8.');
    // The base mapper picks up the same store and folds 12 onto the original 4.
    expect(cli(['samza', 'plan', '--job', jobFile('d.json', { 'kafka.PVE': 12 }), '--store', store]).status).toBe(0);
  });

  it('a second writer on the same store gets the store\'s lock error', () => {
    const store = join(dir, 'store4');
    const held = CoordinatorStore.open(store);
    try {
      const r = cli(['samza', 'plan', '--job', jobFile('h.json', { 'kafka.PVE': 4 }), '--store', store]);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('is already open for writing');
      expect(r.stdout).toBe('');
    } finally {
      held.close();
    }
  });

  it('reports Samza config errors and bad job files on one line with exit 2', () => {
    const r = cli(['samza', 'plan', '--job', jobFile('e.json', { 'kafka.PVE': 2 }, {}, { 'task.broadcast.inputs': 'kafka.PVE#1-2' })]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      "assignor: incorrect format in kafka.PVE#1-2. Broadcast stream names should be in the form 'system.stream#partitionId' or 'system.stream#[partitionN-partitionM]' (at task.broadcast.inputs)\n",
    );
    expect(cli(['samza', 'plan', '--job', jobFile('f.json', {}, {}, { 'task.inputs': 'kafka.X' })]).stderr).toContain('no partition count for input stream kafka.X');
    expect(cli(['samza', 'plan']).status).toBe(2);
  });

  it('refuses an empty --store (it would make the current directory the store) and an empty --job', () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const r = spawnSync(process.execPath, [CLI, 'samza', 'plan', '--job', jobFile('empty-store.json', { 'kafka.PVE': 2 }), '--store', ''], { cwd, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('assignor: --store needs a directory, got an empty string (at --store)\n');
    expect(readdirSync(cwd)).toEqual([]);
    const j = cli(['samza', 'plan', '--job', '']);
    expect(j.status).toBe(2);
    expect(j.stderr).toBe('assignor: --job needs a file name, got an empty string (at --job)\n');
  });

  it.runIf(existsSync('/proc/self'))('a --store that cannot be created fails at once (Node\'s recursive mkdir loops forever under /proc)', () => {
    const r = spawnSync(process.execPath, [CLI, 'samza', 'plan', '--job', jobFile('proc.json', { 'kafka.PVE': 2 }), '--store', '/proc/assignor-no-such-dir/store'], { encoding: 'utf8', timeout: 20_000 });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^assignor: creating directory \/proc\/assignor-no-such-dir\/store failed: ENOENT .*\n$/);
    expect(r.stderr.split('\n')).toHaveLength(2);
  }, 30_000);

  it('Samza\'s errors without a location get the setting to look at', () => {
    const cases: [Record<string, number>, Record<string, unknown>, Record<string, string>, string][] = [
      [{ 'kafka.PVE': 4 }, {}, { 'job.container.count': '-3' }, 'assignor: Must have at least one container (at job.container.count)\n'],
      [{ 'kafka.PVE': 2 }, {}, { 'job.container.count': '3' }, "assignor: Your container count (3) is larger than your task count (2). Can't have containers with nothing to do, so aborting. (at job.container.count)\n"],
      [{ 'kafka.PVE': 2 }, {}, { 'task.broadcast.inputs': 'kafka.PVE#[0-1]' }, "assignor: No tasks found. Likely due to no input partitions. Can't run a job with no tasks. (at task.inputs)\n"],
      [{}, {}, { 'task.inputs': '', 'job.systemstreampartition.grouper.factory': 'AllSspToSingleTaskGrouperFactory' }, 'assignor: Cannot process stream task with no input system stream partitions (at task.inputs)\n'],
    ];
    cases.forEach(([partitions, extra, config, line], i) => {
      for (const mapper of ['base', 'samza']) {
        const r = cli(['samza', 'plan', '--mapper', mapper, '--job', jobFile(`loc${i}.json`, partitions, extra, config)]);
        expect(r.status).toBe(2);
        expect(r.stderr).toBe(line);
      }
    });
  });

  it('refuses jobs too large to plan with one line naming the setting, instead of hanging or crashing', () => {
    const cases: [Record<string, number>, Record<string, string>, string][] = [
      [{ 'kafka.PVE': 4 }, { 'task.broadcast.inputs': 'kafka.B#[0-2000000000]' }, '(at task.broadcast.inputs)'],
      [{ 'kafka.PVE': 4 }, { 'job.elasticity.factor': '2000000000' }, '(at job.elasticity.factor)'],
      [{ 'kafka.PVE': 2147483647 }, {}, '(at partitions)'],
      [{ 'kafka.PVE': 4 }, { 'job.standbytasks.replication.factor': '2000000000' }, '(at job.standbytasks.replication.factor)'],
      [{ 'kafka.PVE': 4 }, { 'job.container.count': '2000000000' }, '(at job.container.count)'],
      [{ 'kafka.PVE': 5000 }, { 'task.broadcast.inputs': 'kafka.B#[0-99999]' }, '(at task.broadcast.inputs)'],
      [{ 'kafka.PVE': 4 }, { 'job.systemstreampartition.grouper.factory': 'AllSspToSingleTaskGrouperFactory', 'job.container.count': '20000000' }, '(at job.container.count)'],
    ];
    cases.forEach(([partitions, config, at], i) => {
      const r = cli(['samza', 'plan', '--job', jobFile(`big${i}.json`, partitions, {}, config)]);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr.split('\n')).toHaveLength(2);
      expect(r.stderr).toMatch(/^assignor: .*(at most|more than)/);
      expect(r.stderr.trimEnd().endsWith(at), r.stderr).toBe(true);
    });
    const samza = cli(['samza', 'plan', '--mapper', 'samza', '--job', jobFile('big-samza.json', { 'kafka.PVE': 15_000_000, 'kafka.A': 15_000_000, 'kafka.B': 15_000_000 })]);
    expect(samza.status).toBe(2);
    expect(samza.stderr).toContain('the samza mapper plans at most 33554432 (at partitions)');
  }, 30_000);

  it('handles __proto__ as a stream and a processor id', () => {
    const r = cli(['samza', 'plan', '--job', jobFile('g.json', { 'kafka.__proto__': 2 }, JSON.parse('{"processors":{"__proto__":"h1","1":"h2"}}') as Record<string, unknown>, { 'task.name.grouper.factory': 'org.apache.samza.container.grouper.task.GroupByContainerIdsFactory' })]);
    expect(r.status).toBe(0);
    const m = JSON.parse(r.stdout) as Model;
    expect(m.containers.map((c) => c.id).sort()).toEqual(['1', '__proto__']);
  });
});

describe('assignor samza expansion', () => {
  it('explains a key-preserving expansion (exit 0) and a key-moving one (exit 1)', () => {
    const ok = cli(['samza', 'expansion', '--from', '4', '--to', '12']);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('partition p joins the task of partition p mod 4');
    const bad = cli(['samza', 'expansion', '--from', '4', '--to', '6']);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain('keys that change task: 1/2 (50%)');
    expect(bad.stdout).toContain('partition counts that keep every key: 4, 8');
  });

  it('--json prints the analysis', () => {
    const r = cli(['samza', 'expansion', '--from', '6', '--to', '9', '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ base: 6, target: 9, keepsEveryKey: false, gcd: 3, moved: { numerator: 1, denominator: 2 }, nearestSafe: [6, 12] });
  });

  it('rejects bad counts', () => {
    const r = cli(['samza', 'expansion', '--from', '0', '--to', '6']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--from must be an integer in [1, 2147483647]');
  });
});
