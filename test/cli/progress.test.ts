// The shared progress bar: only on a terminal, only after 2 s, erased at the end.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROGRESS_DELAY_MS, startProgress } from '../../src/cli/progress.js';
import { CLI, ROOT } from '../helpers.js';
import { partitionForKey } from '../../src/hashing/index.js';

function fakeTerminal(isTTY = true): { stream: { isTTY: boolean; write(s: string): boolean }; text: () => string } {
  let out = '';
  return {
    stream: {
      isTTY,
      write(s: string) {
        out += s;
        return true;
      },
    },
    text: () => out,
  };
}

describe('startProgress', () => {
  it('draws nothing during the first 2 s, then a bar at most 5 times a second, and erases it at the end', () => {
    const term = fakeTerminal();
    let now = 1000;
    const p = startProgress('placing', { total: 1000, unit: 'tasks', stream: term.stream, now: () => now });
    for (let done = 0; done <= 100; done++) {
      now += 10;
      p.tick(done);
    }
    expect(term.text()).toBe(''); // 1.01 s in
    now = 1000 + PROGRESS_DELAY_MS;
    p.tick(500);
    expect(term.text()).toBe('\rplacing [############............] 50.0% 500/1,000 tasks, 250 tasks/s, 2 s\x1b[K');
    now += 100;
    p.tick(600); // within 200 ms of the last draw
    expect(term.text().split('\r')).toHaveLength(2);
    now += 150;
    p.tick(700);
    expect(term.text()).toMatch(/\rplacing \[#{17}\.{7}\] 70\.0% 700\/1,000 tasks, 311 tasks\/s, 2 s\x1b\[K$/);
    p.end();
    expect(term.text().endsWith('\r\x1b[K')).toBe(true);
    const before = term.text();
    now += 10_000;
    p.tick(900); // after end(): silent
    p.end();
    expect(term.text()).toBe(before);
  });

  it('without a total shows the count and rate', () => {
    const term = fakeTerminal();
    let now = 0;
    const p = startProgress('hashing', { unit: 'keys', stream: term.stream, now: () => now });
    now = 4000;
    p.tick(2_000_000);
    expect(term.text()).toBe('\rhashing 2,000,000 keys, 500,000 keys/s, 4 s\x1b[K');
  });

  it('is silent when the stream is not a terminal, when disabled, and for a run that ends within 2 s', () => {
    for (const [stream, enabled] of [[fakeTerminal(false), true], [fakeTerminal(true), false]] as const) {
      let now = 0;
      const p = startProgress('x', { stream: stream.stream, enabled, now: () => now });
      now = 60_000;
      p.tick(1);
      p.end();
      expect(stream.text()).toBe('');
    }
    const quick = fakeTerminal();
    const p = startProgress('x', { stream: quick.stream, now: () => 0 });
    p.tick(1);
    p.end();
    expect(quick.text()).toBe('');
  });
});

describe('assignor hash progress, end to end', () => {
  const hasScript = spawnSync('script', ['--version']).status === 0;

  // Needs util-linux `script` for a pseudo-terminal: skipped without it locally, a failure in CI.
  it.skipIf(!hasScript && process.env.CI !== 'true')('shows on a terminal when a run lasts over 2 s, and never in a pipe', async () => {
    expect(hasScript, 'util-linux `script` is needed to give the CLI a terminal').toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'assignor-progress-'));
    // Keys arrive slowly (one every 0.4 s for 6 s), so the run lasts over 2 s after node has
    // started, however slow the start, while costing no CPU.
    const keys = Array.from({ length: 15 }, (_, i) => `k${i}`);
    const feed = `(for k in ${keys.join(' ')}; do echo $k; sleep 0.4; done)`;
    const run = (stderrTo: string): Promise<string> =>
      new Promise((resolve) => {
        const cmd = `${feed} | ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} hash --partitions 10 > ${join(dir, 'out.txt')} ${stderrTo}`;
        const child = spawn('script', ['-qec', cmd, '/dev/null'], { cwd: ROOT });
        let text = '';
        child.stdout.on('data', (b: Buffer) => (text += b.toString()));
        child.on('close', () => resolve(text));
      });
    const onTerminal = await run('');
    expect(onTerminal).toMatch(/\rhashing \d+ keys, [\d,]+ keys\/s, \d s\x1b\[K/);
    expect(onTerminal).toMatch(/\r\x1b\[K/); // erased at the end
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe(keys.map((k) => `${partitionForKey(k, 10)}\n`).join(''));
    const inPipe = await run(`2> ${join(dir, 'err.txt')}`);
    expect(inPipe).toBe('');
    expect(readFileSync(join(dir, 'err.txt'), 'utf8')).toBe('');
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
