// The read/compute/write cycle over the coordinator store, and the Samza managers' formats.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_CYCLE_MEMBERSHIPS, runCycle } from '../../src/samza/cycle.js';
import { MemoryCoordinatorStore } from '../../src/samza/store-types.js';
import { parseSspKey, readTaskPartitionAssignments, sspKeyJson, TYPES } from '../../src/samza/managers.js';
import { jobModelJson } from '../../src/samza/job-model.js';
import { ssp } from '../../src/samza/model.js';
import { CoordinatorStore } from '../../src/store/index.js';
import { config, STATEFUL } from './helpers.js';

const job = (cfg: Record<string, string>, counts: Record<string, number>) => ({ config: config(cfg), partitionCounts: new Map(Object.entries(counts)) });
const PVE = { ...STATEFUL, 'task.inputs': 'kafka.PVE', 'job.container.count': '2' };

describe('coordinator-stream formats', () => {
  it('writes SSP keys the way Samza serializes them today', () => {
    expect(sspKeyJson(ssp('kafka', 'PVE', 0))).toBe('{"system":"kafka","partition":0,"stream":"PVE","keyBucket":-1}');
  });

  it('reads both the old key form (no keyBucket) and the new one, in any field order', () => {
    expect(parseSspKey('{"system":"kafka","partition":3,"stream":"PVE"}')).toEqual(ssp('kafka', 'PVE', 3));
    expect(parseSspKey('{"keyBucket":1,"stream":"PVE","system":"kafka","partition":3}')).toEqual(ssp('kafka', 'PVE', 3, 1));
  });

  it('a value that cannot be parsed is Samza\'s read exception', () => {
    const store = new MemoryCoordinatorStore();
    store.put(TYPES.taskPartition, '{"system":"kafka","partition":0,"stream":"PVE"}', { taskNames: 'not json' });
    expect(() => readTaskPartitionAssignments(store)).toThrow('Exception occurred when reading task partition assignments.');
  });
});

describe('read/compute/write cycle', () => {
  it('refuses a job too large for the store cycle before writing anything', () => {
    const store = new MemoryCoordinatorStore();
    // 2^20 SSPs x replication factor 3 = 3 * 2^20 memberships, over MAX_CYCLE_MEMBERSHIPS (2^21).
    expect(() => runCycle(store, job({ ...PVE, 'job.standbytasks.replication.factor': '3', 'job.systemstreampartition.grouper.factory': 'GroupBySystemStreamPartitionFactory' }, { 'kafka.PVE': 2 ** 20 }))).toThrow(
      expect.objectContaining({ code: 'E_SAMZA_TOO_LARGE', path: 'store', message: expect.stringContaining(`has ${3 * 2 ** 20} (task, SSP) memberships; the store cycle handles at most ${MAX_CYCLE_MEMBERSHIPS}`) }),
    );
    expect(store.batches).toBe(0);
  });

  it('first run writes Samza\'s message types with one batch', () => {
    const store = new MemoryCoordinatorStore();
    const r = runCycle(store, job(PVE, { 'kafka.PVE': 4 }));
    expect(store.batches).toBe(1);
    expect(store.get(TYPES.taskPartition, sspKeyJson(ssp('kafka', 'PVE', 2)))).toEqual({ taskNames: '["Partition 2"]' });
    expect(store.get(TYPES.changelog, 'Partition 3')).toEqual({ Partition: '3' });
    expect(store.get(TYPES.taskContainer, 'Partition 3')).toEqual({ containerId: '1' });
    expect(store.get(TYPES.taskMode, 'Partition 3')).toEqual({ taskMode: 'Active' });
    expect(store.get(TYPES.baseCount, 'kafka.PVE')).toEqual({ basePartitionCount: '4' });
    expect(store.get(TYPES.config, 'task.inputs')).toEqual({ value: 'kafka.PVE' });
    expect(r.recordsWritten).toBeGreaterThan(0);
  });

  it('is idempotent: the second run computes the same model and writes nothing', () => {
    const store = new MemoryCoordinatorStore();
    const a = runCycle(store, job(PVE, { 'kafka.PVE': 4 }));
    const b = runCycle(store, job(PVE, { 'kafka.PVE': 4 }));
    expect(jobModelJson(b.plan)).toBe(jobModelJson(a.plan));
    expect(b.recordsWritten).toBe(0);
    expect(store.batches).toBe(1);
    expect(b.changes).toMatchObject({ sspsNew: 0, sspsMoved: 0, sspsGone: 0, tasksChangedContainer: 0 });
  });

  it('after an expansion the second plan folds, and reports the new SSPs joining existing tasks', () => {
    const store = new MemoryCoordinatorStore();
    runCycle(store, job(PVE, { 'kafka.PVE': 4 }));
    const r = runCycle(store, job(PVE, { 'kafka.PVE': 8 }));
    expect(r.plan.grouping.tasks).toHaveLength(4);
    expect(r.changes).toMatchObject({ sspsNew: 4, sspsMoved: 0, tasksAdded: [], tasksRemoved: [] });
    expect(store.get(TYPES.taskPartition, sspKeyJson(ssp('kafka', 'PVE', 6)))).toEqual({ taskNames: '["Partition 2"]' });
    expect(store.batches).toBe(2);
  });

  it('samza mode reproduces the worked example through the store', () => {
    const store = new MemoryCoordinatorStore();
    runCycle(store, job(PVE, { 'kafka.PVE': 4 }), { mapper: 'samza' });
    const r = runCycle(store, job(PVE, { 'kafka.PVE': 8 }), { mapper: 'samza' });
    expect(r.plan.grouping.tasks).toEqual(['Partition 0', 'Partition 1', 'Partition 2', 'Partition 3']);
    expect(store.get(TYPES.taskPartition, sspKeyJson(ssp('kafka', 'PVE', 7)))).toEqual({ taskNames: '["Partition 3"]' });
  });

  it('reads an assignment Samza wrote with old-form keys and rewrites it in one canonical form', () => {
    const store = new MemoryCoordinatorStore();
    for (let p = 0; p < 4; p++) {
      store.put(TYPES.taskPartition, `{"system":"kafka","partition":${p},"stream":"PVE"}`, { taskNames: JSON.stringify([`Partition ${p}`]) });
      store.put(TYPES.taskContainer, `Partition ${p}`, { containerId: String(p % 2) });
    }
    const r = runCycle(store, job(PVE, { 'kafka.PVE': 8 }), { mapper: 'samza' });
    expect(r.plan.grouping.tasks).toHaveLength(4);
    const keys = [...store.entries(TYPES.taskPartition).keys()];
    expect(keys).toHaveLength(8);
    expect(keys.every((k) => k.includes('"keyBucket":-1'))).toBe(true);
  });

  it('warns with Samza\'s text when the task count changes, and replaces the old task entries', () => {
    const store = new MemoryCoordinatorStore();
    const s = { 'task.inputs': 'kafka.A' };
    runCycle(store, job(s, { 'kafka.A': 2 }));
    const r = runCycle(store, job(s, { 'kafka.A': 3 }));
    expect(r.warnings).toContain('Current task count 3 does not match saved task count 2. Stateful jobs may observe misalignment of keys!');
    expect(r.changes.tasksAdded).toEqual(['Partition 2']);
    expect([...store.entries(TYPES.taskContainer).keys()].sort()).toEqual(['Partition 0', 'Partition 1', 'Partition 2']);
  });

  it('changelog partitions never change once written', () => {
    const store = new MemoryCoordinatorStore();
    const s = { 'task.inputs': 'kafka.A' };
    runCycle(store, job(s, { 'kafka.A': 3 }));
    const r = runCycle(store, job({ 'task.inputs': 'kafka.A,kafka.B' }, { 'kafka.A': 1, 'kafka.B': 4 }));
    expect(r.plan.grouping.tasks).toEqual(['Partition 0', 'Partition 1', 'Partition 2', 'Partition 3']);
    expect([...r.plan.changelog]).toEqual([0, 1, 2, 3]);
    expect(store.get(TYPES.changelog, 'Partition 3')).toEqual({ Partition: '3' });
  });

  it('standby tasks are written with their mode and do not count as previous active tasks', () => {
    const store = new MemoryCoordinatorStore();
    const s = { ...STATEFUL, 'task.inputs': 'kafka.A', 'job.standbytasks.replication.factor': '2' };
    runCycle(store, job(s, { 'kafka.A': 2 }));
    expect(store.get(TYPES.taskMode, 'Standby-Partition 0-0')).toEqual({ taskMode: 'Standby' });
    expect(store.get(TYPES.taskContainer, 'Standby-Partition 0-0')).toEqual({ containerId: '0-0' });
    expect(store.get(TYPES.taskPartition, sspKeyJson(ssp('kafka', 'A', 0)))).toEqual({ taskNames: '["Partition 0","Standby-Partition 0-0"]' });
    const r = runCycle(store, job(s, { 'kafka.A': 4 }), { mapper: 'samza' });
    expect(r.plan.grouping.tasks).toEqual(['Partition 0', 'Partition 1']);
  });

  it('host affinity: the balance path reads the previous task -> container map', () => {
    const store = new MemoryCoordinatorStore();
    const s = { 'task.inputs': 'kafka.A', 'job.container.count': '2', 'job.host-affinity.enabled': 'true' };
    runCycle(store, job(s, { 'kafka.A': 4 }));
    // Someone moved Partition 0 to container 1 (say, by hand): the balance path keeps that layout.
    store.put(TYPES.taskContainer, 'Partition 0', { containerId: '1' });
    store.put(TYPES.taskContainer, 'Partition 1', { containerId: '0' });
    const r = runCycle(store, job(s, { 'kafka.A': 4 }));
    expect(r.plan.containerNote).toBe('balance path: previous layout reused');
    expect(r.plan.containers.containerOf[0]).toBe(1);
  });
});

describe('with the on-disk coordinator store', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('plans survive a reopen, a repeated plan appends nothing, and an expansion folds', () => {
    const dir = mkdtempSync(join(tmpdir(), 'samza-store-'));
    dirs.push(dir);
    let store = CoordinatorStore.open(dir);
    const a = runCycle(store, job(PVE, { 'kafka.PVE': 4 }));
    store.close();
    store = CoordinatorStore.open(dir);
    const bytes = store.fileBytes;
    const b = runCycle(store, job(PVE, { 'kafka.PVE': 4 }));
    expect(store.fileBytes).toBe(bytes);
    expect(jobModelJson(b.plan)).toBe(jobModelJson(a.plan));
    const c = runCycle(store, job(PVE, { 'kafka.PVE': 8 }));
    expect(c.plan.grouping.tasks).toHaveLength(4);
    expect(c.plan.streams[0]!.handling).toBe('folded');
    store.close();
  });
});

describe('canonical SSP key fast path', () => {
  it('agrees with the general parser, escapes included, and declines other forms', async () => {
    const { parseCanonicalSspKey } = await import('../../src/samza/managers.js');
    for (const s of [ssp('kafka', 'PVE', 0), ssp('k"a\\f', 'x,"stream":"y', 7, 3), ssp('', '\u{1F600}\n', 2147483647, -1)]) {
      expect(parseCanonicalSspKey(sspKeyJson(s))).toEqual(s);
      expect(parseSspKey(sspKeyJson(s))).toEqual(s);
    }
    expect(parseCanonicalSspKey('{"system":"kafka","partition":0,"stream":"PVE"}')).toBeUndefined();
    expect(parseCanonicalSspKey('{"stream":"PVE","system":"kafka","partition":0,"keyBucket":-1}')).toBeUndefined();
  });
});
