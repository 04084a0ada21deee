// `assignor standby` shows the shared progress bar (src/cli/progress.ts) on a
// terminal's stderr once a run has lasted 2 s, erases it, and never draws in a pipe.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, ROOT, wide } from '../helpers.js';
import { placeStandbys } from '../../src/standby/index.js';
import { scriptPrefix } from '../support/runtime.js';

describe('assignor standby progress, end to end', () => {
  const hasScript = spawnSync('script', ['--version']).status === 0;

  // Needs util-linux `script` for a pseudo-terminal: skipped without it locally, a failure in CI.
  it.skipIf(!hasScript && process.env.CI !== 'true')('shows on a terminal when a run lasts over 2 s, and never in a pipe', async () => {
    expect(hasScript, 'util-linux `script` is needed to give the CLI a terminal').toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'assignor-standby-progress-'));
    const spec = { clients: [{ id: 'a', active: ['0_0', '0_1'] }, { id: 'b', active: ['0_2'] }, { id: 'c' }], numStandbys: 1 };
    const text = JSON.stringify(spec);
    // The cluster arrives in two parts 2.5 s apart: the run lasts over 2 s at no CPU cost.
    const feed = `(printf '%s' ${JSON.stringify(text.slice(0, 20))}; sleep 2.5; printf '%s' ${JSON.stringify(text.slice(20))})`;
    const run = (stderrTo: string): Promise<string> =>
      new Promise((resolve) => {
        const cmd = `${feed} | ${[...scriptPrefix(), CLI].map((w) => JSON.stringify(w)).join(' ')} standby --input - --engine reference > ${join(dir, 'out.json')} ${stderrTo}`;
        const child = spawn('script', ['-qec', wide(cmd), '/dev/null'], { cwd: ROOT });
        let out = '';
        child.stdout.on('data', (b: Buffer) => (out += b.toString()));
        child.on('close', () => resolve(out));
      });
    const onTerminal = await run('');
    expect(onTerminal).toMatch(/\rstandby: placing, then writing the report \[[#.]+\] [\d.]+% \d+\/3 tasks, [\d,]+ tasks\/s, \d s\x1b\[K/);
    expect(onTerminal).toMatch(/\r\x1b\[K/); // erased at the end
    const want = `${JSON.stringify(placeStandbys(spec, { engine: 'reference' }).report(), null, 2)}\n`;
    expect(readFileSync(join(dir, 'out.json'), 'utf8')).toBe(want);
    const inPipe = await run(`2> ${join(dir, 'err.txt')}`);
    expect(inPipe).toBe('');
    expect(readFileSync(join(dir, 'err.txt'), 'utf8')).toBe('');
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
