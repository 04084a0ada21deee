// The samza mapper on flat rows (src/samza/samza-mapper.ts + the samza kernel) against the object
// implementation it replaced (oracle-plan.ts): the same JobModel JSON bytes and the same errors,
// on random jobs, on every engine; and the kernel's WASM builds against its reference twin.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calculateJobModel, emptyPrevious, type JobModelPlan, type PreviousState } from '../../src/samza/plan.js';
import { jobModelJson } from '../../src/samza/job-model.js';
import { SamzaConfig } from '../../src/samza/config.js';
import { SamzaError } from '../../src/samza/errors.js';
import { ssp, type SSP } from '../../src/samza/model.js';
import { loadKernels, type SamzaProxyInput } from '../../src/engine/kernels.js';
import { loadWasmCore } from '../../src/engine/core.js';
import { oracleSamzaGrouping } from './oracle-plan.js';
import { after, STATEFUL } from './helpers.js';
import { caught } from '../helpers.js';
import { previousPartitionCounts, previousRows, previousRowsOfGrouping } from '../../src/samza/previous.js';

const ENGINES = ['reference', 'wasm-scalar', 'wasm-simd'] as const;
const GROUPERS = [
  'org.apache.samza.container.grouper.stream.GroupByPartitionFactory',
  'org.apache.samza.container.grouper.stream.GroupBySystemStreamPartitionFactory',
  'org.apache.samza.container.grouper.stream.AllSspToSingleTaskGrouperFactory',
] as const;

const streamName = fc.oneof(
  fc.constantFrom('a', 'b', 'c', 'a.b', 'Z'),
  fc.constantFrom('__proto__', 'constructor', 'x\u{1F600}', 'ü'),
);

interface RandomJob {
  cfg: Record<string, string>;
  names: string[];
  before: number[];
  now: number[];
  containers: number;
  /** How the previous state is made: from a plan of `before` (with this grouper or another), from random lists, or none. */
  previous: 'plan' | 'switch' | 'random' | 'none';
  randomPrevious: Array<[string, SSP[]]>;
}

const randomSsp = (names: string[]) =>
  fc.record({
    name: fc.oneof(fc.constantFrom(...names), fc.constant('kafka.gone')),
    partition: fc.integer({ min: 0, max: 14 }),
    keyBucket: fc.integer({ min: -1, max: 2 }),
  });

const randomJob: fc.Arbitrary<RandomJob> = fc
  .uniqueArray(streamName, { minLength: 1, maxLength: 3 })
  .chain((streams) => {
    const names = streams.map((s) => `kafka.${s}`);
    return fc.record({
      names: fc.constant(names),
      grouper: fc.constantFrom(...GROUPERS),
      factor: fc.constantFrom(1, 1, 2, 3),
      stateful: fc.constantFrom(true, true, false),
      expansion: fc.constantFrom('true', 'true', 'true', 'false'),
      broadcast: fc.option(fc.constantFrom(`${names[0]}#0`, `${names[0]}#[1-2]`, 'kafka.bc#0', `kafka.bc#[0-1],${names[0]}#3`), { freq: 3 }),
      before: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: names.length, maxLength: names.length }),
      mult: fc.array(fc.oneof(fc.constantFrom(1, 2, 3), fc.integer({ min: 0, max: 12 })), { minLength: names.length, maxLength: names.length }),
      containers: fc.integer({ min: 1, max: 3 }),
      previous: fc.constantFrom<RandomJob['previous']>('plan', 'plan', 'switch', 'random', 'none'),
      tasks: fc.array(
        fc.tuple(
          fc.oneof(fc.constantFrom('Partition 0', 'Partition 1', 'Partition 2', 'Partition 0 1', 'Task-0', 'Task-1', 'other'), fc.string({ maxLength: 3 })),
          fc.array(randomSsp(names), { maxLength: 6 }),
        ),
        { maxLength: 5 },
      ),
    });
  })
  .map((r) => {
    const cfg: Record<string, string> = {
      'task.inputs': r.names.join(','),
      'job.systemstreampartition.grouper.factory': r.grouper,
      'job.container.count': String(r.containers),
      'job.systemstreampartition.input.expansion.enabled': r.expansion,
    };
    if (r.stateful) Object.assign(cfg, STATEFUL);
    if (r.factor > 1) cfg['job.elasticity.factor'] = String(r.factor);
    if (r.broadcast !== null && !r.grouper.includes('AllSsp')) cfg['task.broadcast.inputs'] = r.broadcast;
    const dedup = new Map<string, SSP[]>();
    for (const [t, list] of r.tasks) {
      dedup.set(
        t,
        list.map((x) => {
          const dot = x.name.indexOf('.');
          return ssp(x.name.slice(0, dot), x.name.slice(dot + 1), x.partition, x.keyBucket);
        }),
      );
    }
    return {
      cfg,
      names: r.names,
      before: r.before,
      now: r.before.map((b, i) => (r.previous === 'switch' ? b : r.mult[i]! <= 3 ? b * r.mult[i]! : r.mult[i]!)),
      containers: r.containers,
      previous: r.previous,
      randomPrevious: [...dedup],
    };
  });

const job = (cfg: Record<string, string>, names: string[], counts: number[]) => ({
  config: new SamzaConfig(Object.entries(cfg)),
  partitionCounts: new Map(names.map((n, i) => [n, counts[i]!] as [string, number])),
});

function previousOf(j: RandomJob): PreviousState | undefined {
  if (j.previous === 'none') return emptyPrevious();
  if (j.previous === 'random') return { ...emptyPrevious(), taskToSsps: new Map(j.randomPrevious) };
  try {
    // A previous plan with expansion on, so the store holds what the proxy produced.
    const cfg: Record<string, string> = { ...j.cfg, 'job.systemstreampartition.input.expansion.enabled': 'true' };
    // After a grouper switch the previous tasks are mostly not current ones: Samza's NullPointerException.
    if (j.previous === 'switch') cfg['job.systemstreampartition.grouper.factory'] = GROUPERS[(GROUPERS.indexOf(j.cfg['job.systemstreampartition.grouper.factory'] as (typeof GROUPERS)[number]) + 1) % 2]!;
    return after(calculateJobModel(job(cfg, j.names, j.before), emptyPrevious(), { mapper: 'samza', engine: 'reference' }));
  } catch {
    return undefined;
  }
}

function outcome<T>(f: () => T): { ok: T } | { error: SamzaError } {
  try {
    return { ok: f() };
  } catch (e) {
    return { error: e as SamzaError };
  }
}

function describeError(e: SamzaError): unknown {
  return { code: e.code, type: e.samzaType, message: e.message, path: e.path, cause: e.cause === undefined ? undefined : { type: (e.cause as SamzaError).samzaType, message: e.cause.message } };
}

/** Same JobModel JSON (or the same error) as the oracle grouping, on every engine. */
function checkAgainstOracle(j: RandomJob): void {
  const previous = previousOf(j);
  if (previous === undefined) return;
  const input = job(j.cfg, j.names, j.now);
  const oracle = outcome(() => oracleSamzaGrouping(input, previous.taskToSsps, Array.from({ length: j.containers }, (_, i) => String(i))));
  for (const engine of ENGINES) {
    const got = outcome(() => calculateJobModel(input, previous, { mapper: 'samza', engine }));
    if ('error' in oracle) {
      expect('error' in got, `${engine}: expected ${oracle.error.message}`).toBe(true);
      expect(describeError((got as { error: SamzaError }).error)).toEqual(describeError(oracle.error));
      continue;
    }
    if ('error' in got) {
      // Only the container step may still refuse: no tasks, or fewer tasks than containers.
      expect(['E_SAMZA_NO_TASKS', 'E_SAMZA_CONTAINERS'], got.error.message).toContain(got.error.code);
      expect(oracle.ok.tasks.length < j.containers).toBe(true);
      continue;
    }
    const plan: JobModelPlan = got.ok;
    expect(plan.grouping.tasks).toEqual(oracle.ok.tasks);
    expect(jobModelJson(plan) === jobModelJson({ ...plan, grouping: oracle.ok })).toBe(true);
  }
}

describe('samza mapper on flat rows equals the object implementation', () => {
  it('on random jobs, previous states and partition changes (JobModel JSON bytes and errors)', () => {
    fc.assert(fc.property(randomJob, checkAgainstOracle), { numRuns: 300 });
  });

  it('the worked example and its errors, pinned', () => {
    const base: RandomJob = {
      cfg: { ...STATEFUL, 'task.inputs': 'kafka.PVE,kafka.__proto__', 'job.container.count': '2' },
      names: ['kafka.PVE', 'kafka.__proto__'],
      before: [4, 2],
      now: [8, 2],
      containers: 2,
      previous: 'plan',
      randomPrevious: [],
    };
    checkAgainstOracle(base);
    checkAgainstOracle({ ...base, now: [6, 2] });
    checkAgainstOracle({ ...base, now: [8, 1] });
    checkAgainstOracle({ ...base, cfg: { ...base.cfg, 'job.elasticity.factor': '2' }, now: [16, 4] });
    checkAgainstOracle({ ...base, cfg: { ...base.cfg, 'task.broadcast.inputs': 'kafka.PVE#[0-1]' }, now: [12, 2] });
  });

  it('an SSP listed under several previous tasks goes to the last of them in name order', () => {
    // Two occurrences of A before, two now: no count change, so each SSP looks up itself.
    const j: RandomJob = {
      cfg: { ...STATEFUL, 'task.inputs': 'kafka.A' },
      names: ['kafka.A'],
      before: [2],
      now: [2],
      containers: 1,
      previous: 'random',
      randomPrevious: [
        ['Partition 1', [ssp('kafka', 'A', 0)]],
        ['Partition 0', [ssp('kafka', 'A', 0)]],
      ],
    };
    checkAgainstOracle(j);
    const plan = calculateJobModel(job(j.cfg, j.names, j.now), previousOf(j)!, { mapper: 'samza' });
    expect(plan.grouping.tasks).toEqual(['Partition 1']);
  });
});

describe('samza kernel: WASM equals the reference twin', () => {
  const kernelInput = fc
    .record({
      S: fc.integer({ min: 1, max: 4 }),
      width: fc.constantFrom(1, 3),
      tasks: fc.integer({ min: 1, max: 6 }),
      prevTasks: fc.integer({ min: 1, max: 6 }),
      seed: fc.integer(),
      ranks: fc.boolean(),
    })
    .chain((g) =>
      fc.record({
        g: fc.constant(g),
        limit: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: g.S, maxLength: g.S }),
        prev: fc.array(fc.tuple(fc.integer({ min: -1, max: g.S - 1 }), fc.integer({ min: 0, max: 12 }), fc.integer({ min: -2, max: 3 }), fc.integer({ min: 0, max: g.prevTasks - 1 })), { maxLength: 40 }),
        prevToCur: fc.array(fc.integer({ min: -1, max: g.tasks - 1 }), { minLength: g.prevTasks, maxLength: g.prevTasks }),
        curExtra: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: g.S, maxLength: g.S }),
        rows: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 0, max: 1 }), fc.integer({ min: -2, max: g.tasks - 1 })), { maxLength: 60 }),
      }),
    )
    .map(({ g, limit, prev, prevToCur, curExtra, rows }): SamzaProxyInput => {
      const offset = new Int32Array(g.S + 1);
      for (let s = 0; s < g.S; s++) offset[s + 1] = offset[s]! + limit[s]! * g.width;
      const valid = rows
        .map(([s, p, b, t]) => [s % g.S, p, b, t] as const)
        .filter(([s]) => limit[s]! > 0)
        .map(([s, p, b, t]) => [s, p % limit[s]!, g.width === 1 ? -1 : b % (g.width - 1), t < 0 ? -2 : t] as const);
      const curCount = new Int32Array(g.S);
      for (const [s] of valid) curCount[s]!++;
      for (let s = 0; s < g.S; s++) curCount[s]! += curExtra[s]!;
      const exclude: number[] = [];
      for (let s = 0; s < g.S; s++) if (limit[s]! > 0 && (g.seed + s) % 3 === 0) exclude.push(offset[s]!);
      // Ranks only need an order (ties keep the task already held, on every engine).
      const rank = Int32Array.from({ length: g.prevTasks }, (_, i) => ((i * 7919 + g.seed) >>> 0) % 5);
      return {
        prevStream: Int32Array.from(prev, (x) => x[0] + 1),
        prevStreamToCur: Int32Array.from({ length: g.S + 1 }, (_, i) => i - 1),
        prevPartition: Int32Array.from(prev, (x) => x[1]),
        prevBucket: Int32Array.from(prev, (x) => x[2]),
        prevTask: Int32Array.from(prev, (x) => x[3]),
        prevRank: g.ranks ? rank : null,
        prevToCur: Int32Array.from(prevToCur),
        limit: Int32Array.from(limit),
        offset,
        width: g.width,
        curCount,
        exclude: Int32Array.from(exclude),
        stream: Int32Array.from(valid, (x) => x[0]),
        partition: Int32Array.from(valid, (x) => x[1]),
        bucket: g.width === 1 ? null : Int32Array.from(valid, (x) => x[2]),
        rowTask: Int32Array.from(valid, (x) => x[3]),
        nTasks: g.tasks,
      };
    });

  it('on random tables, rows, counts and failures', () => {
    const ref = loadKernels({ engine: 'reference' });
    fc.assert(
      fc.property(kernelInput, (input) => {
        const want = ref.samzaProxy(input);
        for (const engine of ['wasm-scalar', 'wasm-simd'] as const) expect(loadKernels({ engine }).samzaProxy(input)).toEqual(want);
      }),
      { numRuns: 500 },
    );
  });

  it('on empty input', () => {
    const empty: SamzaProxyInput = {
      prevStream: new Int32Array(0), prevStreamToCur: new Int32Array(0), prevPartition: new Int32Array(0), prevBucket: null, prevTask: new Int32Array(0), prevRank: null, prevToCur: new Int32Array(0),
      limit: new Int32Array(0), offset: new Int32Array(1), width: 1, curCount: new Int32Array(0), exclude: new Int32Array(0),
      stream: new Int32Array(0), partition: new Int32Array(0), bucket: null, rowTask: new Int32Array(0), nTasks: 0,
    };
    for (const engine of ENGINES) expect(loadKernels({ engine }).samzaProxy(empty)).toEqual({ needsRanks: false, task: new Int32Array(0), prevCount: new Int32Array(0), failedRow: -1, failKind: 0, failPrevTask: -1 });
  });
});

describe('the previous assignment in flat form', () => {
  it('gives the same plan as the same assignment as SSP objects, with either mapper', () => {
    fc.assert(
      fc.property(randomJob, fc.constantFrom<'samza' | 'base'>('samza', 'base'), (j, mapper) => {
        const cfg: Record<string, string> = { ...j.cfg, 'job.systemstreampartition.input.expansion.enabled': 'true' };
        let first: JobModelPlan;
        try {
          first = calculateJobModel(job(cfg, j.names, j.before), emptyPrevious(), { mapper });
        } catch {
          return;
        }
        const asObjects = after(first);
        const asRows = { ...asObjects, taskToSsps: previousRowsOfGrouping(first.grouping) };
        const a = outcome(() => jobModelJson(calculateJobModel(job(j.cfg, j.names, j.now), asObjects, { mapper, allowKeyMovement: true })));
        const b = outcome(() => jobModelJson(calculateJobModel(job(j.cfg, j.names, j.now), asRows, { mapper, allowKeyMovement: true })));
        if ('error' in a) expect('error' in b && describeError(b.error)).toEqual(describeError(a.error));
        else expect('ok' in b && b.ok === a.ok).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('a previous SSP with a bad partition or key bucket is refused with its place', () => {
    const bad = (s: object) => caught(() => calculateJobModel(job({ ...STATEFUL, 'task.inputs': 'kafka.A' }, ['kafka.A'], [2]), { ...emptyPrevious(), taskToSsps: new Map([['Partition 0', [s as SSP]]]) }, { mapper: 'samza' }));
    const e = bad({ system: 'kafka', stream: 'A', partition: -1, keyBucket: -1 });
    expect(e.code).toBe('E_SAMZA_PREVIOUS');
    expect(e.path).toBe('previous.taskToSsps["Partition 0"][0].partition');
    expect(bad({ system: 'kafka', stream: 'A', partition: 0, keyBucket: 1.5 }).path).toBe('previous.taskToSsps["Partition 0"][0].keyBucket');
    expect(bad({ partition: 0 }).message).toMatch(/without a system and stream name/);
  });
});

describe('WASM memory across samza plans', () => {
  it('1,000 consecutive samza-mapper plans leave linear memory the size the first one grew it to', () => {
    const core = loadWasmCore(true);
    const j = { ...STATEFUL, 'task.inputs': 'kafka.A,kafka.B', 'job.container.count': '4' };
    const prev = after(calculateJobModel(job(j, ['kafka.A', 'kafka.B'], [64, 32]), emptyPrevious(), { mapper: 'samza', engine: 'wasm-simd' }));
    const next = job(j, ['kafka.A', 'kafka.B'], [128, 64]);
    calculateJobModel(next, prev, { mapper: 'samza', engine: 'wasm-simd' });
    const size = core.memoryBytes();
    for (let i = 0; i < 1000; i++) calculateJobModel(next, prev, { mapper: 'samza', engine: 'wasm-simd' });
    expect(core.memoryBytes()).toBe(size);
  });
});

describe('previous partition counts (the report of each stream\'s previous partitions)', () => {
  it('count distinct partitions per stream name, for dense and sparse partition ids', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'd', 'c.d'), fc.constantFrom('kafka', 'kafka.c'), fc.oneof(fc.integer({ min: 0, max: 70 }), fc.constantFrom(2147483647, 1 << 30))), { maxLength: 80 }),
        (list) => {
          const taskToSsps = new Map<string, SSP[]>([['t', list.map(([stream, system, p]) => ssp(system, stream, p))]]);
          const want = new Map<string, Set<number>>();
          for (const [stream, system, p] of list) {
            const name = `${system}.${stream}`;
            if (!want.has(name)) want.set(name, new Set());
            want.get(name)!.add(p);
          }
          const got = previousPartitionCounts(previousRows(taskToSsps));
          expect(new Map([...got].sort())).toEqual(new Map([...want].map(([k, v]) => [k, v.size] as [string, number]).sort()));
        },
      ),
    );
  });
});
