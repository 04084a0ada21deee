// The shared progress bar: only on a terminal, only after 2 s, erased at the end.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PROGRESS_DELAY_MS, groupDigits, progressDelayMs, startProgress } from '../../src/cli/progress.js';
import { CLI, ROOT, wide } from '../helpers.js';
import { partitionForKey } from '../../src/hashing/index.js';
import { scriptPrefix } from '../support/runtime.js';

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

  it('fits the terminal: drops the rate, then the bar, then cuts the line, so a redraw never wraps', () => {
    for (const columns of [200, 80, 60, 40, 20, 5]) {
      let out = '';
      const stream = { isTTY: true, columns, write: (s: string) => ((out += s), true) };
      let now = 0;
      const p = startProgress('store compact: writing records to /a/rather/long/path/coordinator.log', { total: 1_234_567_890, unit: 'records', stream, now: () => now });
      now = 3000;
      p.tick(1_000_000_000);
      const line = out.replace(/^\r/, '').replace(/\x1b\[K$/, '');
      expect(line.length).toBeLessThanOrEqual(Math.max(20, columns - 1));
      if (columns >= 200) expect(line).toContain('records/s');
      expect(line.startsWith('store compact: writing')).toBe(columns > 20);
      p.end();
    }
    let out = '';
    let now = 0;
    const p = startProgress('placing', { total: 1_234_567_890, unit: 'records', stream: { isTTY: true, columns: 60, write: (s: string) => ((out += s), true) }, now: () => now });
    now = 3000;
    p.tick(1_000_000_000);
    expect(out).toBe('\rplacing 1,000,000,000/1,234,567,890 records, 3 s\x1b[K');
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

describe('groupDigits and the delay setting', () => {
  it('prints whole numbers as toLocaleString("en-US") does, without Intl', () => {
    for (const n of [0, 1, -1, 999, 1000, -1000, 999_999, 1_000_000, 2 ** 31 - 1, -(2 ** 31), Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER]) {
      expect(groupDigits(n)).toBe(n.toLocaleString('en-US'));
    }
    fc.assert(fc.property(fc.maxSafeInteger(), (n) => groupDigits(n) === n.toLocaleString('en-US')));
  });

  it('ASSIGNOR_PROGRESS_DELAY_MS: unset or empty is 2 s, whole milliseconds are taken, anything else is refused', () => {
    expect(progressDelayMs(undefined)).toBe(PROGRESS_DELAY_MS);
    expect(progressDelayMs('')).toBe(PROGRESS_DELAY_MS);
    expect(progressDelayMs('0')).toBe(0);
    expect(progressDelayMs('500')).toBe(500);
    for (const bad of ['2s', '-1', '1.5', ' 1', '1e3', '0x10', '9999999999']) {
      expect(() => progressDelayMs(bad), bad).toThrow(/ASSIGNOR_PROGRESS_DELAY_MS must be a whole number of milliseconds/);
    }
  });

  it('a phase keeps the 2 s delay from the start, shows a step with no count as its name and time, and counts its rate from its own start', () => {
    const term = fakeTerminal();
    let now = 0;
    const p = startProgress('x', { stream: term.stream, now: () => now });
    p.phase('reading plan.json', { total: 1000, unit: 'bytes' });
    now = 1500;
    p.tick(1000);
    p.phase('checking the plan');
    expect(term.text()).toBe(''); // 1.5 s in: nothing yet
    now = 2600;
    p.tick(0);
    expect(term.text()).toBe('\rchecking the plan, 3 s\x1b[K');
    now = 3000;
    p.phase('writing', { unit: 'chars' }); // draws at once: the new step's name shows before its work
    expect(term.text().endsWith('\rwriting 0 chars, 0 chars/s, 3 s\x1b[K')).toBe(true);
    now = 4000;
    p.tick(500);
    expect(term.text().endsWith('\rwriting 500 chars, 500 chars/s, 4 s\x1b[K')).toBe(true);
    p.note('store: repaired\n'); // a line of its own: the bar is erased first, then redrawn at the next tick
    expect(term.text().endsWith('\r\x1b[Kstore: repaired\n')).toBe(true);
    now = 4050;
    p.tick(600);
    expect(term.text().endsWith('store: repaired\n\rwriting 600 chars, 571 chars/s, 4 s\x1b[K')).toBe(true);
    p.end();
    expect(term.text().endsWith('\r\x1b[K')).toBe(true);
    p.note('after the end\n');
    expect(term.text().endsWith('\r\x1b[Kafter the end\n')).toBe(true);
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
        const cmd = `${feed} | ${[...scriptPrefix(), CLI].map((w) => JSON.stringify(w)).join(' ')} hash --partitions 10 > ${join(dir, 'out.txt')} ${stderrTo}`;
        const child = spawn('script', ['-qec', wide(cmd), '/dev/null'], { cwd: ROOT });
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

describe('every long command draws the bar on a terminal, erases it, and keeps it out of stdout and pipes', () => {
  const hasScript = spawnSync('script', ['--version']).status === 0;
  const q = (s: string): string => JSON.stringify(s);
  const node = [...scriptPrefix(), CLI].map(q).join(' ');

  /** Runs a shell command line; with `tty`, inside a pseudo-terminal (util-linux `script`), whose transcript is returned. */
  const sh = (cmd: string, tty: boolean, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; text: string }> =>
    new Promise((resolve) => {
      const child = tty ? spawn('script', ['-qec', wide(cmd), '/dev/null'], { cwd: ROOT, env: { ...process.env, ...env } }) : spawn('sh', ['-c', cmd], { cwd: ROOT, env: { ...process.env, ...env } });
      let text = '';
      child.stdout.on('data', (b: Buffer) => (text += b.toString()));
      child.stderr.on('data', (b: Buffer) => (text += b.toString()));
      child.on('close', (code) => resolve({ code, text }));
    });

  /** Runs the jobs at most `width` at a time (the machine is shared), keeping their order. */
  async function pool<T>(jobs: (() => Promise<T>)[], width = 3): Promise<T[]> {
    const out: T[] = new Array(jobs.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: width }, async () => {
        while (next < jobs.length) {
          const i = next++;
          out[i] = await jobs[i]!();
        }
      }),
    );
    return out;
  }

  it.skipIf(!hasScript && process.env.CI !== 'true')(
    'channels, store and samza commands: each step named in order, erased at the end; same stdout and a clean stderr in a pipe',
    async () => {
      expect(hasScript, 'util-linux `script` is needed to give the CLI a terminal').toBe(true);
      const dir = mkdtempSync(join(tmpdir(), 'assignor-progress-all-'));
      const d = (name: string): string => q(join(dir, name));
      try {
        // Inputs: a plan, and a store with a dump of it, made by the CLI itself (no bar: not a terminal).
        const setup = await sh(
          [
            `${node} channels plan --partitions 1000 --width 7 > ${d('plan.json')}`,
            `${node} samza plan --job examples/job.json --store ${d('store')} --quiet > /dev/null`,
            `${node} samza export --store ${d('store')} --out ${d('dump.jsonl')}`,
            `cp -r ${d('store')} ${d('store-tty')} && cp -r ${d('store')} ${d('store-pipe')}`,
          ].join(' && '),
          false,
        );
        expect(setup.code, setup.text).toBe(0);

        // Each command, the steps its bar must name (in order), and its arguments; `@` is the
        // run's own copy of the store for commands that write one, `#` the run's output file.
        const cases: { args: string; steps: string[] }[] = [
          { args: 'channels plan --partitions 1000 --width 7 > #', steps: ['channels plan: planning', 'channels plan: writing 0 chars'] },
          { args: `channels validate ${d('plan.json')} --partitions 1000 --emit json > #`, steps: [`channels validate: reading ${join(dir, 'plan.json')} [`, 'channels validate: parsing', 'channels validate: checking the plan', 'channels validate: writing'] },
          { args: `channels expand ${d('plan.json')} --partitions 2000 > #`, steps: ['channels expand: reading', 'channels expand: parsing', 'channels expand: expanding the plan', 'channels expand: writing'] },
          { args: `channels rewidth ${d('plan.json')} --width 9 --emit table > #`, steps: ['channels rewidth: reading', 'channels rewidth: parsing', 'channels rewidth: replanning and comparing', 'channels rewidth: writing'] },
          { args: `store inspect --store ${d('store')} > #`, steps: ['store inspect: reading the log'] },
          { args: 'store compact --store @ > #', steps: ['store compact: reading the log', 'store compact: writing the compacted log'] },
          { args: `store export --store ${d('store')} > #`, steps: ['store export: reading the log', 'store export: writing ['] },
          { args: 'samza plan --job examples/job.json --store @ --quiet > #', steps: ['samza plan: reading the job', 'samza plan: reading the store', 'samza plan: planning and writing the store', 'samza plan: writing the JobModel'] },
          { args: 'samza plan --job examples/job.json --quiet > #', steps: ['samza plan: reading the job', 'samza plan: planning', 'samza plan: writing the JobModel'] },
          { args: `samza export --store ${d('store')} > #`, steps: [`samza export: reading ${join(dir, 'store')}`, 'samza export: writing'] },
          { args: `samza import --from ${d('dump.jsonl')} --store @-import > #`, steps: [`samza import: reading ${join(dir, 'dump.jsonl')}`, 'samza import: writing'] },
        ];
        const line = (c: (typeof cases)[number], i: number, mode: 'tty' | 'pipe'): string =>
          `${node} ${c.args.replace(/@/g, d(`store-${mode}`)).replace('#', d(`out-${i}-${mode}`))}`;
        // ASSIGNOR_PROGRESS_DELAY_MS=0: the bar draws from the first step, so small inputs show it.
        const env = { ASSIGNOR_PROGRESS_DELAY_MS: '0' };
        const runs = await pool(cases.flatMap((c, i) => [() => sh(line(c, i, 'tty'), true, env), () => sh(line(c, i, 'pipe'), false, env)]));
        cases.forEach((c, i) => {
          const tty = runs[2 * i]!;
          const pipe = runs[2 * i + 1]!;
          const what = `${c.args}\n${JSON.stringify(tty.text)}`;
          expect(tty.code, what).toBe(0);
          expect(pipe.code, what).toBe(0);
          // Every step, in order, each drawn as a whole line over the last one.
          let at = 0;
          for (const step of c.steps) {
            const found = tty.text.indexOf(`\r${step}`, at);
            expect(found, `${step} after ${at} in ${what}`).toBeGreaterThanOrEqual(at);
            at = found + 1;
          }
          // The last thing drawn is the erase; whatever follows is the command's own stderr line(s).
          const erased = tty.text.lastIndexOf('\r\x1b[K');
          expect(erased, what).toBeGreaterThan(at - 1);
          expect(tty.text.slice(erased + 4), what).not.toMatch(/[\r\x1b](?!\n)/);
          // In a pipe: no bar at all; stdout the same bytes as on the terminal (store paths aside).
          expect(pipe.text, what).not.toMatch(/\r|\x1b/);
          const out = (mode: string): string => readFileSync(join(dir, `out-${i}-${mode}`), 'utf8').replaceAll(`store-${mode}`, 'store-X');
          expect(out('tty'), what).toBe(out('pipe'));
          expect(out('tty'), what).not.toMatch(/\r|\x1b/);
        });

        // stdout on the same terminal: the bar is erased before the first byte of output.
        const shared = await sh(`${node} channels plan --partitions 10 --width 3`, true, env);
        expect(shared.code).toBe(0);
        const expected = (await sh(`${node} channels plan --partitions 10 --width 3`, false)).text;
        expect(shared.text).toMatch(/\rchannels plan: planning/);
        expect(shared.text.endsWith(`\r\x1b[K${expected.replace(/\n/g, '\r\n')}`), JSON.stringify(shared.text)).toBe(true);
        expect(shared.text).not.toMatch(/writing/);

        // --no-progress: nothing drawn, even on a terminal.
        const off = await sh(`${node} channels plan --partitions 10 --width 3 --no-progress > ${d('off.json')}`, true, env);
        expect(off.code).toBe(0);
        expect(off.text).toBe('');

        // A bad delay is refused like any bad setting: one line, exit 2.
        const bad = await sh(`${node} channels plan --partitions 10 --width 3`, false, { ASSIGNOR_PROGRESS_DELAY_MS: '2s' });
        expect(bad.code).toBe(2);
        expect(bad.text).toBe('assignor: ASSIGNOR_PROGRESS_DELAY_MS must be a whole number of milliseconds, got "2s" (at ASSIGNOR_PROGRESS_DELAY_MS)\n');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );

  it.skipIf(!hasScript && process.env.CI !== 'true')('with the real 2 s delay: a plan read slowly from stdin shows the reading step, counting bytes', async () => {
    expect(hasScript, 'util-linux `script` is needed to give the CLI a terminal').toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'assignor-progress-slow-'));
    try {
      const plan = join(dir, 'plan.json');
      expect((await sh(`${node} channels plan --partitions 100 --width 3 > ${q(plan)}`, false)).code).toBe(0);
      const size = readFileSync(plan).length;
      // Half the plan, then 2.5 s of nothing (no CPU), then the rest: the read lasts over 2 s.
      const feed = `(head -c ${size >> 1} ${q(plan)}; sleep 2.5; tail -c +${(size >> 1) + 1} ${q(plan)})`;
      const r = await sh(`${feed} | ${node} channels validate - --partitions 100 > ${q(join(dir, 'report.txt'))}`, true);
      expect(r.code, r.text).toBe(0);
      expect(r.text).toMatch(new RegExp(`\\rchannels validate: reading standard input [\\d,]+ bytes, [\\d,]+ bytes/s, [23] s\\x1b\\[K`));
      expect(r.text.endsWith('\r\x1b[K')).toBe(true);
      expect(readFileSync(join(dir, 'report.txt'), 'utf8')).toBe((await sh(`${node} channels validate ${q(plan)} --partitions 100`, false)).text);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
