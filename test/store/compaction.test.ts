// Compaction: same state, smaller file, atomic replacement, leftovers of a crashed compaction ignored.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CoordinatorStore, STORE_LOG_FILE as LOG_FILE } from '../../src/store/index.js';
import { cleanupTempDirs, snapshot, snapshotOf, tempDir } from './helpers.js';

afterEach(() => cleanupTempDirs());

function busyStore(dir: string): CoordinatorStore {
  const s = CoordinatorStore.open(dir, { host: 'h', username: 'u', now: () => 42 });
  for (let round = 0; round < 10; round++) {
    const batch = [];
    for (let p = 0; p < 50; p++) batch.push({ type: 'set-changelog', key: `Partition ${p}`, value: { Partition: String(p + round) } });
    s.writeBatch(batch);
    s.delete('set-changelog', `Partition ${round}`);
  }
  s.put('set-config', '__proto__', { value: 'v' });
  s.delete('gone', 'x');
  s.put('gone', 'y', 1);
  s.delete('gone', 'y');
  return s;
}

describe('compaction', () => {
  it('keeps the live value of every key, in entries() order, and shrinks the file', () => {
    const dir = tempDir();
    const s = busyStore(dir);
    const before = snapshot(s);
    const envelope = s.message('set-changelog', 'Partition 20');
    const size = fs.statSync(s.path).size;
    s.compact();
    expect(snapshot(s)).toEqual(before);
    expect(fs.statSync(s.path).size).toBeLessThan(size / 5);
    expect(s.fileBytes).toBe(fs.statSync(s.path).size);
    expect(s.message('set-changelog', 'Partition 20')).toEqual(envelope); // envelopes kept verbatim
    // appends after compaction go to the new file
    s.put('set-changelog', 'Partition new', { Partition: 'again' });
    s.compact();
    s.compact(); // compacting a compact log is harmless
    const after = snapshot(s);
    s.close();
    expect(snapshotOf(dir)).toEqual(after);
    expect([...after['set-changelog']!].at(-1)).toEqual(['Partition new', { Partition: 'again' }]);
    expect(fs.readdirSync(dir)).toEqual([LOG_FILE]);
  });

  it('an empty store compacts to a bare header', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir);
    s.put('t', 'k', 1);
    s.delete('t', 'k');
    s.compact();
    expect(fs.statSync(s.path).size).toBe(24);
    s.close();
    expect(snapshotOf(dir)).toEqual({});
  });

  it('a crash mid-compaction (temp file left behind) is ignored by readers and cleaned by the next writer', () => {
    const dir = tempDir();
    const s = busyStore(dir);
    const before = snapshot(s);
    s.close();
    const log = fs.readFileSync(path.join(dir, LOG_FILE));
    // A half-written compaction output and a complete one that never got renamed in.
    const torn = path.join(dir, `${LOG_FILE}.compact-12345.tmp`);
    const whole = path.join(dir, `${LOG_FILE}.compact-777.tmp`);
    fs.writeFileSync(torn, log.subarray(0, 100));
    const other = tempDir();
    const o = CoordinatorStore.open(other);
    o.put('wrong', 'state', 1);
    o.close();
    fs.copyFileSync(path.join(other, LOG_FILE), whole);

    expect(snapshotOf(dir, true)).toEqual(before);
    expect(fs.existsSync(torn) && fs.existsSync(whole)).toBe(true); // readers change nothing

    const w = CoordinatorStore.open(dir);
    expect(snapshot(w)).toEqual(before);
    expect(w.openReport.removedTempFiles.sort()).toEqual([path.basename(whole), path.basename(torn)].sort());
    expect(fs.existsSync(torn) || fs.existsSync(whole)).toBe(false);
    w.close();
  });

  it('a reader that opened before a compaction keeps its snapshot; a new reader sees the same state', () => {
    const dir = tempDir();
    const s = busyStore(dir);
    const ro = CoordinatorStore.open(dir, { readOnly: true });
    s.compact();
    expect(snapshot(ro)).toEqual(snapshot(s));
    expect(snapshotOf(dir, true)).toEqual(snapshot(s));
    ro.close();
    s.close();
  });
});
