import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AssignorError } from '../../src/errors.js';
import {
  CoordinatorStore,
  CoordinatorMessageType as MessageType,
  STORE_LOCK_FILE as LOCK_FILE,
  STORE_LOG_FILE as LOG_FILE,
  decodeCoordinatorKey as decodeKey,
  encodeCoordinatorKey as encodeKey,
} from '../../src/store/index.js';
import { cleanupTempDirs, snapshot, snapshotOf, tempDir } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
  cleanupTempDirs();
});

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AssignorError);
    return (e as AssignorError).code;
  }
  return undefined;
}

describe('CoordinatorStore basics', () => {
  it('creates the directory and log, and starts empty', () => {
    const dir = path.join(tempDir(), 'nested', 'store');
    const s = CoordinatorStore.open(dir);
    expect(s.path).toBe(path.join(dir, LOG_FILE));
    expect(fs.existsSync(s.path)).toBe(true);
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(true);
    expect(s.truncatedBytes).toBe(0);
    expect(s.get('set-config', 'a')).toBeUndefined();
    expect(s.entries('set-config')).toEqual(new Map());
    s.close();
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  });

  it('replays Samza message types with last write wins and tombstones', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir);
    const ssp = '{"system":"kafka","partition":0,"stream":"PVE","keyBucket":-1}';
    s.put(MessageType.TaskPartitionAssignment, ssp, { taskNames: '["Partition 0"]' });
    s.put(MessageType.Changelog, 'Partition 0', { Partition: '0' });
    s.put(MessageType.Changelog, 'Partition 1', { Partition: '1' });
    s.put(MessageType.TaskContainerAssignment, 'Partition 0', { containerId: '0' });
    s.put(MessageType.TaskModeAssignment, 'Partition 0', { taskMode: 'Active' });
    s.put(MessageType.Config, 'job.name', { value: 'x' });
    s.put('set-job-coordinator-metadata', 'meta', { epoch: '7' }); // any other string type
    s.put(MessageType.Changelog, 'Partition 0', { Partition: '5' }); // overwrite keeps position
    s.delete(MessageType.TaskModeAssignment, 'Partition 0');
    s.delete(MessageType.Config, 'never-written'); // tombstone for an absent key is harmless
    const before = snapshot(s);
    s.close();

    const r = CoordinatorStore.open(dir);
    expect(snapshot(r)).toEqual(before);
    expect(r.get(MessageType.TaskPartitionAssignment, ssp)).toEqual({ taskNames: '["Partition 0"]' });
    expect([...r.entries(MessageType.Changelog)]).toEqual([
      ['Partition 0', { Partition: '5' }],
      ['Partition 1', { Partition: '1' }],
    ]);
    expect(r.get(MessageType.TaskModeAssignment, 'Partition 0')).toBeUndefined();
    expect(r.has(MessageType.TaskModeAssignment, 'Partition 0')).toBe(false);
    expect(r.get('set-job-coordinator-metadata', 'meta')).toEqual({ epoch: '7' });
    expect(r.types()).toEqual([
      MessageType.TaskPartitionAssignment,
      MessageType.Changelog,
      MessageType.TaskContainerAssignment,
      MessageType.Config,
      'set-job-coordinator-metadata',
    ]);
    r.close();
  });

  it('a key deleted and written again moves to the end of entries()', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir);
    s.put('t', 'a', 1);
    s.put('t', 'b', 2);
    s.delete('t', 'a');
    s.put('t', 'a', 3);
    expect([...s.entries('t').keys()]).toEqual(['b', 'a']);
    s.close();
    expect(snapshotOf(dir)).toEqual({ t: [['b', 2], ['a', 3]] });
  });

  it('put with a null value deletes, as a Samza null message does', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir);
    s.put('t', 'k', { v: '1' });
    s.put('t', 'k', null);
    expect(s.get('t', 'k')).toBeUndefined();
    s.close();
    expect(snapshotOf(dir)).toEqual({});
  });

  it('keys and types that are Object.prototype names or odd strings work', () => {
    const dir = tempDir();
    const keys = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', '', ' ', 'a"b\\c', 'ünï ©ødé 🎉', '\u0000\n\t', '\ud800 lone', '[1,"x","y"]'];
    const s = CoordinatorStore.open(dir);
    for (const [i, k] of keys.entries()) {
      s.put('__proto__', k, JSON.parse(`{"i":"${i}","__proto__":"x"}`)); // an own "__proto__" property
      s.put(k, 'key', i);
    }
    s.close();
    const r = CoordinatorStore.open(dir, { readOnly: true });
    for (const [i, k] of keys.entries()) {
      const v = r.get('__proto__', k) as Record<string, unknown>;
      expect(v.i).toBe(String(i));
      expect(Object.hasOwn(v, '__proto__')).toBe(true); // parsed as data, not as a prototype
      expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
      expect(r.get(k, 'key')).toBe(i);
    }
    // type "__proto__" also received key "key" from the second put of the first round
    expect([...r.entries('__proto__').keys()]).toEqual([keys[0], 'key', ...keys.slice(1)]);
    expect(r.get('t', 'toString')).toBeUndefined();
    r.close();
  });

  it('writes Samza key and value shapes: [1,type,key] and the value envelope', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir, { host: 'h1', username: 'u1', now: () => 1234 });
    s.put('set-changelog', 'Partition 0', { Partition: '0' });
    expect(s.message('set-changelog', 'Partition 0')).toEqual({
      host: 'h1',
      username: 'u1',
      source: 'SamzaContainer',
      timestamp: 1234,
      values: { Partition: '0' },
    });
    s.put('other', 'k', { a: [1], b: 'x' }); // not a single string field: stored as its envelope, verbatim
    // Export yields Samza's messages exactly: the key JSON and the value envelope, byte for byte.
    expect([...s.messages()]).toEqual([
      { key: '[1,"set-changelog","Partition 0"]', value: '{"host":"h1","username":"u1","source":"SamzaContainer","timestamp":1234,"values":{"Partition":"0"}}' },
      { key: '[1,"other","k"]', value: '{"host":"h1","username":"u1","source":"SamzaContainer","timestamp":1234,"values":{"a":[1],"b":"x"}}' },
    ]);
    s.close();
    const text = fs.readFileSync(path.join(dir, LOG_FILE)).toString('latin1');
    expect(text).toContain('[1,"other","k"]');
    expect(text).toContain('{"host":"h1","username":"u1","source":"SamzaContainer","timestamp":1234,"values":{"a":[1],"b":"x"}}');
    const r = CoordinatorStore.open(dir, { readOnly: true });
    expect(r.message('set-changelog', 'Partition 0')).toEqual({ host: 'h1', username: 'u1', source: 'SamzaContainer', timestamp: 1234, values: { Partition: '0' } });
    r.close();
    expect(encodeKey('a', 'b')).toBe('[1,"a","b"]');
    expect(decodeKey('[1,"a","b"]')).toEqual({ type: 'a', key: 'b' });
    expect(decodeKey('[2,"a","b"]')).toBeUndefined();
  });

  it('returns fresh copies: mutating a result does not change the store', () => {
    const s = CoordinatorStore.open(tempDir());
    const input = { taskNames: ['a'] };
    s.put('t', 'k', input);
    input.taskNames.push('mutated');
    const out = s.get('t', 'k') as { taskNames: string[] };
    out.taskNames.push('again');
    expect(s.get('t', 'k')).toEqual({ taskNames: ['a'] });
    s.close();
  });

  it('rejects values that are not JSON and bad arguments without writing anything', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir);
    s.put('t', 'ok', 1);
    const size = fs.statSync(s.path).size;
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(code(() => s.put('t', 'k', 10n))).toBe('E_STORE_VALUE');
    expect(code(() => s.put('t', 'k', undefined))).toBe('E_STORE_VALUE');
    expect(code(() => s.put('t', 'k', () => 1))).toBe('E_STORE_VALUE');
    expect(code(() => s.put('t', 'k', cyclic))).toBe('E_STORE_VALUE');
    expect(code(() => s.commit([{ type: 't', key: 'a', value: 1 }, { type: 't', key: 'b', value: 2n }]))).toBe('E_STORE_VALUE');
    expect(code(() => s.put(1 as unknown as string, 'k', 1))).toBe('E_STORE_ARG');
    expect(code(() => s.put('t', 2 as unknown as string, 1))).toBe('E_STORE_ARG');
    expect(code(() => s.commit([null as unknown as { type: string; key: string; value: unknown }]))).toBe('E_STORE_ARG');
    expect(fs.statSync(s.path).size).toBe(size);
    expect(snapshot(s)).toEqual({ t: [['ok', 1]] });
    s.close();
  });

  it('writeBatch, the 0.1.0 name, is commit: one frame, the same state and the same errors', () => {
    const a = CoordinatorStore.open(tempDir(), { host: 'h', username: 'u', now: () => 5 });
    const b = CoordinatorStore.open(tempDir(), { host: 'h', username: 'u', now: () => 5 });
    const records = [{ type: 't', key: 'k', value: { v: '1' } }, { type: 't', key: 'j', value: null }];
    a.commit(records);
    b.writeBatch(records);
    expect([...b.messages()]).toEqual([...a.messages()]);
    expect(b.stats().frames).toBe(1);
    expect(fs.statSync(b.path).size).toBe(fs.statSync(a.path).size);
    expect(code(() => b.writeBatch(7 as unknown as []))).toBe('E_STORE_ARG');
    a.close();
    b.close();
  });

  it('commit appends thousands of records as one frame: two fsyncs (the frame, then its commit marker), applied in order', () => {
    const dir = tempDir();
    const s = CoordinatorStore.open(dir);
    const fsync = vi.spyOn(fs, 'fsyncSync');
    const records = [];
    for (let i = 0; i < 5000; i++) records.push({ type: 'set-task-partition-assignment', key: `ssp-${i}`, value: { taskNames: `["Partition ${i}"]` } });
    records.push({ type: 'set-task-partition-assignment', key: 'ssp-0', value: null });
    records.push({ type: 'set-task-partition-assignment', key: 'ssp-1', value: { taskNames: '[]' } });
    s.commit(records);
    expect(fsync).toHaveBeenCalledTimes(2);
    s.commit([]); // nothing to write, no fsync
    expect(fsync).toHaveBeenCalledTimes(2);
    s.put('x', 'y', 1);
    expect(fsync).toHaveBeenCalledTimes(4); // every put is fsync'd and committed
    vi.restoreAllMocks();
    const e = s.entries('set-task-partition-assignment');
    expect(e.size).toBe(4999);
    expect(e.get('ssp-1')).toEqual({ taskNames: '[]' });
    expect(e.has('ssp-0')).toBe(false);
    const before = snapshot(s);
    s.close();
    expect(snapshotOf(dir)).toEqual(before);
  });

  it('read-only opens need no lock, never write, and refuse writes', () => {
    const dir = tempDir();
    const w = CoordinatorStore.open(dir);
    w.put('t', 'k', 'v');
    const ro = CoordinatorStore.open(dir, { readOnly: true }); // while the writer holds the lock
    expect(ro.get('t', 'k')).toBe('v');
    expect(code(() => ro.put('t', 'k', 1))).toBe('E_STORE_READONLY');
    expect(code(() => ro.delete('t', 'k'))).toBe('E_STORE_READONLY');
    expect(code(() => ro.commit([]))).toBe('E_STORE_READONLY');
    expect(code(() => ro.compact())).toBe('E_STORE_READONLY');
    ro.close();
    w.close();
    expect(code(() => CoordinatorStore.open(path.join(dir, 'missing'), { readOnly: true }))).toBe('E_STORE_NOT_FOUND');
    expect(fs.existsSync(path.join(dir, 'missing'))).toBe(false);
  });

  it('a closed store refuses use; close is idempotent', () => {
    const s = CoordinatorStore.open(tempDir());
    s.close();
    s.close();
    expect(code(() => s.get('t', 'k'))).toBe('E_STORE_CLOSED');
    expect(code(() => s.put('t', 'k', 1))).toBe('E_STORE_CLOSED');
  });
});
