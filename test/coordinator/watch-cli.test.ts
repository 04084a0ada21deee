// `assignor samza watch` on a file store (no broker): models on stdout, one JSON line each; a
// refused change on stderr; SIGTERM stops it cleanly; usage errors are one line and exit 2. And the
// package without kafkajs: a kafka:// store says what is missing, the file store works.
import { afterAll, describe, expect, it } from 'vitest';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { cli, ROOT } from '../helpers.js';
import { parseInterval } from '../../src/cli/samza-watch.js';
import { cleanupTempDirs, jobFileJson, startCli, statefulConfig, tempDir, until } from './helpers.js';
import { itUnlessDeno, moduleEvalArgs, scriptPrefix } from '../support/runtime.js';

afterAll(cleanupTempDirs);

const PVE = 'kafka.PVE';
const config = statefulConfig([PVE]);

describe('assignor samza watch (file store)', () => {
  itUnlessDeno('a Deno child ends on SIGTERM before the CLI\'s handler runs')('prints a model per change, reports a refused change, stops on SIGTERM', async () => {
    const dir = tempDir();
    const job = join(dir, 'job.json');
    writeFileSync(job, jobFileJson(config, { [PVE]: 4 }));
    const w = startCli(['samza', 'watch', '--job', job, '--store', join(dir, 'store'), '--interval', '50ms']);
    try {
      await w.lines(1, 60_000);
      writeFileSync(job, jobFileJson(config, { [PVE]: 6 }));
      await w.stderrMatch(/but the new model is refused; keeping the stored model/, 30_000);
      await w.stderrMatch(/kafka\.PVE: base 4 -> 6 partitions would move 1\/2 of keys \(50%\); counts that keep every key: 4 or 8/, 30_000);
      writeFileSync(job, jobFileJson(config, { [PVE]: 8 }));
      await w.lines(2, 30_000);
      await new Promise((r) => setTimeout(r, 300));
      expect(w.out.length).toBe(2);
      const models = w.out.map((l) => JSON.parse(l) as { streams: Array<{ partitions: number; basePartitions: number }> });
      expect(models.map((m) => m.streams[0])).toEqual([
        { stream: PVE, partitions: 4, basePartitions: 4 },
        { stream: PVE, partitions: 8, basePartitions: 4 },
      ]);
      expect(w.err()).toContain('watch: partition counts changed: kafka.PVE 6 -> 8; new job model persisted in one write');
      expect(w.err()).toContain('kafka.PVE: 4 -> 8 partitions, base 4, folded');
      w.child.kill('SIGTERM');
      expect(await w.exited).toBe(0);
      expect(w.err()).toMatch(/watch: stopped\n$/);
    } finally {
      w.child.kill('SIGKILL');
    }
    // The store holds the last model: a plan with the same counts writes nothing.
    const again = cli(['samza', 'plan', '--job', job, '--store', join(dir, 'store')]);
    expect(again.stderr).toContain('store: unchanged (nothing written)');
  }, 120_000);

  it('a half-saved job file: each "retrying in X s" line names the wait that follows it (0.5, 1, 2, 4 s), then the watch catches up', async () => {
    const dir = tempDir();
    const job = join(dir, 'job.json');
    writeFileSync(job, jobFileJson(config, { [PVE]: 4 }));
    const w = startCli(['samza', 'watch', '--job', job, '--store', join(dir, 'store'), '--interval', '500ms', '--quiet']);
    const seen: Array<{ at: number; seconds: number }> = [];
    w.child.stderr!.on('data', (d: string) => {
      for (const m of d.matchAll(/is not valid JSON: .*; retrying in (\d+\.\d) s\n/g)) seen.push({ at: Date.now(), seconds: Number(m[1]) });
    });
    try {
      await w.lines(1, 60_000);
      writeFileSync(job, '{');
      await until(() => seen.length >= 4, 30_000, 'four retry lines');
      writeFileSync(job, jobFileJson(config, { [PVE]: 8 }));
      await w.lines(2, 30_000);
      expect(seen.slice(0, 4).map((s) => s.seconds)).toEqual([0.5, 1, 2, 4]);
      // The next line comes after the announced wait (and the next poll, at once), not before nor much later.
      for (let i = 0; i < 3; i++) {
        const gap = seen[i + 1]!.at - seen[i]!.at;
        expect(gap, `after "retrying in ${seen[i]!.seconds} s"`).toBeGreaterThanOrEqual(seen[i]!.seconds * 1000 - 50);
        expect(gap, `after "retrying in ${seen[i]!.seconds} s"`).toBeLessThan(seen[i]!.seconds * 1000 + 450);
      }
      // (A clean stop on SIGTERM is the first test's; Deno's children end on it before the handler.)
    } finally {
      w.child.kill('SIGKILL');
    }
  }, 120_000);

  it('--interval takes ms, s, m, h or bare seconds, from 10 ms up to the 24 h its message names', () => {
    expect([parseInterval('10ms'), parseInterval('5s'), parseInterval('2'), parseInterval('1m'), parseInterval('1.5h'), parseInterval('24h')]).toEqual([10, 5000, 2000, 60_000, 5_400_000, 86_400_000]);
    for (const bad of ['9ms', '25h', '1d', '-1s', '']) expect(() => parseInterval(bad)).toThrow('--interval must be a duration from 10ms to 24h');
  });

  it('usage errors: one line on stderr, exit 2', () => {
    const job = join(tempDir(), 'job.json');
    writeFileSync(job, jobFileJson(config, { [PVE]: 4 }));
    for (const [args, message] of [
      [['--job', job], '--store is required'],
      [['--store', 'x'], '--job is required'],
      [['--job', job, '--store', 'x', '--interval', 'soon'], '--interval must be a duration from 10ms to 24h'],
      [['--job', job, '--store', 'x', '--brokers', 'nohost'], '"nohost" is not HOST:PORT'],
      [['--job', job, '--store', 'kafka://h:1/a b'], 'is not a valid Kafka topic name'],
    ] as const) {
      const r = cli(['samza', 'watch', ...args]);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(message);
    }
  });
});

describe('without kafkajs installed', () => {
  it('a kafka:// store fails with E_KAFKAJS_MISSING; the file store and the rest still work', () => {
    // The built package alone, with no node_modules to find kafkajs in.
    const app = tempDir('assignor-no-kafkajs-');
    cpSync(join(ROOT, 'dist'), join(app, 'dist'), { recursive: true });
    writeFileSync(join(app, 'package.json'), JSON.stringify({ type: 'module' }));
    const script = `
      const a = { ...(await import('./dist/index.js')), ...(await import('./dist/store/index.js')) };
      const out = {};
      try { await a.KafkaCoordinatorStore.open('kafka://127.0.0.1:1/t'); } catch (e) { out.code = e.code; out.message = e.message; }
      const s = a.CoordinatorStore.open(${JSON.stringify(join(app, 'store'))});
      s.put('set-config', 'k', { value: 'v' });
      out.file = s.get('set-config', 'k');
      s.close();
      out.partition = a.partitionForKey('100:48069', 12);
      console.log(JSON.stringify(out));`;
    // Bun installs a missing package on import when no node_modules is in sight; --no-install makes it as missing as elsewhere.
    const noInstall = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined' ? ['--no-install'] : [];
    const r = spawnSync(process.execPath, [...noInstall, ...moduleEvalArgs(script)], { cwd: app, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { code: string; message: string; file: unknown; partition: number };
    expect(out.code).toBe('E_KAFKAJS_MISSING');
    expect(out.message).toContain('npm install kafkajs');
    expect(out.file).toEqual({ value: 'v' });
    expect(out.partition).toBe(9);
    const c = spawnSync(scriptPrefix()[0]!, [...scriptPrefix().slice(1), ...noInstall, join(app, 'dist/cli/main.js'), 'samza', 'export', '--store', 'kafka://127.0.0.1:1/t'], { cwd: app, encoding: 'utf8' });
    expect(c.status).toBe(2);
    expect(c.stderr).toMatch(/^assignor: the Kafka coordinator store needs the kafkajs package/);
  }, 60_000);
});
