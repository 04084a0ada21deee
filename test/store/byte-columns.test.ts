// Big ASCII string tables are kept as their bytes after a reopen (src/columns/ascii-column.ts) and
// compared in place. Whatever a reader or writer does next, the store must answer exactly as it
// would from strings: the same records, the same order, the same column reads.
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AsciiColumn } from '../../src/columns/ascii-column.js';
import { CoordinatorStore } from '../../src/store/index.js';
import { ArrayTexts, plainIntOf, type Texts } from '../../src/columns/texts.js';
import { cleanupTempDirs, snapshot, tempDir } from './helpers.js';

afterEach(cleanupTempDirs);

const TASK_TYPES = [
  ['set-changelog', 'Partition'],
  ['set-task-container-assignment', 'containerId'],
  ['set-task-mode-assignment', 'taskMode'],
] as const;

/** Every Texts read of row i agrees with the string it should hold. */
function expectTexts(t: Texts, want: readonly string[]): void {
  expect(t.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    const s = want[i]!;
    if (t.at(i) !== s || !t.is(i, s) || t.lengthOf(i) !== s.length || t.plainInt(i) !== plainIntOf(s)) expect([i, t.at(i), t.lengthOf(i), t.plainInt(i)]).toEqual([i, s, s.length, plainIntOf(s)]);
    expect(t.is(i, `${s}x`) || (s.length > 0 && t.is(i, s.slice(1)))).toBe(false);
    if (s.length > 2) expect(t.holdsAt(i, 1, new ArrayTexts([s.slice(1, -1)]), 0) && t.codeAt(i, 1) === s.charCodeAt(1)).toBe(true);
  }
}

describe('big string tables kept as bytes', () => {
  it('Texts over bytes and over strings answer the same (plain ints, prefixes, empty rows)', () => {
    const str = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('["a"]', '["a\\"b"]', '["\t"]', '[""]'), fc.integer({ min: 0, max: 2 ** 32 }).map(String), fc.constantFrom('', '0', '00', '01', '2147483647', '2147483648', '-1', '1e3', ' 7'));
    fc.assert(
      fc.property(fc.array(str, { maxLength: 60 }), (rows) => {
        const ascii = rows.map((s) => s.replace(/[^\x00-\x7f]/g, '?'));
        const off = new Int32Array(ascii.length + 1);
        for (let i = 0; i < ascii.length; i++) off[i + 1] = off[i]! + ascii[i]!.length;
        const bytes = new AsciiColumn(Buffer.from(ascii.join(''), 'latin1'), off);
        const strings = new ArrayTexts(ascii);
        expectTexts(bytes, ascii);
        expectTexts(strings, ascii);
        for (let i = 0; i < ascii.length; i++) {
          for (const probe of ['', '0', 'ab', ascii[i]!.slice(0, 1)]) expect(bytes.hasAt(i, 0, probe)).toBe(strings.hasAt(i, 0, probe));
          const n = ascii[i]!.length;
          // Outside the row both forms agree too (never the next row's bytes).
          expect([bytes.codeAt(i, n), bytes.hasAt(i, n + 1, ''), bytes.hasAt(i, n + 1, 'x'), bytes.plainJsonAt(i, 0, n + 1), bytes.plainJsonAt(i, -1, n)]).toEqual([strings.codeAt(i, n), strings.hasAt(i, n + 1, ''), strings.hasAt(i, n + 1, 'x'), strings.plainJsonAt(i, 0, n + 1), strings.plainJsonAt(i, -1, n)]);
          const plain = !/[\x00-\x1f"\\]/.test(ascii[i]!.slice(1));
          expect([bytes.plainJsonAt(i, 1, n), strings.plainJsonAt(i, 1, n)]).toEqual([plain || n === 0, plain || n === 0]);
        }
        expect(bytes.toArray()).toEqual(ascii);
      }),
    );
  });

  it('a reopened store reads its per-task and SSP tables in place, and reads, writes and compacts exactly as from strings', () => {
    const op = fc.oneof(
      fc.record({ put: fc.integer({ min: 0, max: 1400 }), v: fc.constantFrom('0', '1', '7', 'Standby', 'é') }),
      fc.record({ del: fc.integer({ min: 0, max: 1400 }) }),
      fc.constant({ compact: true }),
      fc.constant({ reopen: true }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1024, max: 1300 }), fc.constantFrom('plain', 'non-ascii key', 'non-ascii value'), fc.array(op, { maxLength: 8 }), (n, kind, ops) => {
        const dir = tempDir();
        let s = CoordinatorStore.open(dir, { host: 'h', username: 'u', now: () => 42 });
        try {
          const keys = Array.from({ length: n }, (_, p) => (kind === 'non-ascii key' && p === n >> 1 ? `Partition ${p}é` : `Partition ${p}`));
          const batch = [];
          for (const [type, field] of TASK_TYPES) {
            for (let p = 0; p < n; p++) {
              const v = field === 'Partition' ? String(p) : field === 'containerId' ? (kind === 'non-ascii value' && p === 3 ? 'ü' : String(p % 5)) : 'Active';
              batch.push({ type, key: keys[p]!, value: { [field]: v } });
            }
          }
          const lists = keys.map((k) => JSON.stringify([k]));
          s.commit(batch, { streams: [{ system: 'kafka', stream: 'A' }], lists, n, stream: new Int32Array(n), partition: Int32Array.from({ length: n }, (_, p) => p), bucket: null, list: Int32Array.from({ length: n }, (_, p) => p) });
          s.compact();
          const before = snapshot(s);
          s.close();
          s = CoordinatorStore.open(dir, { host: 'h', username: 'u', now: () => 42 });
          // Read in place: no strings made for the columns, and every read agrees with the strings written.
          const shared = s.taskTable(TASK_TYPES)!;
          expect(shared.keys instanceof AsciiColumn).toBe(kind !== 'non-ascii key');
          expectTexts(shared.keys, keys);
          expectTexts(shared.values[2]!, keys.map(() => 'Active'));
          expectTexts(shared.values[0]!, keys.map((_, p) => String(p)));
          const a = s.sspAssignment();
          expect(a.listTexts!() instanceof AsciiColumn).toBe(kind !== 'non-ascii key');
          expectTexts(a.listTexts!(), lists);
          expect(snapshot(s)).toEqual(before);
          // Then writes, compactions and reopens: the store stays what a Map of the same writes says.
          const model = new Map(before['set-task-container-assignment']!);
          for (const o of ops) {
            if ('put' in o) {
              const key = `Partition ${o.put}`;
              s.put('set-task-container-assignment', key, { containerId: o.v });
              model.set(key, { containerId: o.v });
            } else if ('del' in o) {
              s.delete('set-task-container-assignment', `Partition ${o.del}`);
              model.delete(`Partition ${o.del}`);
            } else if ('compact' in o) s.compact();
            else {
              s.close();
              s = CoordinatorStore.open(dir, { host: 'h', username: 'u', now: () => 42 });
            }
            expect([...s.entries('set-task-container-assignment')]).toEqual([...model]);
          }
          const after = snapshot(s);
          s.close();
          s = CoordinatorStore.open(dir, { readOnly: true });
          expect(snapshot(s)).toEqual(after);
          expect(after['set-task-partition-assignment']).toEqual(before['set-task-partition-assignment']);
          expect(after['set-changelog']).toEqual(before['set-changelog']);
        } finally {
          s.close();
        }
      }),
      { numRuns: Number(process.env.ASSIGNOR_LONG) ? 60 : 12 },
    );
  });
});

describe('changelog partitions read from a column', () => {
  it('plain ints in place, anything else as the Map read takes it (leading zeros, spaces, empty), bad values refused', async () => {
    const { changelogColumn } = await import('../../src/samza/managers.js');
    const rows = ['0', '7', '007', ' 12 ', '', '2147483647'];
    const keys = new ArrayTexts(rows.map((_, i) => `Partition ${i}`));
    const want = [0, 7, 7, 12, undefined, 2147483647];
    const off = new Int32Array(rows.length + 1);
    for (let i = 0; i < rows.length; i++) off[i + 1] = off[i]! + rows[i]!.length;
    expect(changelogColumn(keys, new ArrayTexts(rows))).toEqual(want);
    expect(changelogColumn(keys, new AsciiColumn(Buffer.from(rows.join(''), 'latin1'), off))).toEqual(want);
    for (const bad of ['2147483648', '-1', '1e3', 'x']) expect(() => changelogColumn(keys, new ArrayTexts([bad]))).toThrow(/not an integer/);
  });
});
