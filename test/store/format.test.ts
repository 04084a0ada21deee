// The file format: header checks, CRC-32, and an independent reader written from docs/store.md.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { AssignorError } from '../../src/errors.js';
import { CoordinatorStore, STORE_FORMAT_VERSION } from '../../src/store/index.js';
import { crc32, crc32Table, NATIVE_CRC32 } from '../../src/store/crc32.js';
import { encodeHeader } from '../../src/store/format.js';
import { encodeFrame as encodeV1Frame } from '../../src/store/format-v1.js';
import { decodeBody, encodeBody, MAX_BODY, Sink, writeFields, writeMessages, writeSsps } from '../../src/store/body.js';
import fc from 'fast-check';
import { cleanupTempDirs, snapshot, tempDir } from './helpers.js';
import { caught } from '../helpers.js';

afterEach(() => cleanupTempDirs());


describe('crc32', () => {
  it('matches the standard check value and zlib, with and without chaining', () => {
    const check = Buffer.from('123456789');
    expect(crc32(check)).toBe(0xcbf43926);
    expect(crc32Table(check)).toBe(0xcbf43926);
    expect(crc32Table(Buffer.alloc(0))).toBe(0);
    expect(NATIVE_CRC32).toBe(typeof (zlib as { crc32?: unknown }).crc32 === 'function');
    let seed = 12345;
    for (let n = 0; n < 200; n++) {
      const buf = Buffer.alloc(n * 7);
      for (let i = 0; i < buf.length; i++) buf[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
      const cut = Math.floor(buf.length / 3);
      expect(crc32Table(buf)).toBe(crc32(buf));
      expect(crc32Table(buf.subarray(cut), crc32Table(buf.subarray(0, cut)))).toBe(crc32(buf));
    }
  });
});

describe('wrong files are refused without being modified', () => {
  const cases: Array<[string, Buffer, string]> = [
    ['a text file', Buffer.from('hello, this is not a store\n'), 'E_STORE_FORMAT'],
    ['an empty file', Buffer.alloc(0), 'E_STORE_FORMAT'],
    ['a JSON file', Buffer.from('[1,"set-config","x"]'), 'E_STORE_FORMAT'],
  ];
  for (const [name, bytes, code] of cases) {
    it(`${name}`, () => {
      const dir = tempDir();
      const file = path.join(dir, 'coordinator.log');
      fs.writeFileSync(file, bytes);
      for (const readOnly of [false, true]) {
        const e = caught(() => CoordinatorStore.open(dir, { readOnly }));
        expect(e.code).toBe(code);
        expect(e.message).toContain(file);
        expect(e.message).toContain('not an assignor coordinator store');
      }
      expect(fs.readFileSync(file).equals(bytes)).toBe(true);
      expect(fs.readdirSync(dir)).toEqual(['coordinator.log']); // the lock was released
    });
  }

  it('a newer format version, a corrupt header, a truncated header', () => {
    const dir = tempDir();
    CoordinatorStore.open(dir).close();
    const file = path.join(dir, 'coordinator.log');
    const good = fs.readFileSync(file);
    expect(good.readUInt32BE(8)).toBe(STORE_FORMAT_VERSION);

    const v3 = Buffer.from(good);
    v3.writeUInt32BE(3, 8);
    // keep the header CRC valid so the version check is what fires
    v3.writeUInt32BE(crc32(v3.subarray(0, 20)), 20);
    fs.writeFileSync(file, v3);
    const e = caught(() => CoordinatorStore.open(dir));
    expect(e.code).toBe('E_STORE_VERSION');
    expect(e.message).toContain('version 3');
    expect(e.message).toContain('reads versions 1 and 2');
    expect(fs.readFileSync(file).equals(v3)).toBe(true);

    const badCrc = Buffer.from(good);
    badCrc[14]! ^= 1;
    fs.writeFileSync(file, badCrc);
    expect(caught(() => CoordinatorStore.open(dir)).message).toContain('corrupt header');
    expect(fs.readFileSync(file).equals(badCrc)).toBe(true);

    fs.writeFileSync(file, good.subarray(0, 12));
    expect(caught(() => CoordinatorStore.open(dir)).message).toContain('truncated header');
    expect(fs.statSync(file).size).toBe(12);
  });
});

/** A reader written only from docs/store.md, with zlib's CRC: what another language would do. */
function independentRead(file: string): Map<string, Map<string, unknown>> {
  const b = fs.readFileSync(file);
  const crc = (...parts: Buffer[]): number => zlib.crc32(Buffer.concat(parts)) >>> 0;
  expect([...b.subarray(0, 8)]).toEqual([0x89, 0x41, 0x43, 0x53, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(b.readUInt32BE(8)).toBe(2);
  expect(b.readUInt32BE(20)).toBe(crc(b.subarray(0, 20)));
  const fileId = b.subarray(12, 20);
  const state = new Map<string, Map<string, unknown>>();
  const set = (type: string, key: string, values: unknown | null): void => {
    let m = state.get(type);
    if (m === undefined) state.set(type, (m = new Map()));
    if (values === null) m.delete(key);
    else m.set(key, values);
  };
  let o = 24;
  while (o < b.length) {
    // frame: "\xA5FR2", body length, CRC of (file id, tag, length, body), body
    expect(b.readUInt32BE(o)).toBe(0xa5465232);
    const len = b.readUInt32BE(o + 4);
    const body = b.subarray(o + 12, o + 12 + len);
    expect(crc(fileId, b.subarray(o, o + 8), body)).toBe(b.readUInt32BE(o + 8));
    // commit marker: "\xA5CM2", body length, frame CRC, CRC of (file id, the 12 bytes before)
    const c = o + 12 + len;
    expect(b.readUInt32BE(c)).toBe(0xa5434d32);
    expect(b.readUInt32BE(c + 4)).toBe(len);
    expect(b.readUInt32BE(c + 8)).toBe(b.readUInt32BE(o + 8));
    expect(crc(fileId, b.subarray(c, c + 12))).toBe(b.readUInt32BE(c + 12));
    o = c + 16;

    let p = 0;
    const u32 = (): number => {
      p += 4;
      return body.readUInt32LE(p - 4);
    };
    const text = (): string => {
      const n = u32();
      p += n;
      return body.toString('utf8', p - n, p);
    };
    const strings = (): string[] => {
      const out: string[] = [];
      const n = u32();
      while (out.length < n) {
        const count = u32();
        const bytes = u32();
        const lengths = Array.from({ length: count }, u32);
        const all = body.toString('utf8', p, p + bytes);
        p += bytes;
        let at = 0;
        for (const l of lengths) out.push(all.slice(at, (at += l)));
      }
      return out;
    };
    const ints = (n: number): number[] => Array.from({ length: n }, () => u32() | 0);
    const metas = strings().map((m) => JSON.parse(m) as { source: string });
    for (const m of metas) expect(m.source).toBe('SamzaContainer');
    while (p < body.length) {
      const kind = body[p]!;
      const flags = body[p + 1]!;
      p += 4;
      const end = p + 4 + body.readUInt32LE(p);
      p += 4;
      if (kind === 1) {
        for (let n = u32(); n > 0; n--) {
          const [version, type, key] = JSON.parse(text()) as [number, string, string];
          expect(version).toBe(1);
          if (body.readUInt32LE(p) === 0xffffffff) {
            p += 4;
            set(type, key, null);
          } else {
            const envelope = JSON.parse(text()) as { source: string; values: unknown };
            expect(envelope.source).toBe('SamzaContainer');
            set(type, key, envelope.values);
          }
        }
      } else if (kind === 2) {
        const type = text();
        const field = text();
        const n = u32();
        const keys = strings();
        const tomb = [...body.subarray(p, p + n)];
        p += n;
        const values = strings();
        if (flags & 1) p += 4 * n; // per-row metas: not needed for the state
        let v = 0;
        keys.forEach((k, i) => set(type, k, tomb[i] ? null : { [field]: values[v++] }));
      } else if (kind === 3) {
        const names = strings();
        const lists = strings();
        const n = u32();
        const stream = ints(n);
        const partition = ints(n);
        const bucket = flags & 2 ? ints(n) : new Array<number>(n).fill(-1);
        const list = ints(n);
        if (flags & 1) p += 4 * n;
        for (let i = 0; i < n; i++) {
          const key = `{"system":${JSON.stringify(names[2 * stream[i]!])},"partition":${partition[i]},"stream":${JSON.stringify(names[2 * stream[i]! + 1])},"keyBucket":${bucket[i]}}`;
          set('set-task-partition-assignment', key, list[i] === -1 ? null : { taskNames: lists[list[i]!] });
        }
      } else {
        throw new Error(`unknown section ${kind}`);
      }
      expect(p).toBe(end);
    }
  }
  return state;
}

const byKey = (m: Iterable<[string, unknown]>): Array<[string, unknown]> => [...m].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));

describe('documented layout', () => {
  it('an independent reader following docs/store.md sees the same state, before and after compaction', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir, { autoCompact: false });
    s.put('set-changelog', 'Partition 0', { Partition: '0' });
    s.commit([
      { type: 'set-changelog', key: 'Partition 1', value: { Partition: '1' } },
      { type: 'set-task-mode-assignment', key: 'Partition 1', value: { taskMode: 'Standby' } },
      { type: 'set-changelog', key: 'Partition 0', value: null },
      { type: 'set-task-partition-assignment', key: '{"system":"kafka","partition":7,"stream":"PVE","keyBucket":-1}', value: { taskNames: '["Partition 7"]' } },
      { type: 'set-task-partition-assignment', key: '{"system":"kafka","partition":8,"stream":"PVE"}', value: { taskNames: '["Partition 8"]' } },
      { type: 'other', key: 'k', value: { a: [1], b: { c: null } } },
    ]);
    s.put('set-config', 'ünï', { value: '🎉' });
    s.put('set-config', 'lone \ud800', { value: 'stays a message' });
    s.commit([], {
      streams: [{ system: 'kafka', stream: 'PVE' }, { system: 'kafka', stream: 'Ω' }],
      lists: ['["Partition 0"]', '["Partition 1","Standby-Partition 1-0"]'],
      n: 4,
      stream: Int32Array.of(0, 1, 0, 0),
      partition: Int32Array.of(0, 1, 7, 3),
      bucket: Int32Array.of(-1, 2, -1, -1),
      list: Int32Array.of(0, 1, 1, -1),
    });
    const check = (): void => {
      const mine = snapshot(s);
      const theirs = independentRead(s.path);
      for (const [t, m] of theirs) if (m.size === 0) theirs.delete(t);
      expect(Object.keys(mine).sort()).toEqual([...theirs.keys()].sort());
      for (const [t, m] of theirs) expect(byKey(mine[t]!)).toEqual(byKey(m));
    };
    check();
    s.compact();
    check();
    s.close();
  });
});

/** Writes a version-1 log (the previous format) holding `frames`. */
function writeV1Log(file: string, frames: Array<Array<{ key: string; value: string | null }>>): void {
  const fileId = Buffer.from('0123456789abcdef', 'hex');
  fs.writeFileSync(file, Buffer.concat([encodeHeader(fileId, 1), ...frames.map((f) => encodeV1Frame(fileId, f))]));
}

const env = (values: unknown, ts = 5): string => `{"host":"h","username":"u","source":"SamzaContainer","timestamp":${ts},"values":${JSON.stringify(values)}}`;

describe('version 1 logs (the previous format)', () => {
  const v1Frames = [
    [{ key: '[1,"set-changelog","Partition 0"]', value: env({ Partition: '0' }) }],
    [
      { key: '[1,"set-task-partition-assignment","{\\"system\\":\\"kafka\\",\\"partition\\":0,\\"stream\\":\\"PVE\\",\\"keyBucket\\":-1}"]', value: env({ taskNames: '["Partition 0"]' }) },
      { key: '[1,"set-config","x"]', value: '{"values":{"value":"1"},"host":"odd order"}' },
      { key: '[1,"set-changelog","Partition 0"]', value: null },
      { key: '[1,"set-changelog","Partition 1"]', value: env({ Partition: '1' }, 6) },
    ],
  ];

  it('are read as they are: a reader never changes the file', () => {
    const dir = tempDir();
    const file = path.join(dir, 'coordinator.log');
    writeV1Log(file, v1Frames);
    const bytes = fs.readFileSync(file);
    const r = CoordinatorStore.open(dir, { readOnly: true });
    expect(snapshot(r)).toEqual({
      'set-task-partition-assignment': [['{"system":"kafka","partition":0,"stream":"PVE","keyBucket":-1}', { taskNames: '["Partition 0"]' }]],
      'set-config': [['x', { value: '1' }]],
      'set-changelog': [['Partition 1', { Partition: '1' }]],
    });
    expect(r.message('set-config', 'x')).toEqual({ values: { value: '1' }, host: 'odd order' });
    expect(r.stats()).toMatchObject({ formatVersion: 1, frames: 2, records: 5, liveKeys: 3, lastWrite: 6 });
    r.close();
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it('a writer keeps a version-1 log as it is until its first write, which upgrades it to version 2 with the same state', () => {
    const dir = tempDir();
    const file = path.join(dir, 'coordinator.log');
    writeV1Log(file, v1Frames);
    const bytes = fs.readFileSync(file);
    const w = CoordinatorStore.open(dir);
    const before = snapshot(w);
    expect(w.openReport.formatVersion).toBe(1);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    const envelopes = [...w.messages()];
    w.put('set-changelog', 'Partition 2', { Partition: '2' });
    expect(fs.readFileSync(file).readUInt32BE(8)).toBe(2);
    w.close();
    const r = CoordinatorStore.open(dir, { readOnly: true });
    expect(snapshot(r)).toEqual({ ...before, 'set-changelog': [...before['set-changelog']!, ['Partition 2', { Partition: '2' }]] });
    // Every old envelope survives byte for byte (Samza's layout is the export format).
    const after = new Map([...r.messages()].map((m) => [m.key, m.value]));
    for (const m of envelopes) expect(after.get(m.key)).toBe(m.value);
    r.close();
  });

  it('a torn version-1 tail is still truncated at every byte, and damage in the middle still refused', () => {
    const dir = tempDir();
    const file = path.join(dir, 'coordinator.log');
    writeV1Log(file, v1Frames);
    const full = fs.readFileSync(file);
    const firstEnd = 24 + encodeV1Frame(Buffer.alloc(8), v1Frames[0]!).length;
    for (let cut = firstEnd; cut < full.length; cut += 5) {
      fs.writeFileSync(file, full.subarray(0, cut));
      const s = CoordinatorStore.open(dir);
      expect(snapshot(s)).toEqual({ 'set-changelog': [['Partition 0', { Partition: '0' }]] });
      expect(fs.statSync(file).size).toBe(firstEnd);
      s.close();
    }
    const damaged = Buffer.from(full);
    damaged[30]! ^= 4;
    fs.writeFileSync(file, damaged);
    expect(caught(() => CoordinatorStore.open(dir)).code).toBe('E_STORE_CORRUPT');
    expect(fs.readFileSync(file).equals(damaged)).toBe(true);
  });
});

describe('frame size limit', () => {
  it('a write whose frame body would exceed 1 GiB is E_STORE_TOO_LARGE, refused before it is built or written', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir);
    const size = fs.statSync(s.path).size;
    // 1024 records sharing one 1 MiB value: more than 2^30 bytes.
    const value = { value: 'x'.repeat(1 << 20) };
    const records = Array.from({ length: 1024 }, (_, i) => ({ type: 't', key: String(i), value }));
    const e = caught(() => s.commit(records));
    expect(e.code).toBe('E_STORE_TOO_LARGE');
    expect(e.message).toBe(`a single write of 1024 records is more than ${MAX_BODY} bytes, the limit`);
    expect(fs.statSync(s.path).size).toBe(size);
    s.close();
  });
});

describe('section writers and decodeBody agree', () => {
  // A writer applies what the section writers return instead of decoding its own bytes: the two must be equal.
  const str = fc.string({ maxLength: 12, unit: 'grapheme' });
  const sectionArb = fc.oneof(
    fc.record({ kind: fc.constant('messages' as const), entries: fc.array(fc.record({ key: str.map((k) => JSON.stringify([1, 't', k])), value: fc.option(str.map((v) => JSON.stringify({ values: v }))) }), { minLength: 1, maxLength: 5 }) }),
    fc.record({ kind: fc.constant('fields' as const), type: str, field: str, rows: fc.array(fc.record({ key: str, value: fc.option(str) }), { maxLength: 6 }), meta: fc.boolean(), fresh: fc.boolean() }),
    fc.record({
      kind: fc.constant('ssps' as const),
      rows: fc.array(fc.record({ s: fc.nat(2), p: fc.nat(2147483647), b: fc.integer({ min: -1, max: 3 }), l: fc.integer({ min: -1, max: 1 }) }), { maxLength: 6 }),
      bucket: fc.boolean(),
      meta: fc.boolean(),
    }),
  );
  it('for random sections of every kind', () => {
    fc.assert(
      fc.property(fc.array(sectionArb, { maxLength: 4 }), (specs) => {
        const sink = new Sink();
        const written = specs.map((x) => {
          if (x.kind === 'messages') return writeMessages(sink, x.entries);
          if (x.kind === 'fields') return writeFields(sink, { type: x.type, field: x.field, keys: x.rows.map((r) => r.key), values: x.rows.map((r) => r.value), meta: x.meta ? Int32Array.from(x.rows, () => 1) : null, fresh: x.fresh });
          const col = (f: (r: { s: number; p: number; b: number; l: number }) => number) => Int32Array.from(x.rows, f);
          return writeSsps(sink, {
            streams: [{ system: 'kafka', stream: 'A' }, { system: 'k', stream: 'Ω' }, { system: '', stream: '' }],
            lists: ['["a"]', '["b","c"]'],
            n: x.rows.length,
            stream: col((r) => r.s),
            partition: col((r) => r.p),
            bucket: x.bucket ? col((r) => r.b) : null,
            list: col((r) => r.l),
            meta: x.meta ? col(() => 1) : null,
          });
        });
        const metas = ['{"timestamp":1}', '{"timestamp":2}'];
        const body = encodeBody(metas, sink, 0);
        const bytes = Buffer.concat(body.chunks);
        expect(bytes.length).toBe(body.length);
        const decoded = decodeBody(bytes, 0, bytes.length);
        expect(decoded.metas).toEqual(metas);
        const plain = (s: unknown): unknown => JSON.parse(JSON.stringify(s, (_, v) => (v instanceof Int32Array ? [...v] : v)));
        expect(plain(decoded.sections)).toEqual(plain(written));
      }),
      { numRuns: 300 },
    );
  });
});
