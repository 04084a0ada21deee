// Issue 25: `store compact` must never grow a log. A write stamps all its rows with one envelope
// head (the frame's meta 0, no per-row column); compaction puts the rows of several writes
// ("write metas") into one section, and where their runs are short it needed a 4-byte meta id per
// row. A 100,000-SSP store whose second write touched every 1,000th SSP went from 1.21 to 1.60 MB.
// Now such rows are written under the most common meta and the few others again with theirs, and
// a compaction that would still not be smaller writes nothing, leaves the log byte for byte, and says so.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { CoordinatorStore, STORE_LOG_FILE as LOG_FILE } from '../../src/store/index.js';
import { cli } from '../helpers.js';
import { cleanupTempDirs, tempDir } from './helpers.js';

afterEach(() => cleanupTempDirs());

const LISTS = Array.from({ length: 200 }, (_, i) => JSON.stringify([`Partition ${i}`]));

/** One write of SSP rows (one frame, one envelope head: one write meta). */
function writeRows(s: CoordinatorStore, partitions: number[], list: (p: number) => number): void {
  s.commit([], {
    streams: [{ system: 'kafka', stream: 'PVE' }],
    lists: LISTS,
    n: partitions.length,
    stream: new Int32Array(partitions.length),
    partition: Int32Array.from(partitions),
    bucket: null,
    list: Int32Array.from(partitions, list),
  });
}

const every = (n: number, step: number): number[] => Array.from({ length: Math.ceil(n / step) }, (_, i) => i * step);

/** 100,000 SSPs written once, then `later` writes each touching every step-th SSP, each at its own time. */
function wideStore(dir: string, later: number[]): CoordinatorStore {
  let now = 1;
  const s = CoordinatorStore.open(dir, { host: 'h', username: 'u', now: () => now, autoCompact: false });
  writeRows(s, every(100_000, 1), (p) => p % 200);
  for (const step of later) {
    now++;
    writeRows(s, every(100_000, step), (p) => (p + now) % 200);
  }
  return s;
}

describe('store compact never grows a log (issue 25)', () => {
  for (const later of [[1000], [7, 3000], [100, 1000, 5000]]) {
    it(`100,000 SSPs and ${later.length + 1} write metas (later writes every ${later.join('th, ')}th SSP): not larger, state kept`, () => {
      const dir = tempDir();
      const s = wideStore(dir, later);
      const before = fs.readFileSync(s.path);
      const messages = [...s.messages()];
      const r = s.compact();
      const after = fs.readFileSync(s.path);
      expect(after.length).toBeLessThanOrEqual(before.length);
      expect(r.bytesBefore).toBe(before.length);
      expect(r.bytesAfter).toBe(after.length);
      if (!r.compacted) expect(after.equals(before)).toBe(true); // left untouched, byte for byte
      expect([...s.messages()]).toEqual(messages);
      s.close();
      const again = CoordinatorStore.open(dir, { readOnly: true });
      expect([...again.messages()]).toEqual(messages);
      again.close();
      expect(fs.readdirSync(dir)).toEqual([LOG_FILE]);
    });
  }

  it('the command says when nothing can be saved, and leaves the log as it is', () => {
    const dir = tempDir();
    const s = wideStore(dir, [1000]);
    s.compact(); // what is left has nothing to drop, and the same rows need the same bytes
    s.close();
    const log = path.join(dir, LOG_FILE);
    const before = fs.readFileSync(log);
    const r = cli(['store', 'compact', '--store', dir]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^nothing to save in ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the compacted log would be [\\d,]+ bytes, not less than the log's [\\d,]+; the log is left as it is \\(`));
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(fs.readFileSync(log).equals(before)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual([LOG_FILE]);
  });

  it('a log with dead records still compacts, and smaller', () => {
    const dir = tempDir();
    const s = wideStore(dir, [1, 1000]); // every SSP rewritten once: 100,000 dead rows
    const size = fs.statSync(s.path).size;
    const r = s.compact();
    expect(r.compacted).toBe(true);
    // 100,000 rows of 12 bytes and the 100 of the last write again: no meta column (that was 1.6 MB).
    expect(fs.statSync(s.path).size).toBeLessThan(size * 0.51);
    s.close();
    const out = cli(['store', 'compact', '--store', dir]);
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/^(compacted|nothing to save in) /);
  });
});

describe('compaction over random histories never grows the log and keeps the state (issue 25)', () => {
  const writeArb = fc.oneof(
    { weight: 4, arbitrary: fc.record({ op: fc.constant('ssps' as const), from: fc.nat(3000), count: fc.integer({ min: 1, max: 3000 }), step: fc.integer({ min: 1, max: 50 }), list: fc.nat(199) }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('fields' as const), type: fc.constantFrom('set-changelog', 'set-task-container-assignment'), from: fc.nat(500), count: fc.integer({ min: 1, max: 500 }), step: fc.integer({ min: 1, max: 20 }), value: fc.nat(9) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), type: fc.constantFrom('set-changelog', 'set-task-container-assignment'), key: fc.nat(500) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('compact' as const) }) },
  );

  it('size after <= size before, same messages, same after reopening', () => {
    fc.assert(
      fc.property(fc.array(writeArb, { minLength: 1, maxLength: 12 }), (history) => {
        const dir = tempDir();
        let now = 1;
        const s = CoordinatorStore.open(dir, { host: 'h', username: 'u', now: () => now, autoCompact: false });
        for (const w of history) {
          now++;
          if (w.op === 'ssps') {
            const parts = Array.from({ length: Math.ceil(w.count / w.step) }, (_, i) => w.from + i * w.step);
            writeRows(s, parts, (p) => (p + w.list) % 200);
          } else if (w.op === 'fields') {
            const batch = [];
            for (let k = w.from; k < w.from + w.count; k += w.step) batch.push({ type: w.type, key: `Partition ${k}`, value: w.type === 'set-changelog' ? { Partition: String(k + w.value) } : { containerId: String(w.value) } });
            s.commit(batch);
          } else if (w.op === 'delete') s.delete(w.type, `Partition ${w.key}`);
          else s.compact();
        }
        const messages = [...s.messages()];
        const before = fs.readFileSync(s.path);
        const r = s.compact();
        const after = fs.readFileSync(s.path);
        expect(after.length).toBeLessThanOrEqual(before.length);
        expect(r.compacted || after.equals(before)).toBe(true);
        expect([...s.messages()]).toEqual(messages);
        s.compact();
        expect(fs.statSync(s.path).size).toBeLessThanOrEqual(after.length);
        s.close();
        const again = CoordinatorStore.open(dir, { readOnly: true });
        expect([...again.messages()]).toEqual(messages);
        again.close();
      }),
      { numRuns: 60 },
    );
  });
});
