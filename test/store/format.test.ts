// The file format: header checks, CRC-32, and an independent reader written from docs/store.md.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { AssignorError } from '../../src/errors.js';
import { CoordinatorStore, STORE_LOG_FILE as LOG_FILE } from '../../src/store/index.js';
import { crc32, crc32Table, NATIVE_CRC32 } from '../../src/store/crc32.js';
import { encodeFrame, MAX_BODY } from '../../src/store/format.js';
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

    const v2 = Buffer.from(good);
    v2.writeUInt32BE(2, 8);
    // keep the header CRC valid so the version check is what fires
    v2.writeUInt32BE(crc32(v2.subarray(0, 20)), 20);
    fs.writeFileSync(file, v2);
    const e = caught(() => CoordinatorStore.open(dir));
    expect(e.code).toBe('E_STORE_VERSION');
    expect(e.message).toContain('version 2');
    expect(fs.readFileSync(file).equals(v2)).toBe(true);

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
  expect([...b.subarray(0, 8)]).toEqual([0x89, 0x41, 0x43, 0x53, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(b.readUInt32BE(8)).toBe(1);
  expect(b.readUInt32BE(20)).toBe(zlib.crc32(b.subarray(0, 20)) >>> 0);
  const fileId = b.subarray(12, 20);
  const state = new Map<string, Map<string, unknown>>();
  let o = 24;
  while (o < b.length) {
    const len = b.readUInt32BE(o);
    const crc = b.readUInt32BE(o + 4);
    const body = b.subarray(o + 8, o + 8 + len);
    expect(body.length).toBe(len);
    expect(zlib.crc32(Buffer.concat([fileId, b.subarray(o, o + 4), body])) >>> 0).toBe(crc);
    let p = 4;
    for (let n = body.readUInt32BE(0); n > 0; n--) {
      const kLen = body.readUInt32BE(p);
      const [version, type, key] = JSON.parse(body.toString('utf8', p + 4, p + 4 + kLen)) as [number, string, string];
      expect(version).toBe(1);
      p += 4 + kLen;
      const vLen = body.readUInt32BE(p);
      p += 4;
      let m = state.get(type);
      if (m === undefined) state.set(type, (m = new Map()));
      if (vLen === 0xffffffff) m.delete(key);
      else {
        const envelope = JSON.parse(body.toString('utf8', p, p + vLen)) as { source: string; values: unknown };
        expect(envelope.source).toBe('SamzaContainer');
        m.set(key, envelope.values);
        p += vLen;
      }
    }
    expect(p).toBe(len);
    o += 8 + len;
  }
  return state;
}

describe('documented layout', () => {
  it('an independent reader following docs/store.md sees the same state, before and after compaction', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir);
    s.put('set-changelog', 'Partition 0', { Partition: '0' });
    s.writeBatch([
      { type: 'set-changelog', key: 'Partition 1', value: { Partition: '1' } },
      { type: 'set-task-mode-assignment', key: 'Partition 1', value: { taskMode: 'Standby' } },
      { type: 'set-changelog', key: 'Partition 0', value: null },
    ]);
    s.put('set-config', 'ünï', { value: '🎉' });
    const check = (): void => {
      const mine = snapshot(s);
      const theirs = independentRead(s.path);
      for (const [t, m] of theirs) if (m.size === 0) theirs.delete(t);
      expect(Object.fromEntries([...theirs].map(([t, m]) => [t, [...m]]))).toEqual({ ...mine });
    };
    check();
    s.compact();
    check();
    s.close();
  });
});

describe('frame size limit', () => {
  it('a write whose frame body would exceed 1 GiB is E_STORE_TOO_LARGE, refused before anything is allocated or written', () => {
    // 1024 records sharing one 1 MiB value: 4 + 1024 * (8 + 1 + 2^20) bytes > 2^30.
    const value = 'x'.repeat(1 << 20);
    const entries = Array.from({ length: 1024 }, () => ({ key: 'k', value }));
    const e = caught(() => encodeFrame(Buffer.alloc(8), entries));
    expect(e.code).toBe('E_STORE_TOO_LARGE');
    expect(e.message).toBe(`a single write of 1024 records is ${4 + 1024 * (9 + (1 << 20))} bytes; the limit is ${MAX_BODY}`);
    // One record less fits.
    expect(encodeFrame(Buffer.alloc(8), entries.slice(0, 1023)).length).toBe(8 + 4 + 1023 * (9 + (1 << 20)));
  });
});
