// One writer at a time, across processes; stale locks from dead writers are taken over.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { AssignorError } from '../../src/errors.js';
import { CoordinatorStore, STORE_LOCK_FILE as LOCK_FILE } from '../../src/store/index.js';
import { cleanupTempDirs, exited, snapshotOf, spawnWriter, tempDir } from './helpers.js';
import { caught } from '../helpers.js';
import { itUnlessDeno } from '../support/runtime.js';

afterEach(() => cleanupTempDirs());


/** A pid that certainly belonged to a process that has exited (and been reaped). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('writer lock', () => {
  it('a second writer in the same process gets E_STORE_LOCKED naming the lock file and pid', () => {
    const dir = tempDir();
    const first = CoordinatorStore.open(dir);
    const e = caught(() => CoordinatorStore.open(dir));
    const lock = path.join(dir, LOCK_FILE);
    expect(e.code).toBe('E_STORE_LOCKED');
    expect(e.path).toBe(lock);
    expect(e.message).toContain(lock);
    expect(e.message).toContain(`pid ${process.pid}`);
    first.put('t', 'k', 1); // the failed open did not disturb the holder
    first.close();
    const second = CoordinatorStore.open(dir); // released on close
    expect(second.get('t', 'k')).toBe(1);
    second.close();
  });

  itUnlessDeno('the writer fixture is TypeScript run through tsx, a Node loader')('a writer in another process holds the lock until it closes', async () => {
    const dir = tempDir();
    const child = spawnWriter(dir, 'hold');
    try {
      const ready = await child.waitFor(/^ready \d+$/);
      const pid = Number(ready.split(' ')[1]);
      expect(pid).toBe(child.pid);
      const e = caught(() => CoordinatorStore.open(dir));
      expect(e.code).toBe('E_STORE_LOCKED');
      expect(e.message).toContain(path.join(dir, LOCK_FILE));
      expect(e.message).toContain(`pid ${pid}`);
      expect(e.message).not.toContain('this process');
      // readers need no lock and see the child's fsync'd write
      const ro = CoordinatorStore.open(dir, { readOnly: true });
      expect(ro.get('set-config', 'holder')).toEqual({ value: String(pid) });
      ro.close();
      child.stdin!.end(); // the child closes its store and exits
      await exited(child);
      expect(child.exitCode).toBe(0);
      const s = CoordinatorStore.open(dir);
      expect(s.openReport.staleLock).toBeUndefined(); // released cleanly, not taken over
      s.close();
    } finally {
      child.kill('SIGKILL');
    }
  });

  itUnlessDeno('the writer fixture is TypeScript run through tsx, a Node loader')('a writer killed with SIGKILL leaves a stale lock that is taken over, and every acknowledged write survives', async () => {
    const dir = tempDir();
    const child = spawnWriter(dir, 'spam');
    await child.waitFor(/^ack 300$/);
    child.kill('SIGKILL');
    await exited(child);
    const acked = child.lines.filter((l) => l.startsWith('ack ')).map((l) => Number(l.slice(4)));
    const last = Math.max(...acked);
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(true);

    const s = CoordinatorStore.open(dir);
    expect(s.openReport.staleLock?.pid).toBe(child.pid);
    const spam = s.entries('spam');
    const batch = s.entries('spam-batch');
    // every acknowledged put is there; at most the one in flight beyond it
    expect(spam.size === last + 1 || spam.size === last + 2).toBe(true);
    for (let i = 0; i < spam.size; i++) expect(spam.get(String(i))).toEqual({ i });
    // batches are atomic: both halves or neither
    for (let i = 3; i < spam.size; i += 7) expect(batch.get(String(i))).toEqual({ i });
    expect(batch.size).toBe([...spam.keys()].filter((k) => Number(k) % 7 === 3).length);
    s.close();
  });

  it('a stale lock from a dead pid on this host is taken over', () => {
    const dir = tempDir();
    CoordinatorStore.open(dir).close();
    const pid = deadPid();
    fs.writeFileSync(path.join(dir, LOCK_FILE), `${pid}\n${os.hostname()}\n`);
    const s = CoordinatorStore.open(dir);
    expect(s.openReport.staleLock?.pid).toBe(pid);
    expect(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8').split('\n')[0]).toBe(String(process.pid));
    expect(caught(() => CoordinatorStore.open(dir)).code).toBe('E_STORE_LOCKED');
    s.close();
    expect(fs.readdirSync(dir).filter((n) => n.includes('stale'))).toEqual([]);
  });

  it('a lock from another host is never taken over (its pid cannot be checked)', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, LOCK_FILE), `${deadPid()}\nsome-other-host.example\n`);
    const e = caught(() => CoordinatorStore.open(dir));
    expect(e.code).toBe('E_STORE_LOCKED');
    expect(e.message).toContain('on host some-other-host.example');
  });

  it('a lock without a pid is respected while fresh and taken over once old', () => {
    const dir = tempDir();
    const lock = path.join(dir, LOCK_FILE);
    fs.writeFileSync(lock, '');
    const e = caught(() => CoordinatorStore.open(dir));
    expect(e.code).toBe('E_STORE_LOCKED');
    expect(e.message).toContain('has not written its pid');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
    const s = CoordinatorStore.open(dir);
    expect(s.openReport.staleLock?.pid).toBeUndefined();
    expect(s.openReport.staleLock).toBeDefined();
    s.close();
  });

  it('close only removes the lock file while it is still ours', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir);
    const lock = path.join(dir, LOCK_FILE);
    fs.writeFileSync(lock, '999999\nelsewhere\n'); // someone replaced it by hand
    s.close();
    expect(fs.readFileSync(lock, 'utf8')).toBe('999999\nelsewhere\n');
  });
});
