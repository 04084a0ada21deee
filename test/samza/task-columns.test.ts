// Samza's per-task records (changelog, container, mode) read as columns over one key column
// (StoreState.taskTable, TaskRows, ColumnMap) give exactly what reading them as Maps gives.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { prepareCycle, runCycle } from '../../src/samza/cycle.js';
import { jobModelJson } from '../../src/samza/job-model.js';
import { TYPES } from '../../src/samza/managers.js';
import type { CoordinatorStoreReader } from '../../src/samza/store-types.js';
import { CoordinatorStore } from '../../src/store/index.js';
import { AsciiColumn } from '../../src/columns/ascii-column.js';
import { ReplayedState } from '../../src/store/replayed-state.js';
import { StringIndex } from '../../src/columns/string-index.js';
import { config, STATEFUL } from './helpers.js';

const job = (cfg: Record<string, string>, counts: Record<string, number>) => ({ config: config(cfg), partitionCounts: new Map(Object.entries(counts)) });
const TASK_TYPES = [
  [TYPES.changelog, 'Partition'],
  [TYPES.taskContainer, 'containerId'],
  [TYPES.taskMode, 'taskMode'],
] as const;

/** The store as the cycle reads it without the shared task table: every type on its own (a one-type table, or entries). */
function mapsOnly(store: CoordinatorStoreReader): CoordinatorStoreReader {
  return {
    entries: (t) => store.entries(t),
    taskTable: (specs) => (specs.length === 1 ? store.taskTable(specs) : undefined),
    sspAssignment: () => store.sspAssignment(),
    commit: () => {
      throw new Error('read only');
    },
  };
}

/** An ASCII byte column of the strings (as the store decodes a big column). */
function asciiColumnOf(strings: readonly string[]): AsciiColumn {
  const off = new Int32Array(strings.length + 1);
  for (let i = 0; i < strings.length; i++) off[i + 1] = off[i]! + strings[i]!.length;
  return new AsciiColumn(Buffer.from(strings.join(''), 'latin1'), off);
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
            const shared = store.taskTable(TASK_TYPES);
            if (shared !== undefined && shared.n > 0) columnar++;
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

  it('a log that repeats a task key in a section marked fresh (damage) is resolved as the store opens, the Map way: first position, last value', () => {
    class Replayed extends ReplayedState {
      body(keys: string[], field: string, type: string, values: string[]): void {
        this.state.applyBody({
          metas: ['{"host":"h","username":"u","source":"s","timestamp":1}'],
          sections: [{ kind: 'fields', type, field, keys, values, meta: null, fresh: true }],
          records: keys.length,
        });
      }
      commit(): void {
        throw new Error('read only');
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
    // One task table, its keys unique: Partition 0 at its first position with its last value.
    const table = s.taskTable(TASK_TYPES)!;
    expect(table.n).toBe(2);
    expect([0, 1].map((r) => table.keys.at(r))).toEqual(['Partition 0', 'Partition 1']);
    expect([0, 1].map((r) => table.values[0]!.at(r))).toEqual(['7', '6']);
    expect(s.singleFields(TYPES.changelog, 'Partition')).toEqual(new Map([['Partition 0', '7'], ['Partition 1', '6']]));
    const j = job({ ...STATEFUL, 'task.inputs': 'kafka.A', 'job.container.count': '1' }, { 'kafka.A': 2 });
    const warned: string[] = [];
    const got = outcome(() => prepareCycle(s, j, { warn: (w) => warned.push(w) }));
    const want = outcome(() => prepareCycle(mapsOnly(build()), j));
    expect(got).toEqual(want);
    // Partition 0 keeps changelog partition 7 (the later value), as Samza's map would.
    expect((got as { model: string }).model).toContain('"taskName":"Partition 0","mode":"Active","changelogPartition":7');
    expect(warned).toEqual((got as { warnings: string[] }).warnings);

    // A bad value in the overwritten row is not an error either: a Map never sees it.
    const damaged = build(['abc', '6', '7']);
    const j3 = job({ ...STATEFUL, 'task.inputs': 'kafka.A', 'job.container.count': '1' }, { 'kafka.A': 3 });
    const got3 = outcome(() => prepareCycle(damaged, j3));
    expect(got3).toEqual(outcome(() => prepareCycle(mapsOnly(build(['abc', '6', '7'])), j3)));
    expect((got3 as { model: string }).model).toContain('"taskName":"Partition 2","mode":"Active","changelogPartition":8');
  });

  it('a fresh section that repeats a key of a byte column (over a thousand rows) is resolved the same way', () => {
    class Replayed extends ReplayedState {
      apply(keys: AsciiColumn, values: AsciiColumn): void {
        this.state.applyBody({ metas: ['{"host":"h"}'], sections: [{ kind: 'fields', type: TYPES.taskContainer, field: 'containerId', keys, values, meta: null, fresh: true }], records: keys.length });
      }
    }
    const n = 1500;
    const names = Array.from({ length: n }, (_, i) => `Partition ${i === n - 1 ? 3 : i}`);
    const ids = Array.from({ length: n }, (_, i) => String(i));
    const r = new Replayed();
    r.apply(asciiColumnOf(names), asciiColumnOf(ids));
    const table = r.taskTable([[TYPES.taskContainer, 'containerId']])!;
    expect(table.n).toBe(n - 1);
    expect(table.keys.at(3)).toBe('Partition 3');
    expect(table.values[0]!.at(3)).toBe(String(n - 1));
    expect(r.singleFields(TYPES.taskContainer, 'containerId')).toEqual(new Map(names.map((k, i) => [k, ids[i]!] as [string, string]).filter(([k], i) => k !== 'Partition 3' || i === n - 1)));
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
