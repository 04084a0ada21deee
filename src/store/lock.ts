// One writer per store: a lock file created with O_EXCL holding the writer's pid and hostname.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fail } from '../errors.js';
import { fsyncDir, unlinkQuietly } from './fsutil.js';
import { randomId } from './format.js';

/** A lock file with no readable pid younger than this may still be being written; older is stale. */
export const EMPTY_LOCK_GRACE_MS = 10_000;

export interface LockHolder {
  raw: string;
  pid: number | undefined;
  host: string | undefined;
  mtimeMs: number;
}

export interface Lock {
  readonly path: string;
  /** Pid of the dead writer whose stale lock was taken over, if any. */
  readonly tookOverFrom: LockHolder | undefined;
  release(): void;
}

/** "<pid>\n<hostname>\n<token>\n"; the random token tells two locks of one process apart. */
function lockText(): string {
  return `${process.pid}\n${os.hostname()}\n${randomId(6).toString('hex')}\n`;
}

export function readHolder(file: string): LockHolder | undefined {
  let raw: string;
  let mtimeMs: number;
  try {
    raw = fs.readFileSync(file, 'utf8');
    mtimeMs = fs.statSync(file).mtimeMs;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const [pidLine, hostLine] = raw.split('\n');
  const pid = /^[1-9][0-9]*$/.test(pidLine ?? '') ? Number(pidLine) : undefined;
  return { raw, pid, host: hostLine || undefined, mtimeMs };
}

/** Whether the holder might still be running. Only a pid on this host that signal 0 cannot reach is dead. */
export function holderAlive(h: LockHolder): boolean {
  if (h.pid === undefined) return Date.now() - h.mtimeMs < EMPTY_LOCK_GRACE_MS;
  if (h.host !== undefined && h.host !== os.hostname()) return true; // cannot check another machine
  if (h.pid === process.pid) return true;
  try {
    process.kill(h.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH'; // EPERM: exists, owned by someone else
  }
}

function describeHolder(h: LockHolder): string {
  if (h.pid === undefined) return 'a process that has not written its pid yet';
  const host = h.host !== undefined && h.host !== os.hostname() ? ` on host ${h.host}` : '';
  return `pid ${h.pid}${host}${h.pid === process.pid ? ' (this process)' : ''}`;
}

function locked(file: string, h: LockHolder, storeName: string): never {
  fail(
    'E_STORE_LOCKED',
    `coordinator store ${storeName} is already open for writing: lock file ${file} is held by ${describeHolder(h)}. ` +
      `Close that writer first; if that process no longer exists, delete ${file}.`,
    file,
  );
}

/**
 * Takes the lock or throws E_STORE_LOCKED. A lock left by a dead pid on this host (or an empty lock
 * older than EMPTY_LOCK_GRACE_MS) is taken over: it is renamed aside, re-checked to be the same stale
 * file (so a concurrent taker's fresh lock is put back, not deleted), removed, and O_EXCL is retried.
 */
export function acquireLock(file: string, storeName: string): Lock {
  const dir = path.dirname(file);
  const text = lockText();
  let tookOverFrom: LockHolder | undefined;
  for (let attempt = 0; attempt < 8; attempt++) {
    try {
      const fd = fs.openSync(file, 'wx');
      try {
        fs.writeSync(fd, text);
        fs.fsyncSync(fd);
      } catch (e) {
        fs.closeSync(fd);
        unlinkQuietly(file); // never leave a lock without a pid behind
        throw e;
      }
      fs.closeSync(fd);
      fsyncDir(dir);
      return makeLock(file, text, tookOverFrom);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = readHolder(file);
    if (holder === undefined) continue; // released between our open and read: try again
    if (holderAlive(holder)) locked(file, holder, storeName);
    const aside = `${file}.stale-${process.pid}-${attempt}`;
    try {
      fs.renameSync(file, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    const moved = readHolder(aside);
    if (moved !== undefined && moved.raw !== holder.raw) {
      // Another process replaced the stale lock between our read and rename: give its lock back.
      try {
        fs.linkSync(aside, file);
      } catch {
        // a third process already holds the name; the lock stays with whoever has it
      }
      unlinkQuietly(aside);
      continue;
    }
    unlinkQuietly(aside);
    tookOverFrom = holder;
  }
  const h = readHolder(file);
  if (h !== undefined) locked(file, h, storeName);
  fail('E_STORE_LOCKED', `could not take the lock ${file} after repeated attempts (another writer is racing for it)`, file);
}

function makeLock(file: string, mine: string, tookOverFrom: LockHolder | undefined): Lock {
  let held = true;
  return {
    path: file,
    tookOverFrom,
    release() {
      if (!held) return;
      held = false;
      // Only remove the file while it is still ours (someone may have deleted it by hand and re-locked).
      const h = readHolder(file);
      if (h !== undefined && h.raw === mine) unlinkQuietly(file);
    },
  };
}
