// Shared helpers for the store tests: temp dirs, state snapshots, child-process writers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CoordinatorStore } from '../../src/store/index.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WRITER = fileURLToPath(new URL('./fixtures/writer.ts', import.meta.url));

const made: string[] = [];

export function tempDir(): string {
  const d = fs.mkdtempSync(os.tmpdir() + '/assignor-');
  made.push(d);
  return d;
}

export function cleanupTempDirs(): void {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

/** Everything the store holds, per type, in entries() order. */
export type Snapshot = Record<string, Array<[string, unknown]>>;

export function snapshot(store: CoordinatorStore, types?: string[]): Snapshot {
  const out: Snapshot = Object.create(null) as Snapshot;
  for (const t of types ?? store.types()) {
    const e = [...store.entries(t)];
    if (e.length > 0) out[t] = e;
  }
  return out;
}

/** Opens, reads a snapshot and closes. */
export function snapshotOf(dir: string, readOnly = false): Snapshot {
  const s = CoordinatorStore.open(dir, { readOnly });
  try {
    return snapshot(s);
  } finally {
    s.close();
  }
}

export function copyDir(from: string): string {
  const to = tempDir();
  fs.cpSync(from, to, { recursive: true });
  return to;
}

/** Runs test/store/fixtures/writer.ts in a separate node process. */
export function spawnWriter(dir: string, mode: 'hold' | 'spam'): ChildProcess & { lines: string[]; waitFor(re: RegExp): Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dir, mode], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  }) as ChildProcess & { lines: string[]; waitFor(re: RegExp): Promise<string> };
  child.lines = [];
  let buf = '';
  let stderr = '';
  const waiters: Array<{ re: RegExp; resolve: (l: string) => void }> = [];
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      child.lines.push(line);
      for (const w of waiters.splice(0)) {
        if (w.re.test(line)) w.resolve(line);
        else waiters.push(w);
      }
    }
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (c: string) => (stderr += c));
  child.waitFor = (re) =>
    new Promise((resolve, reject) => {
      const seen = child.lines.find((l) => re.test(l));
      if (seen !== undefined) return resolve(seen);
      waiters.push({ re, resolve });
      child.once('exit', (code) => reject(new Error(`writer exited (${code}) before ${re}: ${stderr}`)));
    });
  return child;
}

export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
}
