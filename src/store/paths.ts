// Where a store's files are, and the symbolic-link rules (docs/store.md, "Links"):
// - the store directory may be a link to a directory (it is the operator's choice of location);
// - coordinator.log may be a link to a regular file: the store works on that file, keeps its
//   temporary files, backups and lock next to it, and never replaces the link;
// - a dangling link, a loop, or a link to anything but a regular file (a directory, a FIFO) is
//   refused with an error naming the link and its target, and nothing is created through it;
// - the lock file is never a link (a lock taken through one would not exclude anybody).
import fs from 'node:fs';
import path from 'node:path';
import { fail } from '../errors.js';
import { ioError, mkdirs } from './fsutil.js';

export const LOG_FILE = 'coordinator.log';
export const LOCK_FILE = 'coordinator.lock';

export interface StorePaths {
  /** The store directory (absolute). */
  dir: string;
  /** `<dir>/coordinator.log`, as the user names it. */
  logName: string;
  /** The file the log lives in: logName itself, or the regular file its link resolves to. */
  log: string;
  /** Set when logName is a symbolic link: its target as written in the link. */
  linkTarget: string | undefined;
  /** The writer's lock: next to the real log, `<name without .log>.lock` (coordinator.lock for a plain store). */
  lock: string;
  /** Whether the log exists. */
  exists: boolean;
}

function readlinkOr(p: string): string {
  try {
    return fs.readlinkSync(p);
  } catch {
    return '?';
  }
}

function linkError(link: string, what: string): never {
  fail('E_STORE_LINK', `${link} is a symbolic link ${what}`, link);
}

/** Explains why `p` (a symbolic link) cannot be followed, or returns the real path it names. */
function followLink(p: string, kind: 'log' | 'directory'): string {
  const target = readlinkOr(p);
  let real: string;
  try {
    real = fs.realpathSync(p);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') linkError(p, `in a loop (${p} -> ${target} -> ...); refusing to use it`);
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      linkError(
        p,
        `to ${target}, which does not exist (an unmounted volume?); refusing to create a ${kind === 'log' ? 'log' : 'store'} through a link. ` +
          `Make the target available, or remove the link to start a new store`,
      );
    }
    ioError(e, 'resolving the link', p);
  }
  return real;
}

/** The dangling link (and its target) along `p`'s existing prefix, if any: why a mkdir failed. */
function danglingAlong(p: string): { link: string; target: string } | undefined {
  let cur = p;
  for (;;) {
    try {
      const st = fs.lstatSync(cur);
      if (st.isSymbolicLink()) {
        try {
          fs.statSync(cur);
        } catch {
          return { link: cur, target: readlinkOr(cur) };
        }
      }
      return undefined;
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return undefined;
      cur = parent;
    }
  }
}

function lockOf(log: string): string {
  const base = path.basename(log);
  return path.join(path.dirname(log), `${base.endsWith('.log') ? base.slice(0, -4) : base}.lock`);
}

/**
 * Resolves the store's files under the link rules. `create` makes the directory when missing;
 * nothing is ever created through a link. `writer` (default: create) also refuses a lock file that
 * is a link. Throws E_STORE_LINK, E_STORE_FORMAT (a log that is not a regular file), E_STORE_IO.
 */
export function resolveStorePaths(dirArg: string, create: boolean, writer = create): StorePaths {
  const dir = path.resolve(dirArg);
  let dst: fs.Stats | undefined;
  try {
    dst = fs.lstatSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT' && (e as NodeJS.ErrnoException).code !== 'ENOTDIR') ioError(e, 'reading', dir);
  }
  if (dst?.isSymbolicLink()) {
    const real = followLink(dir, 'directory');
    if (!fs.statSync(real).isDirectory()) linkError(dir, `to ${readlinkOr(dir)}, which is not a directory; a store is a directory`);
  } else if (dst !== undefined && !dst.isDirectory()) {
    fail('E_STORE_FORMAT', `${dir} is not a directory; a store is a directory holding ${LOG_FILE}`, dir);
  } else if (dst === undefined && create) {
    const d = danglingAlong(dir);
    if (d !== undefined) linkError(d.link, `to ${d.target}, which does not exist; refusing to create the store ${dir} through it`);
    try {
      mkdirs(dir);
    } catch (e) {
      ioError(e, 'creating directory', dir);
    }
  }
  const logName = path.join(dir, LOG_FILE);
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(logName);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') ioError(e, 'reading', logName);
  }
  let log = logName;
  let linkTarget: string | undefined;
  if (st?.isSymbolicLink()) {
    linkTarget = readlinkOr(logName);
    log = followLink(logName, 'log');
    const real = fs.statSync(log);
    if (real.isDirectory()) linkError(logName, `to the directory ${linkTarget}; the log must be a regular file (use the directory itself as the store)`);
    if (!real.isFile()) linkError(logName, `to ${linkTarget}, which is not a regular file`);
  } else if (st !== undefined && !st.isFile()) {
    fail('E_STORE_FORMAT', `${logName} is ${st.isDirectory() ? 'a directory' : 'not a regular file'}; refusing to use it as a coordinator log`, logName);
  }
  const lock = lockOf(log);
  if (writer) {
    let lst: fs.Stats | undefined;
    try {
      lst = fs.lstatSync(lock);
    } catch {
      lst = undefined;
    }
    if (lst?.isSymbolicLink()) {
      fail('E_STORE_LINK', `lock file ${lock} is a symbolic link (to ${readlinkOr(lock)}); a lock is never taken through a link: remove it`, lock);
    }
  }
  return { dir, logName, log, linkTarget, lock, exists: st !== undefined };
}
