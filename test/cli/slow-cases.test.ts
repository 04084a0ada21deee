// Issue 14, "keep": inputs that are slow but correct stay correct, with output far larger than one
// JavaScript string streamed to a file. Default sizes are small; ASSIGNOR_LONG=1 runs the issue's
// own: hash --partitions 67,108,864 --stats --json, job.elasticity.factor 1,000,000 (a JobModel of
// about 1.2 GB) and job.standbytasks.replication.factor 1,000,000. Runs the built CLI (dist/).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const LONG = Number(process.env.ASSIGNOR_LONG) > 0;
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assignor-slow-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI with stdout into a file (never into this process's memory). */
function runToFile(args: string[], input = ''): { status: number | null; stderr: string; file: string } {
  const file = path.join(dir, `out-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  const fd = fs.openSync(file, 'w');
  try {
    const r = spawnSync(process.execPath, [CLI, ...args], { input, stdio: ['pipe', fd, 'pipe'], encoding: 'utf8', maxBuffer: 1 << 24 });
    return { status: r.status, stderr: r.stderr, file };
  } finally {
    fs.closeSync(fd);
  }
}

/** Occurrences of `needle` in a file, read in chunks. */
function countIn(file: string, needle: string): number {
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(1 << 24);
  let carry = '';
  let n = 0;
  try {
    for (;;) {
      const got = fs.readSync(fd, buf, 0, buf.length, null);
      if (got === 0) break;
      const text = carry + buf.toString('latin1', 0, got);
      for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) n++;
      // Kept for a match across the cut; shorter than the needle, so nothing is counted twice.
      carry = text.slice(Math.max(0, text.length - needle.length + 1));
    }
  } finally {
    fs.closeSync(fd);
  }
  return n;
}

function head(file: string, bytes: number): string {
  const fd = fs.openSync(file, 'r');
  try {
    const b = Buffer.alloc(bytes);
    return b.toString('utf8', 0, fs.readSync(fd, b, 0, bytes, 0));
  } finally {
    fs.closeSync(fd);
  }
}

function tail(file: string, bytes: number): string {
  const size = fs.statSync(file).size;
  const fd = fs.openSync(file, 'r');
  try {
    const b = Buffer.alloc(Math.min(bytes, size));
    fs.readSync(fd, b, 0, b.length, size - b.length);
    return b.toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

function jobFile(name: string, config: Record<string, string>): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify({ config: { 'task.inputs': 'kafka.A', 'job.container.count': '1', ...config }, partitions: { 'kafka.A': 1 } }));
  return file;
}

const TIMEOUT = LONG ? 1_800_000 : 120_000;

describe('slow but correct (issue 14, keep)', () => {
  const P = LONG ? 67_108_864 : 1 << 20;
  it(`hash --partitions ${P} --stats --json: every partition counted, streamed`, () => {
    const r = runToFile(['hash', '--partitions', String(P), '--stats', '--json'], 'a\nb\nc\n');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(head(r.file, 60).startsWith(`{"keys":3,"partitions":${P},"counts":[`)).toBe(true);
    expect(tail(r.file, 200)).toMatch(/\],"min":0,"max":1,"mean":[\d.e-]+,"skew":[\d.]+\}\n$/);
    // P counts: P - 1 commas inside the array, plus the 6 between the 7 fields of the object.
    expect(countIn(r.file, ',')).toBe(P - 1 + 6);
  }, TIMEOUT);

  const F = LONG ? 1_000_000 : 1000;
  it(`job.elasticity.factor ${F}: ${F} tasks, each in the JobModel once`, () => {
    const r = runToFile(['samza', 'plan', '--job', jobFile('elastic.json', { 'job.elasticity.factor': String(F) })]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${F} tasks in 1 containers`);
    expect(countIn(r.file, '"taskName":')).toBe(F);
    expect(tail(r.file, 2)).toBe('}\n');
  }, TIMEOUT);

  const R = LONG ? 1_000_000 : 1000;
  it(`job.standbytasks.replication.factor ${R}: one active task and ${R - 1} standby copies`, () => {
    const r = runToFile(['samza', 'plan', '--job', jobFile('standby.json', { 'job.standbytasks.replication.factor': String(R), 'stores.s.factory': 'x', 'stores.s.changelog': 'kafka.cl' })]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`(+${R - 1} standby containers, replication factor ${R})`);
    expect(countIn(r.file, '"mode":"Standby"')).toBe(R - 1);
    expect(countIn(r.file, '"mode":"Active"')).toBe(1);
    expect(tail(r.file, 2)).toBe('}\n');
  }, TIMEOUT);
});
