// Symbolic links (docs/store.md, "Links"): never replace or create through a link we did not
// create; follow a link to a regular file and keep it; refuse every other kind, naming link and target.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { CoordinatorStore, STORE_LOCK_FILE as LOCK_FILE, STORE_LOG_FILE as LOG_FILE } from '../../src/store/index.js';
import { cleanupTempDirs, snapshot, snapshotOf, tempDir } from './helpers.js';
import { caught } from '../helpers.js';

afterEach(() => cleanupTempDirs());

/** Both a writer and a reader refuse with E_STORE_LINK naming `names`; nothing in `dir` changes. */
function refusedBoth(dir: string, names: string[]): void {
  const listing = fs.readdirSync(dir).sort();
  for (const readOnly of [false, true]) {
    const e = caught(() => CoordinatorStore.open(dir, { readOnly }));
    expect(e.code).toBe('E_STORE_LINK');
    for (const n of names) expect(e.message).toContain(n);
    expect(fs.readdirSync(dir).sort()).toEqual(listing); // no lock left, nothing created
  }
}

describe('coordinator.log as a symbolic link', () => {
  it('a dangling link is refused, naming the link and its target; nothing is created through it', () => {
    const dir = tempDir();
    const target = path.join(tempDir(), 'unmounted', 'coordinator.log');
    const link = path.join(dir, LOG_FILE);
    fs.symlinkSync(target, link);
    refusedBoth(dir, [link, target, 'does not exist']);
    expect(fs.readlinkSync(link)).toBe(target);
    expect(fs.existsSync(path.dirname(target))).toBe(false);
    // The same with the target's directory present: still nothing created there.
    fs.mkdirSync(path.dirname(target));
    refusedBoth(dir, [link, target]);
    expect(fs.readdirSync(path.dirname(target))).toEqual([]);
  });

  it('a link loop is refused, naming the link', () => {
    const dir = tempDir();
    const link = path.join(dir, LOG_FILE);
    fs.symlinkSync(link, link);
    refusedBoth(dir, [link, 'loop']);
    const a = path.join(dir, 'a');
    fs.unlinkSync(link);
    fs.symlinkSync(a, link);
    fs.symlinkSync(link, a);
    refusedBoth(dir, [link, 'loop']);
    expect(fs.readlinkSync(link)).toBe(a);
  });

  it('a link to a directory is refused', () => {
    const dir = tempDir();
    const target = tempDir();
    const link = path.join(dir, LOG_FILE);
    fs.symlinkSync(target, link);
    refusedBoth(dir, [link, target, 'directory']);
  });

  it('a link to a regular file is followed: data goes to the target, the link survives writes, compaction and repair', () => {
    const dir = tempDir();
    const elsewhere = tempDir();
    const target = path.join(elsewhere, 'job1.log');
    const seed = CoordinatorStore.open(elsewhere); // a real log, then renamed to a name of the operator's choosing
    seed.put('t', 'seed', 1);
    seed.close();
    fs.renameSync(path.join(elsewhere, LOG_FILE), target);
    const link = path.join(dir, LOG_FILE);
    fs.symlinkSync(target, link);

    const s = CoordinatorStore.open(dir, { autoCompact: false });
    expect(s.get('t', 'seed')).toBe(1);
    // The lock sits next to the real log, so two store directories linking one log exclude each other.
    expect(fs.existsSync(path.join(elsewhere, 'job1.lock'))).toBe(true);
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    const other = tempDir();
    fs.symlinkSync(target, path.join(other, LOG_FILE));
    expect(caught(() => CoordinatorStore.open(other)).code).toBe('E_STORE_LOCKED');
    for (let i = 0; i < 20; i++) s.put('t', String(i % 3), i);
    s.compact();
    s.put('t', 'after', 2);
    expect(s.stats().linkTarget).toBe(target);
    s.close();
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readlinkSync(link)).toBe(target);
    expect(fs.readdirSync(dir)).toEqual([LOG_FILE]);
    expect(fs.readdirSync(elsewhere).sort()).toEqual(['job1.log']); // temp file renamed in, lock released
    expect(snapshotOf(dir)).toEqual({ t: [['seed', 1], ['0', 18], ['1', 19], ['2', 17], ['after', 2]] });

    // Repair keeps its copy next to the real file too.
    const bytes = fs.readFileSync(target);
    bytes[40]! ^= 1;
    fs.writeFileSync(target, bytes);
    expect(caught(() => CoordinatorStore.open(dir)).code).toBe('E_STORE_CORRUPT');
    const r = CoordinatorStore.open(dir, { repair: true });
    expect(path.dirname(r.openReport.backupPath!)).toBe(elsewhere);
    expect(snapshot(r)).toEqual({});
    r.close();
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it('a chain of links to a regular file is followed to its end', () => {
    const dir = tempDir();
    const real = tempDir();
    CoordinatorStore.open(real).close();
    const mid = path.join(tempDir(), 'mid.log');
    fs.symlinkSync(path.join(real, LOG_FILE), mid);
    fs.symlinkSync(mid, path.join(dir, LOG_FILE));
    const s = CoordinatorStore.open(dir);
    s.put('t', 'k', 1);
    s.close();
    expect(snapshotOf(real)).toEqual({ t: [['k', 1]] });
  });

  it('a log that is a directory or a FIFO (not a regular file) is refused without blocking', () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, LOG_FILE));
    expect(caught(() => CoordinatorStore.open(dir)).code).toBe('E_STORE_FORMAT');
    const dir2 = tempDir();
    const fifo = path.join(tempDir(), 'pipe');
    fs.symlinkSync(fifo, path.join(dir2, LOG_FILE));
    // mkfifo(1) keeps the test free of native modules.
    const { status } = spawnSync('mkfifo', [fifo]);
    expect(status).toBe(0);
    const e = caught(() => CoordinatorStore.open(dir2));
    expect(e.code).toBe('E_STORE_LINK');
    expect(e.message).toContain('not a regular file');
  });
});

describe('the lock file and the store directory as links', () => {
  it('a lock file that is a link (dangling or not) is refused and left alone', () => {
    for (const target of ['/nonexistent/lock', '/etc/hostname']) {
      const dir = tempDir();
      CoordinatorStore.open(dir).close();
      const lock = path.join(dir, LOCK_FILE);
      fs.symlinkSync(target, lock);
      const e = caught(() => CoordinatorStore.open(dir));
      expect(e.code).toBe('E_STORE_LINK');
      expect(e.message).toContain(lock);
      expect(e.message).toContain(target);
      expect(fs.readlinkSync(lock)).toBe(target);
      // Readers take no lock, so they still read.
      expect(snapshotOf(dir, true)).toEqual({});
    }
  });

  it('a store directory that is a link to a directory works; a dangling one is refused', () => {
    const real = tempDir();
    const link = path.join(tempDir(), 'store');
    fs.symlinkSync(real, link);
    const s = CoordinatorStore.open(link);
    s.put('t', 'k', 1);
    s.close();
    expect(snapshotOf(real)).toEqual({ t: [['k', 1]] });

    const dangling = path.join(tempDir(), 'store');
    const gone = path.join(tempDir(), 'gone');
    fs.symlinkSync(gone, dangling);
    for (const readOnly of [false, true]) {
      const e = caught(() => CoordinatorStore.open(dangling, { readOnly }));
      expect(e.code).toBe('E_STORE_LINK');
      expect(e.message).toContain(dangling);
      expect(e.message).toContain(gone);
    }
    expect(fs.existsSync(gone)).toBe(false);
    // A store below a dangling link is refused the same way (mkdir -p would fail obscurely).
    const e = caught(() => CoordinatorStore.open(path.join(dangling, 'sub')));
    expect(e.code).toBe('E_STORE_LINK');
    expect(e.message).toContain(gone);
  });
});
