// kill -9 at random moments while a coordinator writes: after every restart the store holds
// exactly the last committed model or the one in flight, never a mix. 20 kills by default,
// 100 with ASSIGNOR_LONG=1. The coordinator is the built CLI's code (dist/), in its own process.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CoordinatorStore } from '../../src/store/index.js';
import { MemoryCoordinatorStore } from '../../src/store/memory-store.js';
import { runCycle } from '../../src/samza/cycle.js';
import { parseJobFile } from '../../src/samza/job-file.js';
import { TYPES } from '../../src/samza/managers.js';
import { ROOT } from '../helpers.js';
import { cleanupTempDirs, tempDir } from './helpers.js';

afterEach(() => cleanupTempDirs());

const WRITER = fileURLToPath(new URL('./fixtures/cycle-writer.mjs', import.meta.url));
const KILLS = Number(process.env.ASSIGNOR_LONG) ? 100 : 20;
const STREAMS = 20;
const PARTITIONS = 1000; // jobs of 20,000 and 40,000 SSPs: each cycle writes 20,000 SSP rows and more

type State = Record<string, Array<[string, unknown]>>;

/** What a store holds, per Samza type, order-free. */
function stateOf(s: { entries(t: string): Map<string, unknown> }): string {
  const out: State = {};
  for (const t of Object.values(TYPES)) out[t] = [...s.entries(t)].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return JSON.stringify(out);
}

function job(n: number) {
  const names = Array.from({ length: STREAMS }, (_, i) => `kafka.s${i}`);
  return parseJobFile({
    config: { 'task.inputs': names.join(','), 'job.container.count': '3', 'stores.s.factory': 'org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory' },
    partitions: Object.fromEntries(names.map((s) => [s, n])),
  });
}

interface Run {
  lines: string[];
  exited: Promise<void>;
  waitFor(re: RegExp): Promise<void>;
  kill(): void;
}

function startWriter(dir: string, first: number): Run {
  const child = spawn(process.execPath, [WRITER, dir, String(first), String(STREAMS), String(PARTITIONS)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let buf = '';
  let err = '';
  const waiters: Array<{ re: RegExp; resolve: () => void }> = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (c: string) => {
    buf += c;
    for (let i; (i = buf.indexOf('\n')) >= 0; buf = buf.slice(i + 1)) {
      const line = buf.slice(0, i);
      lines.push(line);
      for (const w of waiters.splice(0)) (w.re.test(line) ? w.resolve() : waiters.push(w));
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c: string) => (err += c));
  // 'close', not 'exit': every line the child wrote is read by then.
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    lines,
    exited,
    waitFor: (re) =>
      new Promise<void>((resolve, reject) => {
        if (lines.some((l) => re.test(l))) return resolve();
        waiters.push({ re, resolve });
        child.once('exit', () => reject(new Error(`writer exited before ${re}: ${err}`)));
      }),
    kill: () => child.kill('SIGKILL'),
  };
}

describe('kill -9 during store cycles', () => {
  it(`${KILLS} random kills: after each restart the model is the last committed one or the one in flight, never a mix`, async () => {
    // The two models the store alternates between (values only: envelopes carry timestamps).
    const mem = new MemoryCoordinatorStore();
    const empty = stateOf(mem);
    runCycle(mem, job(PARTITIONS));
    const stateA = stateOf(mem);
    runCycle(mem, job(2 * PARTITIONS));
    const stateB = stateOf(mem);
    runCycle(mem, job(PARTITIONS));
    expect(stateOf(mem)).toBe(stateA); // history-free: every cycle k leaves model k mod 2
    const model = (k: number): string => (k < 0 ? empty : k % 2 === 0 ? stateA : stateB);

    const dir = tempDir();
    let committed = -1; // the last cycle known committed
    let inWrite = 0;
    const history: string[] = [];
    let seed = 12345;
    const random = (): number => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    for (let kill = 0; kill < KILLS; kill++) {
      const run = startWriter(dir, committed + 1);
      await run.waitFor(/^begin /);
      // Kill somewhere in the next few hundred milliseconds: inside a write, between writes, in a compute.
      await new Promise((r) => setTimeout(r, random() * 250));
      run.kill();
      await run.exited;
      const acks = run.lines.filter((l) => l.startsWith('ack ')).map((l) => Number(l.slice(4)));
      const last = run.lines[run.lines.length - 1]!;
      if (last.startsWith('begin ')) inWrite++;
      const acked = acks.length > 0 ? Math.max(...acks) : committed;
      const s = CoordinatorStore.open(dir); // recovery: the writer's open
      const now = stateOf(s);
      s.close();
      // Exactly the last acknowledged model, or the next one whose commit was under way.
      history.push(`${kill}: acked ${acked}, ${now === stateA ? 'A' : now === stateB ? 'B' : now === empty ? 'empty' : '?'}`);
      if (now === model(acked + 1)) committed = acked + 1;
      else {
        expect(now === model(acked), `kill ${kill}: the store holds neither model ${acked} nor ${acked + 1}`).toBe(true);
        committed = acked;
      }
      expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    }
    // A last, clean run continues from what is stored.
    const s = CoordinatorStore.open(dir);
    const held = stateOf(s);
    expect(held === model(committed), `after the last kill the store holds ${held === stateA ? 'A' : held === stateB ? 'B' : 'neither'}, committed ${committed}: ${history.join('; ')}`).toBe(true);
    const r = runCycle(s, job(committed % 2 === 0 ? PARTITIONS : 2 * PARTITIONS));
    expect(r.recordsWritten).toBe(0);
    s.close();
    console.log(`kill -9: ${KILLS} kills, ${inWrite} with a batch write under way at the last line seen, ${committed + 1} cycles committed`);
    expect(committed).toBeGreaterThan(0);
    expect(inWrite, 'no kill landed while a batch was being written').toBeGreaterThan(0);
  }, 600_000);
});
