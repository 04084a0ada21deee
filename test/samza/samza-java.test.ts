// Differential test against Apache Samza itself: test/samza/java/SamzaOracle.java runs Samza's own
// classes (samza-core 1.8.0 from Maven Central) on a few hundred random cases in one JVM, and every
// answer must equal ours: task names, SSP sets and container assignments, and where Samza throws,
// the exception type and text. Covered: GroupByPartition, GroupBySystemStreamPartition and
// AllSspToSingleTaskGrouper (through their factories), SSPGrouperProxy with
// HashSystemStreamPartitionMapper (previous assignments from plans, grouper switches and random
// lists), GroupByContainerCount (round-robin and balance paths), GroupByContainerIds (count, ids
// and locality paths), and java.util.HashMap key order (which Samza's processor ids follow).
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect } from 'vitest';
import { compileJava, runJava } from '../kafka/jvm.js';
import { command, itNeeds } from '../support/components.js';
import { SamzaConfig, readSettings } from '../../src/samza/config.js';
import { createSspGrouper } from '../../src/samza/groupers.js';
import { hashMapperPreviousSsp, sspGrouperProxy } from '../../src/samza/samza-proxy.js';
import { samzaGrouping } from '../../src/samza/samza-mapper.js';
import { previousRows } from '../../src/samza/previous.js';
import { toTaskGrouping } from '../support/groupings.js';
import { javaHashMapKeyOrder, javaSplit } from '../../src/samza/java-order.js';
import {
  balanceByContainerCount,
  groupByContainerCount,
  groupByContainerIds,
  groupByContainerIdsWithLocality,
  type ContainerAssignment,
} from '../../src/samza/container-groupers.js';
import { SamzaError } from '../../src/samza/errors.js';
import { compareSsp, ssp, sspId, systemStreamId, type SSP, type TaskGrouping } from '../../src/samza/model.js';
import { STATEFUL } from './helpers.js';
import { byCodeUnits } from '../../src/basics.js';

const needs = itNeeds(command('java', 'apt-get install openjdk-17-jdk-headless'), command('javac', 'apt-get install openjdk-17-jdk-headless'), command('mvn', 'apt-get install maven'));

const STREAM = 'org.apache.samza.container.grouper.stream.';
const GROUPERS = [`${STREAM}GroupByPartitionFactory`, `${STREAM}GroupBySystemStreamPartitionFactory`, `${STREAM}AllSspToSingleTaskGrouperFactory`] as const;
const IN_MEMORY = 'org.apache.samza.storage.kv.inmemory.InMemoryKeyValueStorageEngineFactory';

type SspTuple = [string, string, number, number];
type Canonical = Array<[string, SspTuple[]]>;
interface JavaError {
  type: string;
  message: string | null;
  cause?: JavaError;
}
type Answer<T> = { ok: T } | { error: JavaError };

// ---------------------------------------------------------------- SSP grouping cases

interface GroupCase {
  kind: 'group';
  config: Record<string, string>;
  ssps: SSP[];
  previous: Array<[string, SSP[]]> | null;
  /** When the SSPs are partitions 0..count-1 of each input stream: the counts (the planner's input). */
  counts: Map<string, number> | null;
}

const streamNames = fc.uniqueArray(fc.constantFrom('kafka.a', 'kafka.b.c', 'kafka.__proto__', 'other.ü', 'kafka.x\u{1F600}', 'kafka.Z'), { minLength: 1, maxLength: 3 });
const splitName = (n: string): [string, string] => [n.slice(0, n.indexOf('.')), n.slice(n.indexOf('.') + 1)];
const rangeSsps = (names: string[], counts: number[]): SSP[] => names.flatMap((n, i) => Array.from({ length: counts[i]! }, (_, p) => ssp(...splitName(n), p)));

/** Our object grouper (and proxy) for a config: what the previous run left, or null when it throws. */
function ourGrouping(config: Record<string, string>, ssps: SSP[], previous: ReadonlyMap<string, SSP[]> | null): TaskGrouping | null {
  try {
    const c = new SamzaConfig(Object.entries(config));
    const g = createSspGrouper(c);
    return previous === null ? g.group(ssps) : sspGrouperProxy(g, c, ssps, previous).grouping;
  } catch {
    return null;
  }
}

const groupCase: fc.Arbitrary<GroupCase> = streamNames.chain((names) =>
  fc
    .record({
      grouper: fc.constantFrom(...GROUPERS),
      factor: fc.constantFrom(1, 1, 1, 2, 3),
      broadcast: fc.option(
        fc.constantFrom(`${names[0]}#0`, `${names[0]}#[1-2]`, 'kafka.bc#0', `kafka.bc#[0-1], ${names[0]}#3`, 'kafka.bc#[3-1]', 'kafka.bc', 'kafka.bc#1-2', 'nodot#0'),
        { freq: 2 },
      ),
      stores: fc.constantFrom('persistent', 'persistent', 'persistent', 'in-memory', 'none'),
      processors: fc.constantFrom('0,1', '0', '0,1,2', 'a,b,', ',', '1,0,,'),
      before: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: names.length, maxLength: names.length }),
      change: fc.array(fc.oneof(fc.constantFrom(1, 2, 3), fc.integer({ min: 0, max: 12 }).map((n) => -n - 1)), { minLength: names.length, maxLength: names.length }),
      shape: fc.constantFrom('range', 'range', 'range', 'random'),
      randomSsps: fc.array(fc.record({ s: fc.nat(), p: fc.integer({ min: 0, max: 9 }), b: fc.integer({ min: -1, max: 2 }) }), { maxLength: 12 }),
      previous: fc.constantFrom('none', 'plan', 'plan', 'plan', 'switch', 'random'),
      randomPrevious: fc.array(
        fc.tuple(
          fc.constantFrom('Partition 0', 'Partition 1', 'Partition 2', 'Partition 1 1', 'Task-0', 'Task-1', 'SystemStreamPartition [kafka, a, 0]', 'x'),
          fc.array(fc.record({ s: fc.nat(), p: fc.integer({ min: 0, max: 9 }), b: fc.constantFrom(-1, -1, 0, 1) }), { maxLength: 5 }),
        ),
        { maxLength: 4 },
      ),
      shuffle: fc.integer(),
    })
    .map((r): GroupCase => {
      const config: Record<string, string> = { 'task.inputs': names.join(','), 'job.systemstreampartition.grouper.factory': r.grouper, 'processor.list': r.processors };
      if (r.factor > 1) config['job.elasticity.factor'] = String(r.factor);
      if (r.broadcast !== null) config['task.broadcast.inputs'] = r.broadcast;
      if (r.stores === 'persistent') Object.assign(config, STATEFUL);
      if (r.stores === 'in-memory') config['stores.cache.factory'] = IN_MEMORY;
      const now = r.before.map((b, i) => (r.change[i]! > 0 ? b * r.change[i]! : -r.change[i]! - 1));
      const pick = (x: { s: number; p: number; b: number }): SSP => ssp(...splitName(names[x.s % names.length]!), x.p, x.b);
      const ssps = r.shape === 'range' ? rangeSsps(names, now) : r.randomSsps.map(pick);
      // Samza iterates the input set in our order: shuffle it, the output must not care.
      for (let i = ssps.length - 1; i > 0; i--) {
        const j = Math.abs(r.shuffle + i * 7919) % (i + 1);
        [ssps[i], ssps[j]] = [ssps[j]!, ssps[i]!];
      }
      let previous: Array<[string, SSP[]]> | null = null;
      if (r.previous === 'random') {
        previous = r.randomPrevious.map(([t, list]) => [t, list.map(pick)]);
      } else if (r.previous === 'plan' || r.previous === 'switch') {
        const before = { ...config };
        if (r.previous === 'switch') before['job.systemstreampartition.grouper.factory'] = GROUPERS[(GROUPERS.indexOf(r.grouper) + 1) % 3]!;
        const g = ourGrouping(before, rangeSsps(names, r.before), null);
        previous = g === null ? [] : [...g].map(([t, set]) => [t, set.sorted()]);
      }
      // Samza's proxy lets the last previous task it iterates win; it iterates this list in order, we in name order.
      previous?.sort(([a], [b]) => byCodeUnits(a, b));
      return { kind: 'group', config, ssps, previous, counts: r.shape === 'range' ? new Map(names.map((n, i) => [n, now[i]!] as [string, number])) : null };
    }),
);

const tuple = (s: SSP): SspTuple => [s.system, s.stream, s.partition, s.keyBucket];

function canonical(g: TaskGrouping): Canonical {
  return [...g.keys()].sort(byCodeUnits).map((t) => [t, g.get(t)!.sorted().map(tuple)]);
}

function answer<T>(f: () => T): Answer<T> {
  try {
    return { ok: f() };
  } catch (e) {
    if (!(e instanceof SamzaError)) throw e;
    return { error: asJava(e) };
  }
}

function asJava(e: SamzaError): JavaError {
  const out: JavaError = { type: e.samzaType, message: e.message };
  if (e.cause instanceof SamzaError) out.cause = asJava(e.cause);
  return out;
}

/**
 * The failures Samza's proxy could meet first for this case: one per failing (task, SSP), as
 * `type: message` (NullPointerException texts are the JVM's own, so only the type counts).
 * Samza picks by its HashMap order, we by task creation order: exact when there is one candidate.
 */
function proxyCandidates(c: GroupCase): Set<string> {
  const out = new Set<string>();
  const config = new SamzaConfig(Object.entries(c.config));
  let raw: TaskGrouping;
  try {
    raw = createSspGrouper(config).group(c.ssps);
  } catch {
    return out;
  }
  const broadcast = new Set(readSettings(config).broadcast.map(sspId));
  const count = (entries: Iterable<[string, Iterable<SSP>]>): Map<string, number> => {
    const m = new Map<string, number>();
    for (const [, list] of entries) for (const s of list) m.set(systemStreamId(s), (m.get(systemStreamId(s)) ?? 0) + 1);
    return m;
  };
  const prevCount = count(c.previous ?? []);
  const curCount = count(raw);
  const prevTask = new Map<string, string>();
  for (const [t, list] of c.previous ?? []) for (const s of list) if (!broadcast.has(sspId(s))) prevTask.set(sspId(s), t);
  for (const [task, set] of raw) {
    for (const s of set) {
      if (broadcast.has(sspId(s))) continue;
      const p = prevCount.get(systemStreamId(s)) ?? 0;
      const k = curCount.get(systemStreamId(s)) ?? 0;
      let before: string | undefined;
      if (p > 0 && k !== p) {
        if (k % p !== 0) {
          out.add(`IllegalArgumentException: New partition count: ${k} should be a multiple of previous partition count: ${p}.`);
          continue;
        }
        before = prevTask.get(sspId(hashMapperPreviousSsp(s, p, k)));
      } else {
        before = prevTask.get(sspId(s));
      }
      if (before !== undefined && before !== task && !raw.has(before)) out.add('NullPointerException');
    }
  }
  return out;
}

function expectSameError(ours: JavaError, java: JavaError, candidates: Set<string>, where: string): void {
  expect(`${ours.type}: ${ours.message}`, where).toBe(`${java.type}: ${java.message}`);
  expect(ours.cause === undefined, where).toBe(java.cause === undefined);
  if (ours.cause === undefined || java.cause === undefined) return;
  const key = (e: JavaError) => (e.type === 'NullPointerException' ? e.type : `${e.type}: ${e.message}`);
  if (candidates.size <= 1) {
    expect(key(ours.cause), where).toBe(key(java.cause));
  } else {
    // Several (task, SSP) pairs fail differently: each side names one Samza could meet first.
    expect(candidates, where).toContain(key(ours.cause));
    expect(candidates, where).toContain(key(java.cause));
  }
}

function checkGroup(c: GroupCase, java: Answer<Canonical>, where: string): void {
  const config = new SamzaConfig(Object.entries(c.config));
  const previous = c.previous === null ? null : new Map(c.previous);
  // 1. The object API: the grouper from its factory, wrapped in the proxy when there is a previous assignment.
  const ours = answer(() => {
    const g = createSspGrouper(config);
    return canonical(previous === null ? g.group(c.ssps) : sspGrouperProxy(g, config, c.ssps, previous).grouping);
  });
  const candidates = proxyCandidates(c);
  if ('error' in java) {
    expect('error' in ours ? 'error' : JSON.stringify(ours.ok), where).toBe('error');
    expectSameError((ours as { error: JavaError }).error, java.error, candidates, where);
  } else {
    expect('ok' in ours ? ours.ok : ours.error, where).toEqual(java.ok);
  }
  // 2. The planner's path (flat rows, samza kernel) when the SSPs are whole partition ranges, on every engine.
  if (c.counts === null || previous === null) return;
  for (const engine of ['reference', 'wasm-scalar', 'wasm-simd'] as const) {
    const flat = answer(() => {
      const settings = readSettings(config);
      const counts = settings.inputs.map((s) => c.counts!.get(`${s.system}.${s.stream}`)!);
      const processors = javaSplit(c.config['processor.list']!, ',');
      return canonical(toTaskGrouping(samzaGrouping({ settings, counts, processors, previous: previousRows(previous), engine }).grouping));
    });
    const at = `${where} (planner, ${engine})`;
    if ('error' in java) {
      expect('error' in flat ? 'error' : JSON.stringify(flat.ok), at).toBe('error');
      expectSameError((flat as { error: JavaError }).error, java.error, candidates, at);
    } else {
      expect('ok' in flat ? flat.ok : flat.error, at).toEqual(java.ok);
    }
  }
}

// ---------------------------------------------------------------- container cases

interface ContainerCase {
  kind: 'containers';
  grouper: 'count' | 'ids';
  count: number;
  tasks: string[];
  call: 'tasks' | 'ids' | 'metadata';
  ids: string[] | null;
  previousTaskToProcessor: Array<[string, string]>;
  processorLocality: Array<[string, string]>;
  taskLocality: Array<[string, string]>;
}

const TASKS = ['Partition 0', 'Partition 1', 'Partition 2', 'Partition 10', 'Partition 11', 'Partition 2 1', 'a', 'B', '__proto__', 'ü'];
const IDS = ['0', '1', '2', '3', '10', '11', 'a', 'B', '__proto__'];
const HOSTS = ['h1', 'h2', 'h3', 'ANY_HOST'];

const containerCase: fc.Arbitrary<ContainerCase> = fc
  .record({
    grouper: fc.constantFrom<'count' | 'ids'>('count', 'ids'),
    call: fc.constantFrom<'tasks' | 'ids' | 'metadata'>('tasks', 'ids', 'metadata', 'metadata'),
    count: fc.integer({ min: -1, max: 5 }),
    tasks: fc.shuffledSubarray(TASKS, { minLength: 0, maxLength: 9 }),
    ids: fc.option(fc.shuffledSubarray(IDS, { minLength: 0, maxLength: 6 }), { freq: 5 }),
    prevContainers: fc.integer({ min: 1, max: 4 }),
    prevShape: fc.constantFrom('same', 'same', 'same', 'subset', 'other-names', 'gap'),
    prevSeed: fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
    localities: fc.array(fc.constantFrom(...HOSTS), { minLength: 12, maxLength: 12 }),
    located: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
    processors: fc.shuffledSubarray(IDS, { minLength: 0, maxLength: 7 }),
  })
  .map((r): ContainerCase => {
    // A GroupByContainerIds call with ids is the only one where ids matter; count calls ignore them.
    const call = r.grouper === 'count' && r.call === 'ids' ? 'tasks' : r.call;
    let prev: Array<[string, string]> = [];
    if (call === 'metadata' && r.grouper === 'count') {
      const names = r.prevShape === 'subset' ? r.tasks.slice(1) : r.prevShape === 'other-names' ? r.tasks.map((t, i) => (i === 0 ? `${t}-old` : t)) : r.tasks;
      prev = names.map((t, i) => [t, String((r.prevSeed[i]! % r.prevContainers) + (r.prevShape === 'gap' ? 1 : 0))]);
    }
    const tasksSorted = [...r.tasks].sort(byCodeUnits);
    return {
      kind: 'containers',
      grouper: r.grouper,
      count: r.count,
      // The locality path iterates Samza's task set (a HashSet there); we give both sides name order.
      tasks: call === 'metadata' && r.grouper === 'ids' ? tasksSorted : r.tasks,
      call,
      ids: r.ids,
      previousTaskToProcessor: prev,
      processorLocality: r.processors.map((p, i) => [p, r.localities[i]!]),
      taskLocality: r.tasks.filter((_, i) => r.located[i]).map((t, i) => [t, r.localities[(i + 3) % 12]!]),
    };
  });

function canonicalContainers(tasks: readonly string[], a: ContainerAssignment): Array<[string, string[]]> {
  const by = new Map<string, string[]>(a.ids.map((id) => [id, []]));
  tasks.forEach((t, i) => by.get(a.ids[a.containerOf[i]!]!)!.push(t));
  return [...by.keys()].sort(byCodeUnits).map((id) => [id, by.get(id)!.sort(byCodeUnits)]);
}

function checkContainers(c: ContainerCase, java: Answer<Array<[string, string[]]>>, where: string): void {
  let balancePath: string | undefined;
  const ours = answer(() => {
    if (c.grouper === 'count') {
      if (c.call === 'metadata') {
        const r = balanceByContainerCount(c.tasks, c.count, new Map(c.previousTaskToProcessor));
        balancePath = r.path;
        return canonicalContainers(c.tasks, r);
      }
      return canonicalContainers(c.tasks, groupByContainerCount(c.tasks, c.count));
    }
    if (c.call === 'tasks') return canonicalContainers(c.tasks, groupByContainerIds(c.tasks, null, c.count));
    if (c.call === 'ids') return canonicalContainers(c.tasks, groupByContainerIds(c.tasks, c.ids, c.count));
    return canonicalContainers(c.tasks, groupByContainerIdsWithLocality(c.tasks, new Map(c.processorLocality), new Map(c.taskLocality)));
  });
  if ('error' in java && java.error.type === 'NullPointerException' && c.grouper === 'count' && c.call === 'metadata') {
    // Documented difference: Samza's balance path dereferences a missing task when the previous
    // names differ from the current ones; we fall back to round-robin (docs/samza.md).
    expect(balancePath, where).toBe('plain');
    return;
  }
  if ('error' in java) {
    expect('error' in ours ? ours.error : ours.ok, where).toEqual({ type: java.error.type, message: java.error.message });
  } else {
    expect('ok' in ours ? ours.ok : ours.error, where).toEqual(java.ok);
  }
}

// ---------------------------------------------------------------- HashMap order cases

interface HashMapCase {
  kind: 'hashmap';
  keys: string[];
}

const hashMapCases: HashMapCase[] = [
  ...Array.from({ length: 120 }, (_, n) => ({ kind: 'hashmap' as const, keys: Array.from({ length: n + 1 }, (_, i) => String(i)) })),
  ...[500, 1000, 5000].map((n) => ({ kind: 'hashmap' as const, keys: Array.from({ length: n }, (_, i) => String(i)) })),
  ...fc.sample(fc.uniqueArray(fc.string({ maxLength: 6 }), { maxLength: 60 }), { seed: 7, numRuns: 40 }).map((keys) => ({ kind: 'hashmap' as const, keys })),
];

// ---------------------------------------------------------------- the run

const work = mkdtempSync(join(tmpdir(), 'samza-java-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function toJava(c: GroupCase | ContainerCase | HashMapCase): string {
  if (c.kind !== 'group') return JSON.stringify(c);
  const t = (list: SSP[]) => list.map(tuple);
  return JSON.stringify({ kind: 'group', config: c.config, ssps: t(c.ssps), previous: c.previous === null ? null : c.previous.map(([k, v]) => [k, t(v)]) });
}

describe('Samza itself (samza-core 1.8.0) agrees with assignor', () => {
  needs(
    'on a few hundred random SSP groupings, proxy runs, container groupings and HashMap orders, in one JVM',
    () => {
      const groups = fc.sample(groupCase, { seed: 20261201, numRuns: 300 });
      const containers = fc.sample(containerCase, { seed: 11, numRuns: 200 });
      const cases = [...groups, ...containers, ...hashMapCases];
      const source = fileURLToPath(new URL('./java/SamzaOracle.java', import.meta.url));
      const cp = compileJava('samza', [source], join(work, 'classes'));
      const out = runJava(cp, 'SamzaOracle', [], `${cases.map(toJava).join('\n')}\n`);
      const answers = out.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Answer<unknown>);
      expect(answers).toHaveLength(cases.length);
      const seen = new Map<string, number>();
      cases.forEach((c, i) => {
        const where = `case ${i}: ${toJava(c)}\njava: ${JSON.stringify(answers[i])}`;
        const a = answers[i]!;
        const kind = `${c.kind} ${'error' in a ? `error ${a.error.type}${a.error.cause ? `/${a.error.cause.type}` : ''}` : 'ok'}`;
        seen.set(kind, (seen.get(kind) ?? 0) + 1);
        if (c.kind === 'group') checkGroup(c, a as Answer<Canonical>, where);
        else if (c.kind === 'containers') checkContainers(c, a as Answer<Array<[string, string[]]>>, where);
        else expect(javaHashMapKeyOrder(c.keys), where).toEqual((a as { ok: string[] }).ok);
      });
      // The cases reach every outcome that matters, so a generator change cannot silently hollow this out.
      for (const k of ['group ok', 'group error SamzaException/IllegalArgumentException', 'group error SamzaException/NullPointerException', 'group error IllegalArgumentException', 'group error SamzaException', 'containers ok', 'containers error IllegalArgumentException', 'hashmap ok']) {
        expect(seen.get(k) ?? 0, `${k} in ${JSON.stringify([...seen])}`).toBeGreaterThan(0);
      }
    },
    180_000,
  );
});
