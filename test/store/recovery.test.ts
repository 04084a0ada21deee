// Crash and damage recovery: torn tails at every byte, bit flips, damage in the middle,
// injected I/O failures. The rule: never a crash, never a wrong read, never lose fsync'd data.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AssignorError } from '../../src/errors.js';
import { CoordinatorStore, STORE_LOG_FILE as LOG_FILE } from '../../src/store/index.js';
import { COMMIT_SIZE, encodeFrame, HEADER_SIZE } from '../../src/store/format.js';
import { encodeBody, Sink, writeMessages, writeSsps } from '../../src/store/body.js';
import { cleanupTempDirs, copyDir, snapshot, snapshotOf, tempDir, type Snapshot } from './helpers.js';
import { caught } from '../helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
  cleanupTempDirs();
});


/** A store with some history, then one more write; returns the offsets and states around that write. */
function lastWriteFixture(last: (s: CoordinatorStore) => void): {
  dir: string;
  start: number;
  commitStart: number;
  end: number;
  before: Snapshot;
  after: Snapshot;
} {
  const dir = tempDir();
  const s = CoordinatorStore.open(dir);
  s.put('set-changelog', 'Partition 0', { Partition: '0' });
  s.commit([
    { type: 'set-task-container-assignment', key: 'Partition 0', value: { containerId: '0' } },
    { type: 'set-task-mode-assignment', key: 'Partition 0', value: { taskMode: 'Active' } },
  ]);
  s.delete('set-changelog', 'Partition 0');
  s.put('set-changelog', 'Partition 1', { Partition: '1' });
  const before = snapshot(s);
  const start = fs.statSync(s.path).size;
  last(s);
  const after = snapshot(s);
  const end = fs.statSync(s.path).size;
  s.close();
  return { dir, start, commitStart: end - COMMIT_SIZE, end, before, after };
}

const lastWrites: Array<[string, (s: CoordinatorStore) => void]> = [
  ['a put', (s) => s.put('set-changelog', 'Partition 2', { Partition: '2' })],
  ['an overwrite', (s) => s.put('set-changelog', 'Partition 1', { Partition: '9' })],
  ['a delete', (s) => s.delete('set-task-mode-assignment', 'Partition 0')],
  [
    'a batch',
    (s) =>
      s.commit([
        { type: 'set-changelog', key: 'Partition 3', value: { Partition: '3' } },
        { type: 'set-task-container-assignment', key: 'Partition 0', value: null },
        { type: 'set-config', key: '__proto__', value: { value: 'x' } },
        { type: 'other', key: 'k', value: { a: [1, 2], b: null } },
      ]),
  ],
  [
    'a batch with SSP rows',
    (s) =>
      s.commit([{ type: 'set-changelog', key: 'Partition 4', value: { Partition: '4' } }], {
        streams: [{ system: 'kafka', stream: 'PVE' }],
        lists: ['["Partition 0"]', '["Partition 1"]'],
        n: 3,
        stream: Int32Array.of(0, 0, 0),
        partition: Int32Array.of(0, 1, 2),
        bucket: null,
        list: Int32Array.of(0, 1, 0),
      }),
  ],
];

describe('torn tail (kill mid-append)', () => {
  for (const [name, last] of lastWrites) {
    it(`cutting ${name} at every byte: inside the frame restores the state before it; inside its commit marker keeps it and re-marks it`, () => {
      const { dir, start, commitStart, end, before, after } = lastWriteFixture(last);
      expect(end).toBeGreaterThan(start);
      expect(snapshotOf(copyDir(dir))).toEqual(after);
      const file = path.join(dir, LOG_FILE);
      const original = fs.readFileSync(file);
      for (let cut = start; cut < end; cut++) {
        const framed = cut >= commitStart; // the frame is complete; only (part of) its marker is missing
        fs.writeFileSync(file, original.subarray(0, cut));
        // A reader ignores the torn bytes and leaves them alone.
        const ro = CoordinatorStore.open(dir, { readOnly: true });
        expect(snapshot(ro)).toEqual(framed ? after : before);
        expect(ro.truncatedBytes).toBe(cut - (framed ? commitStart : start));
        ro.close();
        expect(fs.statSync(file).size).toBe(cut);
        // A writer drops them, and marks a complete last frame committed (the marker is deterministic).
        const s = CoordinatorStore.open(dir);
        expect(snapshot(s)).toEqual(framed ? after : before);
        expect(s.truncatedBytes).toBe(cut - (framed ? commitStart : start));
        expect(s.openReport.committedLastFrame).toBe(framed);
        if (framed) expect(fs.readFileSync(file).equals(original)).toBe(true);
        else expect(fs.statSync(file).size).toBe(start);
        // and the next append lands on a clean end (checked on a sample of cuts: each costs fsyncs).
        if ((cut - start) % 7 === 1 || cut === end - 1) {
          s.put('after', 'crash', cut);
          s.close();
          const r = CoordinatorStore.open(dir, { readOnly: true });
          expect(r.truncatedBytes).toBe(0);
          expect(r.get('after', 'crash')).toBe(cut);
          r.close();
        } else {
          s.close();
        }
      }
    });
  }

  it('a torn batch of 20,000 records is recognised quickly (the search behind it stays linear)', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir);
    s.put('keep', 'me', 1);
    const start = s.fileBytes;
    const batch = [];
    for (let i = 0; i < 20_000; i++) {
      batch.push({ type: 'set-task-partition-assignment', key: `{"system":"kafka","partition":${i},"stream":"PVE","keyBucket":-1}`, value: { taskNames: `["Partition ${i}"]` } });
    }
    s.commit(batch);
    const end = s.fileBytes;
    s.close();
    fs.truncateSync(path.join(dir, LOG_FILE), end - COMMIT_SIZE - 1);
    const t0 = performance.now();
    const r = CoordinatorStore.open(dir);
    const ms = performance.now() - t0;
    expect(snapshot(r)).toEqual({ keep: [['me', 1]] });
    expect(r.truncatedBytes).toBe(end - COMMIT_SIZE - 1 - start);
    r.close();
    expect(ms).toBeLessThan(5000);
  });

  it('a tail of zeros (file extended, data never written) is a torn tail', () => {
    const { dir, end, after } = lastWriteFixture((s) => s.put('t', 'k', 1));
    fs.appendFileSync(path.join(dir, LOG_FILE), Buffer.alloc(4096));
    const s = CoordinatorStore.open(dir);
    expect(snapshot(s)).toEqual(after);
    expect(s.truncatedBytes).toBe(4096);
    expect(fs.statSync(s.path).size).toBe(end);
    s.close();
  });
});

describe('bit flips', () => {
  for (const [name, last] of lastWrites) {
    it(`a flipped bit anywhere in ${name}, once committed, is damage: refused unchanged, and repair cuts it`, () => {
      const { dir, start, commitStart, before } = lastWriteFixture(last);
      const file = path.join(dir, LOG_FILE);
      const original = fs.readFileSync(file);
      for (let at = start; at < commitStart; at++) {
        for (const bit of at < start + 12 ? [0, 3, 7] : [(at * 5) % 8]) {
          const damaged = Buffer.from(original);
          damaged[at]! ^= 1 << bit;
          fs.writeFileSync(file, damaged);
          const e = caught(() => CoordinatorStore.open(dir));
          expect(e.code).toBe('E_STORE_CORRUPT');
          expect(e.path).toBe(`${file}@${start}`);
          expect(caught(() => CoordinatorStore.open(dir, { readOnly: true })).code).toBe('E_STORE_CORRUPT');
          expect(fs.readFileSync(file).equals(damaged)).toBe(true);
          if (at % 11 === 0) {
            const r = CoordinatorStore.open(dir, { repair: true });
            expect(snapshot(r)).toEqual(before);
            expect(fs.readFileSync(r.openReport.backupPath!).equals(damaged)).toBe(true);
            fs.unlinkSync(r.openReport.backupPath!);
            r.close();
          }
        }
      }
    });

    it(`a flipped bit in ${name} before it was committed (no marker) is an unfinished write: dropped`, () => {
      const { dir, start, commitStart, before } = lastWriteFixture(last);
      const file = path.join(dir, LOG_FILE);
      const original = fs.readFileSync(file).subarray(0, commitStart);
      for (let at = start; at < commitStart; at += 3) {
        const damaged = Buffer.from(original);
        damaged[at]! ^= 1 << (at % 8);
        fs.writeFileSync(file, damaged);
        const s = CoordinatorStore.open(dir);
        expect(snapshot(s)).toEqual(before);
        expect(s.truncatedBytes).toBe(commitStart - start);
        s.close();
      }
    });

    it(`a flipped bit in the commit marker of ${name} loses nothing: the marker is rewritten`, () => {
      const { dir, commitStart, end, after } = lastWriteFixture(last);
      const file = path.join(dir, LOG_FILE);
      const original = fs.readFileSync(file);
      for (let at = commitStart; at < end; at++) {
        const damaged = Buffer.from(original);
        damaged[at]! ^= 1 << (at % 8);
        fs.writeFileSync(file, damaged);
        const s = CoordinatorStore.open(dir);
        expect(snapshot(s)).toEqual(after);
        s.close();
        expect(fs.readFileSync(file).equals(original)).toBe(true);
      }
    });
  }

  it('damage in the middle followed by good frames is refused unchanged, and repair keeps a copy', () => {
    const { dir, after } = lastWriteFixture((s) => s.put('t', 'k', 1));
    const file = path.join(dir, LOG_FILE);
    const original = fs.readFileSync(file);
    const damaged = Buffer.from(original);
    const at = HEADER_SIZE + 20; // inside the first frame
    damaged[at]! ^= 0x10;
    fs.writeFileSync(file, damaged);

    const e = caught(() => CoordinatorStore.open(dir));
    expect(e.code).toBe('E_STORE_CORRUPT');
    expect(e.message).toContain(file);
    expect(e.message).toContain(`byte ${HEADER_SIZE}`);
    expect(e.message).toContain('repair');
    expect(caught(() => CoordinatorStore.open(dir, { readOnly: true })).code).toBe('E_STORE_CORRUPT');
    expect(fs.readFileSync(file).equals(damaged)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual([LOG_FILE]); // lock released, nothing else left behind

    const s = CoordinatorStore.open(dir, { repair: true });
    expect(snapshot(s)).toEqual({}); // everything from the damaged frame on is cut
    const backup = s.openReport.backupPath!;
    expect(fs.readFileSync(backup).equals(damaged)).toBe(true);
    expect(fs.statSync(file).size).toBe(HEADER_SIZE);
    s.close();
    expect(snapshotOf(dir)).toEqual({});
    expect(Object.keys(after).length).toBeGreaterThan(0);
  });

  it('damage to a frame in the middle (not the first) is refused; repair keeps the frames before it', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir);
    s.put('t', 'a', 1);
    s.put('t', 'b', 2);
    const second = s.fileBytes;
    s.put('t', 'c', 3);
    s.put('t', 'd', 4);
    s.close();
    const file = path.join(dir, LOG_FILE);
    const damaged = fs.readFileSync(file);
    damaged[second + 30]! ^= 0x01;
    fs.writeFileSync(file, damaged);
    const e = caught(() => CoordinatorStore.open(dir));
    expect(e.code).toBe('E_STORE_CORRUPT');
    expect(e.path).toBe(`${file}@${second}`);
    expect(fs.readFileSync(file).equals(damaged)).toBe(true);
    const r = CoordinatorStore.open(dir, { repair: true });
    expect(snapshot(r)).toEqual({ t: [['a', 1], ['b', 2]] });
    expect(r.truncatedBytes).toBe(damaged.length - second);
    r.close();
  });

  it('a frame whose CRC matches but whose contents are not Samza messages is refused', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir);
    s.put('t', 'k', 1);
    s.close();
    const file = path.join(dir, LOG_FILE);
    const fileId = fs.readFileSync(file).subarray(12, 20);
    const messages = (m: { key: string; value: string | null }) => (o: Sink) => writeMessages(o, [m]);
    const ssps = (list: number, stream = 0) => (o: Sink) =>
      writeSsps(o, { streams: [{ system: 'kafka', stream: 'PVE' }], lists: ['["a"]'], n: 1, stream: Int32Array.of(stream), partition: Int32Array.of(0), bucket: null, list: Int32Array.of(list), meta: null });
    const cases: Array<[string, (o: Sink) => void]> = [
      ['wrong key version', messages({ key: '[2,"t","k"]', value: null })],
      ['key not JSON', messages({ key: 'not json', value: null })],
      ['envelope without values', messages({ key: '[1,"t","k"]', value: '{"no":"values"}' })],
      ['envelope not an object', messages({ key: '[1,"t","k"]', value: '[1]' })],
      ['SSP row naming a list that is not there', ssps(1)],
      ['SSP row naming a stream that is not there', ssps(0, 3)],
      ['unknown section kind', (o) => [9, 0, 0, 0, 0, 0, 0, 0].forEach((b) => o.u8(b))],
    ];
    for (const [what, write] of cases) {
      const d = copyDir(dir);
      const sink = new Sink();
      write(sink);
      const body = encodeBody(['{"host":"h","username":"u","source":"SamzaContainer","timestamp":1}'], sink, 1);
      const { head, commit } = encodeFrame(fileId, body.chunks);
      fs.appendFileSync(path.join(d, LOG_FILE), Buffer.concat([head, ...body.chunks, commit]));
      const before = fs.readFileSync(path.join(d, LOG_FILE));
      const e = caught(() => CoordinatorStore.open(d));
      expect(e.code, what).toBe('E_STORE_CORRUPT');
      expect(e.message, what).toContain('malformed');
      expect(fs.readFileSync(path.join(d, LOG_FILE)).equals(before)).toBe(true);
      const r = CoordinatorStore.open(d, { repair: true });
      expect(snapshot(r)).toEqual({ t: [['k', 1]] });
      r.close();
    }
  });

  it('frames copied from another log (different file id) are not accepted', () => {
    const a = tempDir();
    const b = tempDir();
    const sa = CoordinatorStore.open(a);
    const sb = CoordinatorStore.open(b);
    sb.put('t', 'b', 1);
    const startB = fs.statSync(sb.path).size;
    sb.put('t', 'b2', 2);
    sa.close();
    sb.close();
    const frame = fs.readFileSync(path.join(b, LOG_FILE)).subarray(startB);
    fs.appendFileSync(path.join(a, LOG_FILE), frame);
    const s = CoordinatorStore.open(a);
    expect(snapshot(s)).toEqual({});
    expect(s.truncatedBytes).toBe(frame.length);
    s.close();
  });
});

describe('failed writes never damage what is stored', () => {
  it('a failing write is cut back; the store stays usable and consistent', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir);
    s.put('t', 'a', 1);
    const size = fs.statSync(s.path).size;
    const real = fs.writeSync;
    let calls = 0;
    vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, buf: Buffer, off: number, len: number, pos: number) => {
      // write half the frame, then fail: a short write followed by ENOSPC
      if (calls++ === 0) return real(fd, buf, off, Math.floor(len / 2), pos);
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    }) as typeof fs.writeSync);
    const e = caught(() => s.put('t', 'b', 2));
    expect(e.code).toBe('E_STORE_IO');
    expect(e.message).toContain('ENOSPC');
    vi.restoreAllMocks();
    expect(fs.statSync(s.path).size).toBe(size);
    expect(s.get('t', 'b')).toBeUndefined();
    s.put('t', 'c', 3);
    s.close();
    const r = CoordinatorStore.open(dir);
    expect(r.truncatedBytes).toBe(0);
    expect(snapshot(r)).toEqual({ t: [['a', 1], ['c', 3]] });
    r.close();
  });

  it('a failing fsync makes the store refuse further writes until reopened', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir);
    s.put('t', 'a', 1);
    vi.spyOn(fs, 'fsyncSync').mockImplementationOnce(() => {
      throw Object.assign(new Error('i/o error'), { code: 'EIO' });
    });
    expect(caught(() => s.put('t', 'b', 2)).code).toBe('E_STORE_IO');
    vi.restoreAllMocks();
    const e = caught(() => s.put('t', 'c', 3));
    expect(e.code).toBe('E_STORE_IO');
    expect(e.message).toContain('reopen');
    expect(s.get('t', 'b')).toBeUndefined();
    s.close();
    // The failed record was cut back, so disk and the error agree.
    expect(snapshotOf(dir)).toEqual({ t: [['a', 1]] });
  });

  it('a failing compaction leaves the log exactly as it was', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir);
    for (let i = 0; i < 20; i++) s.put('t', String(i % 5), i);
    const bytes = fs.readFileSync(s.path);
    const before = snapshot(s);
    vi.spyOn(fs, 'renameSync').mockImplementationOnce(() => {
      throw Object.assign(new Error('cross-device link'), { code: 'EXDEV' });
    });
    expect(caught(() => s.compact()).code).toBe('E_STORE_IO');
    vi.restoreAllMocks();
    expect(fs.readFileSync(s.path).equals(bytes)).toBe(true);
    expect(fs.readdirSync(dir).sort()).toEqual(['coordinator.lock', LOG_FILE]); // temp removed
    s.put('t', 'after', 1); // still usable
    s.close();
    expect(snapshotOf(dir)).toEqual({ t: [...before.t!, ['after', 1]] });
  });

  it('a failing fsync during compaction leaves the log exactly as it was', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir);
    for (let i = 0; i < 20; i++) s.put('t', String(i % 5), i);
    const bytes = fs.readFileSync(s.path);
    vi.spyOn(fs, 'fsyncSync').mockImplementationOnce(() => {
      throw Object.assign(new Error('i/o error'), { code: 'EIO' });
    });
    expect(caught(() => s.compact()).code).toBe('E_STORE_IO');
    vi.restoreAllMocks();
    expect(fs.readFileSync(s.path).equals(bytes)).toBe(true);
    s.close();
  });
});
