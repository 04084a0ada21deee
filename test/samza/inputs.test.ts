// The Samza API takes plain objects and arrays of pairs wherever it takes a SamzaConfig or a Map,
// and SSPs without keyBucket; user strings such as __proto__ stay data.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calculateJobModel, emptyPrevious, type PreviousState } from '../../src/samza/plan.js';
import { jobModelJson } from '../../src/samza/job-model.js';
import { SamzaConfig, readSettings } from '../../src/samza/config.js';
import { createSspGrouper, GroupByPartition } from '../../src/samza/groupers.js';
import { hashMapperPreviousSsp, sspGrouperProxy } from '../../src/samza/samza-proxy.js';
import { balanceByContainerCount, groupByContainerIdsWithLocality } from '../../src/samza/container-groupers.js';
import { assignChangelogPartitions, mergeChangelogMappings } from '../../src/samza/changelog.js';
import { compareSsp, ssp, sspToString, type SSP } from '../../src/samza/model.js';
import { caught } from '../helpers.js';
import { prepareCycle, runCycle } from '../../src/samza/cycle.js';
import { MemoryCoordinatorStore } from '../../src/store/memory-store.js';
import { after, STATEFUL, view } from './helpers.js';

/** Map -> plain object built the way JSON.parse builds it (so __proto__ is an own key). */
const plain = <V>(m: ReadonlyMap<string, V>): Record<string, V> => JSON.parse(JSON.stringify(Object.fromEntries(m))) as Record<string, V>;
/** Map -> [key, value] pairs. */
const pairs = <V>(m: ReadonlyMap<string, V>): Array<[string, V]> => [...m];
/** SSPs without their keyBucket field when it is -1. */
const bare = (list: readonly SSP[]) => list.map((s) => (s.keyBucket === -1 ? { system: s.system, stream: s.stream, partition: s.partition } : s));

describe('calculateJobModel takes plain shapes', () => {
  const names = fc.uniqueArray(fc.constantFrom('kafka.__proto__', 'kafka.constructor', 'kafka.A', 'kafka.toString', 'other.hasOwnProperty'), { minLength: 1, maxLength: 4 });

  it('a plain-object or pairs job, previous state and processors give the same JobModel as Maps', () => {
    fc.assert(
      fc.property(
        names,
        fc.array(fc.integer({ min: 2, max: 6 }), { minLength: 4, maxLength: 4 }),
        fc.constantFrom<'samza' | 'base'>('samza', 'base'),
        fc.constantFrom('GroupByContainerCountFactory', 'GroupByContainerIdsFactory'),
        (streams, counts, mapper, taskGrouper) => {
          const cfg = new Map<string, string>([
            ...Object.entries(STATEFUL),
            ['task.inputs', streams.join(',')],
            ['job.container.count', '2'],
            ['task.name.grouper.factory', `org.apache.samza.container.grouper.task.${taskGrouper}`],
          ]);
          const before = new Map(streams.map((n, i) => [n, counts[i]!] as [string, number]));
          const now = new Map(streams.map((n, i) => [n, counts[i]! * 2] as [string, number]));
          const processors = new Map([['__proto__', 'h1'], ['1', 'h2']]);
          const prev = after(calculateJobModel({ config: new SamzaConfig(cfg), partitionCounts: before }, emptyPrevious(), { mapper, processors }));
          const want = jobModelJson(calculateJobModel({ config: new SamzaConfig(cfg), partitionCounts: now }, prev, { mapper, processors }));
          const plainPrev = {
            baseCounts: plain(prev.baseCounts),
            taskToSsps: Object.fromEntries([...prev.taskToSsps].map(([t, l]) => [t, bare(l)])),
            changelog: pairs(prev.changelog),
            taskContainer: plain(prev.taskContainer),
          };
          expect(jobModelJson(calculateJobModel({ config: plain(cfg), partitionCounts: plain(now) }, plainPrev, { mapper, processors: pairs(processors) }))).toBe(want);
          expect(jobModelJson(calculateJobModel({ config: pairs(cfg), partitionCounts: pairs(now) }, JSON.parse(JSON.stringify(plainPrev)) as typeof plainPrev, { mapper, processors: pairs(processors) }))).toBe(want);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('config values may be numbers or booleans, as in job.json', () => {
    const p = calculateJobModel({ config: { 'task.inputs': 'kafka.A', 'job.container.count': 2, 'job.host-affinity.enabled': false }, partitionCounts: { 'kafka.A': 4 } });
    expect(p.containers.ids).toEqual(['0', '1']);
    expect(p.config.get('job.container.count')).toBe('2');
  });

  it('a missing previous field is empty', () => {
    const p = calculateJobModel({ config: { ...STATEFUL, 'task.inputs': 'kafka.A' }, partitionCounts: [['kafka.A', 8]] }, { baseCounts: { 'kafka.A': 4 } });
    expect(p.grouping.tasks).toEqual(['Partition 0', 'Partition 1', 'Partition 2', 'Partition 3']);
  });

  it('bad shapes and values are refused with E_SAMZA_INPUT / E_SAMZA_CONFIG and where they are', () => {
    const job = { config: { 'task.inputs': 'kafka.A' }, partitionCounts: { 'kafka.A': 4 } };
    const cases: Array<[() => unknown, string, string]> = [
      [() => calculateJobModel({ ...job, config: { 'task.inputs': { x: 1 } } as never }), 'E_SAMZA_CONFIG', 'config.task.inputs'],
      [() => calculateJobModel({ ...job, config: 'task.inputs=kafka.A' as never }), 'E_SAMZA_INPUT', 'config'],
      [() => calculateJobModel({ ...job, partitionCounts: { 'kafka.A': '4' } as never }), 'E_SAMZA_INPUT', 'partitions.kafka.A'],
      [() => calculateJobModel({ ...job, partitionCounts: { 'kafka.A': -1 } }), 'E_SAMZA_INPUT', 'partitions.kafka.A'],
      [() => calculateJobModel({ ...job, partitionCounts: [['kafka.A', 4], ['kafka.A', 5]] }), 'E_SAMZA_INPUT', 'partitions[1]'],
      [() => calculateJobModel({ ...job, partitionCounts: [['kafka.A']] as never }), 'E_SAMZA_INPUT', 'partitions[0]'],
      [() => calculateJobModel(job, { taskModes: { t: 'Leader' } as never }), 'E_SAMZA_INPUT', 'previous.taskModes.t'],
      [() => calculateJobModel(job, { taskToSsps: { t: 'kafka.A#0' } as never }), 'E_SAMZA_PREVIOUS', 'previous.taskToSsps["t"]'],
      [() => calculateJobModel(job, { changelog: new Map([['t', 1.5]]) }), 'E_SAMZA_INPUT', 'previous.changelog.t'],
      [() => calculateJobModel(job, {}, { processors: { a: 7 } as never }), 'E_SAMZA_INPUT', 'processors.a'],
    ];
    for (const [f, code, path] of cases) {
      const e = caught(f);
      expect([e.code, e.path], e.message).toEqual([code, path]);
    }
  });
});

describe('SSPs without keyBucket mean key bucket -1', () => {
  const A0 = { system: 'kafka', stream: 'A', partition: 0 };

  it('in the groupers: `Partition 0`, never `Partition 0 undefined`', () => {
    expect([...createSspGrouper({}).group([A0, { ...A0, partition: 1 }]).keys()]).toEqual(['Partition 0', 'Partition 1']);
    const bySsp = createSspGrouper({ 'job.systemstreampartition.grouper.factory': 'GroupBySystemStreamPartitionFactory' }).group([A0]);
    expect([...bySsp.keys()]).toEqual(['SystemStreamPartition [kafka, A, 0]']);
    expect([...bySsp.get('SystemStreamPartition [kafka, A, 0]')!]).toEqual([ssp('kafka', 'A', 0)]);
  });

  it('in the proxy, its previous assignment and the mapper', () => {
    const cfg = { ...STATEFUL };
    const previous = { 'Partition 0': [A0], 'Partition 1': [{ ...A0, partition: 1 }] };
    const r = sspGrouperProxy(new GroupByPartition(cfg), cfg, [0, 1, 2, 3].map((p) => ({ ...A0, partition: p })), previous);
    expect(view(r.grouping)).toEqual({ 'Partition 0': ['kafka.A#0', 'kafka.A#2'], 'Partition 1': ['kafka.A#1', 'kafka.A#3'] });
    expect(hashMapperPreviousSsp({ ...A0, partition: 5 }, 2, 8)).toEqual(ssp('kafka', 'A', 1));
  });

  it('in the SSP helpers', () => {
    expect(sspToString(A0)).toBe('SystemStreamPartition [kafka, A, 0]');
    expect(compareSsp(A0, ssp('kafka', 'A', 0))).toBe(0);
  });

  it('in a stored previous assignment handed to the planner', () => {
    const cfg = { ...STATEFUL, 'task.inputs': 'kafka.A' };
    const p = calculateJobModel({ config: cfg, partitionCounts: { 'kafka.A': 4 } }, { taskToSsps: { 'Partition 0': [A0], 'Partition 1': [{ ...A0, partition: 1 }] } }, { mapper: 'samza' });
    expect(p.grouping.tasks).toEqual(['Partition 0', 'Partition 1']);
  });

  it('a malformed SSP is refused with where it is', () => {
    const e = caught(() => createSspGrouper({}).group([A0, { system: 'kafka', stream: 'A', partition: 1, keyBucket: -2 }]));
    expect([e.code, e.path]).toEqual(['E_SAMZA_INPUT', 'ssps[1].keyBucket']);
    expect(caught(() => createSspGrouper({}).group([{ system: 'kafka', partition: 1 } as never])).path).toBe('ssps[0]');
  });
});

describe('the rest of the API takes plain shapes too', () => {
  it('readSettings, the grouper factory and the proxy take a plain config or pairs', () => {
    expect(readSettings([['task.inputs', 'kafka.__proto__']]).inputs).toEqual([{ system: 'kafka', stream: '__proto__' }]);
    const cfg = JSON.parse('{"task.inputs":"kafka.__proto__","task.broadcast.inputs":"kafka.__proto__#0"}') as Record<string, string>;
    expect([...createSspGrouper(cfg).group([ssp('kafka', '__proto__', 1)]).keys()]).toEqual(['Partition 1']);
  });

  it('the container groupers take plain objects and pairs for their maps', () => {
    const tasks = ['Partition 0', 'Partition 1', 'Partition 2', 'Partition 3'];
    const prev = new Map([['Partition 0', '0'], ['Partition 1', '1'], ['Partition 2', '0'], ['Partition 3', '1']]);
    expect(balanceByContainerCount(tasks, 2, plain(prev))).toEqual(balanceByContainerCount(tasks, 2, prev));
    const procs = new Map([['__proto__', 'h1'], ['b', 'h2']]);
    const located = new Map([['Partition 1', 'h1']]);
    expect(groupByContainerIdsWithLocality(tasks, plain(procs), pairs(located))).toEqual(groupByContainerIdsWithLocality(tasks, procs, located));
  });

  it('the changelog helpers take plain objects and pairs', () => {
    expect([...assignChangelogPartitions(['a', 'b'], { a: 3 })]).toEqual([3, 4]);
    expect([...mergeChangelogMappings({ a: 1 }, [['a', 0], ['__proto__', 2]])]).toEqual([['a', 1], ['__proto__', 2]]);
  });

  it('a PreviousState of Maps is still taken as it is', () => {
    const state: PreviousState = emptyPrevious();
    expect(calculateJobModel({ config: { 'task.inputs': 'kafka.A' }, partitionCounts: { 'kafka.A': 2 } }, state).grouping.tasks).toEqual(['Partition 0', 'Partition 1']);
  });

  it('any ReadonlyMap (not only a Map) is read as a map, and read only when the plan needs it', () => {
    // A lazy map as the store cycle hands over: counts how often its entries are walked.
    let walks = 0;
    const inner = new Map([['Partition 0', [ssp('kafka', 'A', 0)]], ['Partition 1', [ssp('kafka', 'A', 1)]]]);
    const lazy: ReadonlyMap<string, readonly SSP[]> = {
      get size() { return inner.size; },
      get: (k) => inner.get(k),
      has: (k) => inner.has(k),
      forEach: (f) => inner.forEach((v, k) => f(v, k, lazy)),
      keys: () => inner.keys(),
      values: () => inner.values(),
      entries: () => ((walks++), inner.entries()),
      [Symbol.iterator]: () => ((walks++), inner.entries()),
    };
    const job = { config: { ...STATEFUL, 'task.inputs': 'kafka.A' }, partitionCounts: { 'kafka.A': 4 } };
    const prev = { baseCounts: { 'kafka.A': 2 }, taskToSsps: lazy };
    // Base mapper, base known, previous partition counts given: the assignment is never walked.
    const folded = calculateJobModel(job, { ...prev, partitionCounts: { 'kafka.A': 2 } });
    expect(walks).toBe(0);
    expect(folded.streams[0]!.previousPartitions).toBe(2);
    // Without the counts it is read (once), and the model is the same as from a Map.
    const read = calculateJobModel(job, prev);
    expect(walks).toBeGreaterThan(0);
    expect(jobModelJson(read)).toBe(jobModelJson(folded));
    expect(jobModelJson(calculateJobModel(job, prev, { mapper: 'samza' }))).toBe(jobModelJson(calculateJobModel(job, { ...prev, taskToSsps: inner }, { mapper: 'samza' })));
  });

  it('runCycle and prepareCycle take the job in plain shapes, with the same result as a SamzaConfig and Maps', () => {
    const cfg = { ...STATEFUL, 'task.inputs': 'kafka.__proto__,kafka.B', 'job.container.count': 2 };
    const counts = { 'kafka.__proto__': 4, 'kafka.B': 2 };
    const strict = { config: new SamzaConfig(Object.entries(cfg).map(([k, v]) => [k, String(v)] as [string, string])), partitionCounts: new Map(Object.entries(counts)) };
    const a = new MemoryCoordinatorStore();
    const b = new MemoryCoordinatorStore();
    expect(jobModelJson(runCycle(a, JSON.parse(JSON.stringify({ config: cfg, partitionCounts: counts }))).plan)).toBe(jobModelJson(runCycle(b, strict).plan));
    const grown = { config: [...Object.entries(cfg)] as Array<[string, string | number]>, partitionCounts: [['kafka.__proto__', 8], ['kafka.B', 2]] as Array<[string, number]> };
    const dry = prepareCycle(a, grown, { mapper: 'samza' });
    expect(new Map(dry.plan.streams.map((x) => [x.name, x.previousPartitions]))).toEqual(new Map([['kafka.__proto__', 4], ['kafka.B', 2]]));
    expect(jobModelJson(runCycle(a, grown, { mapper: 'samza' }).plan)).toBe(jobModelJson(dry.plan));
    expect(caught(() => runCycle(a, { config: cfg, partitionCounts: { 'kafka.__proto__': -1, 'kafka.B': 2 } }))).toMatchObject({ code: 'E_SAMZA_INPUT', path: 'partitions.kafka.__proto__' });
  });
});
