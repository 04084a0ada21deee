// Samza's per-task records (changelog, container, mode) read as columns over one key column
// (StoreState.sharedFields, TaskRows, ColumnMap) give exactly what reading them as Maps gives.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { prepareCycle, runCycle } from '../../src/samza/cycle.js';
import { jobModelJson } from '../../src/samza/job-model.js';
import { TYPES } from '../../src/samza/managers.js';
import type { CoordinatorStoreLike } from '../../src/samza/store-types.js';
import { CoordinatorStore } from '../../src/store/index.js';
import { AsciiColumn } from '../../src/columns/ascii-column.js';
import { ReplayedState } from '../../src/store/kafka-state.js';
import { StringIndex } from '../../src/columns/string-index.js';
import { config, STATEFUL } from './helpers.js';

const job = (cfg: Record<string, string>, counts: Record<string, number>) => ({ config: config(cfg), partitionCounts: new Map(Object.entries(counts)) });
const TASK_TYPES = [
  [TYPES.changelog, 'Partition'],
  [TYPES.taskContainer, 'containerId'],
  [TYPES.taskMode, 'taskMode'],
] as const;

/** The store as the cycle reads it without the columns: singleFields and entries (Maps) only. */
function mapsOnly(store: CoordinatorStoreLike & { singleFields(t: string, f: string): Map<string, string> | undefined; sspAssignment(): ReturnType<NonNullable<CoordinatorStoreLike['sspAssignment']>> }): CoordinatorStoreLike {
  const refuse = (): never => {
    throw new Error('read only');
  };
  return {
    get: (t, k) => store.get(t, k),
    entries: (t) => store.entries(t),
    singleFields: (t, f) => store.singleFields(t, f),
    sspAssignment: () => store.sspAssignment(),
    put: refuse,
    delete: refuse,
    writeBatch: refuse,
  };
}

const outcome = (f: () => ReturnType<typeof prepareCycle>) => {
  try {
    const r = f();
    return { model: jobModelJson(r.plan), changes: r.changes, records: r.records, ssps: { ...r.ssps, stream: [...r.ssps.stream], partition: [...r.ssps.partition], list: [...r.ssps.list], bucket: r.ssps.bucket && [...r.ssps.bucket] }, warnings: r.warnings };
  } catch (e) {
    return { error: `${(e as { code?: string }).code}: ${(e as Error).message}` };
  }
};

describe('per-task records as columns', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  /** Random jobs of `bases` partitions re-planned with changes: the columnar read gives what the Map read gives. */
  function columnsAgreeWithMaps(bases: fc.Arbitrary<number>, numRuns: number, minColumnar: number, minBytes = 0): void {
    const stepArb = fc.record({
      grow: fc.constantFrom(1, 1, 2, 3),
      containers: fc.integer({ min: 1, max: 4 }),
      replication: fc.constantFrom(1, 1, 2),
      hostAffinity: fc.boolean(),
      grouper: fc.constantFrom('GroupByContainerCount', 'GroupByContainerIds'),
      // (Always, when the test is about columns read back as bytes: a store's own writes stay strings.)
      reopen: minBytes > 0 ? fc.constant(true) : fc.boolean(),
    });
    let columnar = 0;
    let inBytes = 0;
    fc.assert(
      fc.property(bases, fc.array(stepArb, { minLength: 2, maxLength: numRuns > 10 ? 5 : 3 }), (base, steps) => {
        const dir = mkdtempSync(join(tmpdir(), 'task-cols-'));
        dirs.push(dir);
        let store = CoordinatorStore.open(dir);
        try {
          for (const s of steps) {
            const cfg = {
              ...STATEFUL,
              'task.inputs': 'kafka.A',
              'job.container.count': String(s.containers),
              'job.standbytasks.replication.factor': String(s.replication),
              'task.name.grouper.factory': `org.apache.samza.container.grouper.task.${s.grouper}Factory`,
              ...(s.hostAffinity ? { 'job.host-affinity.enabled': 'true' } : {}),
            };
            const j = job(cfg, { 'kafka.A': base * s.grow });
            const shared = store.sharedFields(TASK_TYPES);
            if (shared !== undefined) columnar++;
            if (shared?.keys instanceof AsciiColumn && store.sspAssignment().listTexts!() instanceof AsciiColumn) inBytes++;
            const want = outcome(() => prepareCycle(mapsOnly(store), j));
            const got = outcome(() => prepareCycle(store, j));
            expect(got).toEqual(want);
            if ('error' in got) continue;
            runCycle(store, j);
            // The same job again (usually nothing to write): the same answer both ways.
            expect(outcome(() => prepareCycle(store, j))).toEqual(outcome(() => prepareCycle(mapsOnly(store), j)));
            if (s.reopen) {
              store.close();
              store = CoordinatorStore.open(dir);
            }
          }
        } finally {
          store.close();
        }
      }),
      { numRuns },
    );
    // The property exercised the columns, not only the fallback.
    expect(columnar).toBeGreaterThan(minColumnar);
    if (minBytes > 0) expect(inBytes).toBeGreaterThanOrEqual(minBytes);
  }

  it('random jobs re-planned with changes: the columnar read gives the same plan, report and batch as the Map read', () => {
    columnsAgreeWithMaps(fc.integer({ min: 1, max: 30 }), Number(process.env.ASSIGNOR_LONG) ? 200 : 40, 20);
  });

  it('the same with over a thousand tasks: the store keeps the task keys, values and SSP lists as bytes, compared in place', () => {
    columnsAgreeWithMaps(fc.integer({ min: 1024, max: 1100 }), Number(process.env.ASSIGNOR_LONG) ? 30 : 6, 3, 1);
  });

  it('a log that repeats a task key in a section marked fresh (damage) is read the Map way: first position, last value', () => {
    class Replayed extends ReplayedState {
      body(keys: string[], field: string, type: string, values: string[]): void {
        this.state.applyBody({
          metas: ['{"host":"h","username":"u","source":"s","timestamp":1}'],
          sections: [{ kind: 'fields', type, field, keys, values, meta: null, fresh: true }],
          records: keys.length,
        });
      }
    }
    const build = (changelog = ['5', '6', '7']): Replayed => {
      const r = new Replayed();
      const keys = ['Partition 0', 'Partition 1', 'Partition 0'];
      r.body(keys, 'Partition', TYPES.changelog, changelog);
      r.body(keys, 'containerId', TYPES.taskContainer, ['0', '0', '0']);
      r.body(keys, 'taskMode', TYPES.taskMode, ['Active', 'Active', 'Active']);
      return r;
    };
    const s = build();
    const shared = s.sharedFields(TASK_TYPES)!;
    expect(shared.unique()).toBe(false);
    expect(s.singleFields(TYPES.changelog, 'Partition')).toEqual(new Map([['Partition 0', '7'], ['Partition 1', '6']]));
    const j = job({ ...STATEFUL, 'task.inputs': 'kafka.A', 'job.container.count': '1' }, { 'kafka.A': 2 });
    const store: CoordinatorStoreLike = Object.assign(Object.create(s) as ReplayedState, { put: () => {}, delete: () => {}, writeBatch: () => {} });
    const warned: string[] = [];
    const got = outcome(() => prepareCycle(store, j, { warn: (w) => warned.push(w) }));
    const want = outcome(() => prepareCycle(mapsOnly(build() as never), j));
    expect(got).toEqual(want);
    // Partition 0 keeps changelog partition 7 (the later value), as Samza's map would.
    expect((got as { model: string }).model).toContain('"taskName":"Partition 0","mode":"Active","changelogPartition":7');
    // The attempt on columns was discarded: its warnings are not repeated.
    expect(warned).toEqual((got as { warnings: string[] }).warnings);

    // A bad value in the overwritten row is not an error either: the Map way never sees it.
    const damaged = build(['abc', '6', '7']);
    const j3 = job({ ...STATEFUL, 'task.inputs': 'kafka.A', 'job.container.count': '1' }, { 'kafka.A': 3 });
    const store3: CoordinatorStoreLike = Object.assign(Object.create(damaged) as ReplayedState, { put: () => {}, delete: () => {}, writeBatch: () => {} });
    const got3 = outcome(() => prepareCycle(store3, j3));
    expect(got3).toEqual(outcome(() => prepareCycle(mapsOnly(build(['abc', '6', '7']) as never), j3)));
    expect((got3 as { model: string }).model).toContain('"taskName":"Partition 2","mode":"Active","changelogPartition":8');
  });
});

describe('StringIndex', () => {
  it('finds every key at its row, and nothing else, as a Map would (non-ASCII, lone surrogates, empty)', () => {
    const str = fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom('', '\ud800', '\udc00x', 'Partition 1', '__proto__'));
    fc.assert(
      fc.property(fc.uniqueArray(str, { maxLength: 200 }), fc.array(str, { maxLength: 50 }), (keys, probes) => {
        const index = new StringIndex(keys, keys.length);
        expect(index.repeated).toBe(-1);
        const map = new Map(keys.map((k, i) => [k, i] as [string, number]));
        for (const k of [...keys, ...probes]) expect(index.rowOf(k)).toBe(map.get(k) ?? -1);
      }),
    );
  });

  it('reports the first repeated key', () => {
    expect(new StringIndex(['a', 'b', 'c', 'b', 'a'], 5).repeated).toBe(3);
    expect(new StringIndex(['a', 'b', 'c', 'b'], 2).repeated).toBe(-1);
  });
});

describe('per-task records as columns, at scale', () => {
  it('re-plans a store holding 160,000 standby tasks (no argument list as long as the task list)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'task-cols-standby-'));
    try {
      const j = job({ ...STATEFUL, 'task.inputs': 'kafka.A', 'job.container.count': '3', 'job.standbytasks.replication.factor': '2' }, { 'kafka.A': 160_000 });
      let store = CoordinatorStore.open(dir);
      expect(runCycle(store, j).recordsWritten).toBeGreaterThan(0);
      store.close();
      store = CoordinatorStore.open(dir);
      try {
        const again = runCycle(store, j);
        expect(again.recordsWritten).toBe(0);
        expect(again.plan.grouping.tasks.length).toBe(160_000);
      } finally {
        store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
