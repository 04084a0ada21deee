// JobModel calculation: both mapper modes end to end, changelog partitions, standby containers.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { calculateJobModel, emptyPrevious, type PreviousState } from '../../src/samza/plan.js';
import { toJobModel, jobModelJson, jobModelJsonBytes } from '../../src/samza/job-model.js';
import { assignChangelogPartitions, mergeChangelogMappings } from '../../src/samza/changelog.js';
import { taskSsps } from '../../src/samza/grouping.js';
import { ssp, type SSP } from '../../src/samza/model.js';
import { config, STATEFUL } from './helpers.js';
import { AssignorError } from '../../src/errors.js';

const job = (cfg: Record<string, string>, counts: Record<string, number>) => ({ config: config(cfg), partitionCounts: new Map(Object.entries(counts)) });

function tasksOf(plan: ReturnType<typeof calculateJobModel>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  plan.grouping.tasks.forEach((t, i) => (out[t] = taskSsps(plan.grouping, i).map((s) => `${s.stream}#${s.partition}${s.keyBucket === -1 ? '' : `/${s.keyBucket}`}`)));
  return out;
}

/** The previous state a plan leaves behind (what the store cycle would persist). */
function after(plan: ReturnType<typeof calculateJobModel>): PreviousState {
  const taskToSsps = new Map<string, SSP[]>();
  plan.grouping.tasks.forEach((t, i) => taskToSsps.set(t, taskSsps(plan.grouping, i)));
  const changelog = new Map(plan.grouping.tasks.map((t, i) => [t, plan.changelog[i]!] as [string, number]));
  const taskContainer = new Map(plan.grouping.tasks.map((t, i) => [t, plan.containers.ids[plan.containers.containerOf[i]!]!] as [string, string]));
  return { ...emptyPrevious(), baseCounts: plan.baseCounts, taskToSsps, changelog, taskContainer };
}

describe('changelog partitions', () => {
  it('a task keeps its partition; unseen tasks get max+1 in task-name order', () => {
    const existing = new Map([
      ['Partition 0', 1],
      ['Partition 1', 0],
    ]);
    expect([...assignChangelogPartitions(['Partition 0', 'Partition 1', 'Partition 2', 'Partition 3'], existing)]).toEqual([1, 0, 2, 3]);
    expect([...assignChangelogPartitions(['b', 'a'].sort(), new Map())]).toEqual([0, 1]);
  });

  it('the written mapping is the new one overlaid with the previous one (previous wins)', () => {
    const m = mergeChangelogMappings(new Map([['t', 5]]), new Map([['t', 0], ['u', 1]]));
    expect([...m]).toEqual([['t', 5], ['u', 1]]);
  });
});

describe('samza mapper mode end to end', () => {
  it('reproduces the worked example of spec §6 through the job model', () => {
    const first = calculateJobModel(job({ ...STATEFUL, 'task.inputs': 'kafka.PVE' }, { 'kafka.PVE': 4 }), emptyPrevious(), { mapper: 'samza' });
    const second = calculateJobModel(job({ ...STATEFUL, 'task.inputs': 'kafka.PVE' }, { 'kafka.PVE': 8 }), after(first), { mapper: 'samza' });
    expect(tasksOf(second)).toEqual({
      'Partition 0': ['PVE#0', 'PVE#4'],
      'Partition 1': ['PVE#1', 'PVE#5'],
      'Partition 2': ['PVE#2', 'PVE#6'],
      'Partition 3': ['PVE#3', 'PVE#7'],
    });
    expect([...second.changelog]).toEqual([0, 1, 2, 3]);
  });

  it('fails 4 -> 8 -> 12 at the second step', () => {
    const c = { ...STATEFUL, 'task.inputs': 'kafka.A' };
    const s1 = calculateJobModel(job(c, { 'kafka.A': 4 }), emptyPrevious(), { mapper: 'samza' });
    const s2 = calculateJobModel(job(c, { 'kafka.A': 8 }), after(s1), { mapper: 'samza' });
    expect(() => calculateJobModel(job(c, { 'kafka.A': 12 }), after(s2), { mapper: 'samza' })).toThrow(/SSPGroupProxy/);
  });

  it('with expansion disabled groups raw', () => {
    const c = { ...STATEFUL, 'task.inputs': 'kafka.A', 'job.systemstreampartition.input.expansion.enabled': 'false' };
    const s1 = calculateJobModel(job(c, { 'kafka.A': 4 }), emptyPrevious(), { mapper: 'samza' });
    expect(calculateJobModel(job(c, { 'kafka.A': 8 }), after(s1), { mapper: 'samza' }).grouping.tasks).toHaveLength(8);
  });
});

describe('base mapper mode (default)', () => {
  const c = { ...STATEFUL, 'task.inputs': 'kafka.A' };

  it('records the base on the first plan and folds every multiple onto it: 4 -> 8 -> 12 -> 8 keeps 4 tasks', () => {
    let prev = after(calculateJobModel(job(c, { 'kafka.A': 4 }), emptyPrevious()));
    expect(prev.baseCounts.get('kafka.A')).toBe(4);
    for (const n of [8, 12, 8, 4]) {
      const p = calculateJobModel(job(c, { 'kafka.A': n }), prev);
      expect(p.grouping.tasks).toEqual(['Partition 0', 'Partition 1', 'Partition 2', 'Partition 3']);
      const t = tasksOf(p);
      for (let q = 0; q < n; q++) expect(t[`Partition ${q % 4}`]).toContain(`A#${q}`);
      expect(p.streams[0]!.handling).toBe(n === 4 ? 'unchanged' : 'folded');
      prev = after(p);
    }
  });

  it('refuses a non-multiple with the share of keys that would move and the nearest safe counts', () => {
    const prev = after(calculateJobModel(job(c, { 'kafka.A': 4 }), emptyPrevious()));
    try {
      calculateJobModel(job(c, { 'kafka.A': 6 }), prev);
      expect.unreachable();
    } catch (e) {
      expect((e as AssignorError).code).toBe('E_KEY_MOVEMENT');
      expect((e as Error).message).toBe(
        'cannot change kafka.A from base 4 to 6 partitions without moving keys: 1/2 of keys (50%) would change task (1 - gcd(4, 6)/4); partition counts that keep every key: 4 or 8. Set allowKeyMovement (--allow-key-movement) to accept the movement',
      );
    }
    expect(() => calculateJobModel(job(c, { 'kafka.A': 3 }), prev)).toThrow('3/4 of keys (75%) would change task (1 - gcd(4, 3)/4); partition counts that keep every key: 4.');
  });

  it('allowKeyMovement assigns each partition to a task that owns some of its keys, balanced, and reports the share', () => {
    const prev = after(calculateJobModel(job(c, { 'kafka.A': 4 }), emptyPrevious()));
    const p = calculateJobModel(job(c, { 'kafka.A': 6 }), prev, { allowKeyMovement: true });
    expect(p.streams[0]!.handling).toBe('key-movement');
    expect(p.streams[0]!.movedShare).toBe(0.5);
    const t = tasksOf(p);
    expect(Object.keys(t)).toHaveLength(4);
    // gcd(4,6) = 2: partition q may only go to tasks t ≡ q (mod 2).
    for (const [task, list] of Object.entries(t)) for (const s of list) expect(Number(s.split('#')[1]) % 2).toBe(Number(task.split(' ')[1]) % 2);
  });

  it('keeps elasticity key buckets through an expansion (Samza silently does nothing)', () => {
    const e = { ...c, 'job.elasticity.factor': '2' };
    const prev = after(calculateJobModel(job(e, { 'kafka.A': 2 }), emptyPrevious()));
    const p = calculateJobModel(job(e, { 'kafka.A': 4 }), prev);
    expect(tasksOf(p)).toEqual({
      'Partition 0 0': ['A#0/0', 'A#2/0'],
      'Partition 0 1': ['A#0/1', 'A#2/1'],
      'Partition 1 0': ['A#1/0', 'A#3/0'],
      'Partition 1 1': ['A#1/1', 'A#3/1'],
    });
  });

  it('stateless jobs and disabled expansion group as is and rebase', () => {
    const prev = after(calculateJobModel(job({ 'task.inputs': 'kafka.A' }, { 'kafka.A': 4 }), emptyPrevious()));
    const p = calculateJobModel(job({ 'task.inputs': 'kafka.A' }, { 'kafka.A': 8 }), prev);
    expect(p.grouping.tasks).toHaveLength(8);
    expect(p.baseCounts.get('kafka.A')).toBe(8);
  });

  it('folds GroupBySystemStreamPartition tasks onto the base SSP\'s task', () => {
    const g = { ...c, 'job.systemstreampartition.grouper.factory': 'org.apache.samza.container.grouper.stream.GroupBySystemStreamPartitionFactory' };
    const prev = after(calculateJobModel(job(g, { 'kafka.A': 2 }), emptyPrevious()));
    expect(tasksOf(calculateJobModel(job(g, { 'kafka.A': 4 }), prev))).toEqual({
      'SystemStreamPartition [kafka, A, 0]': ['A#0', 'A#2'],
      'SystemStreamPartition [kafka, A, 1]': ['A#1', 'A#3'],
    });
  });

  it('infers the base from a store written by Samza (no base record): 4 -> 8 done by Samza, then 12 folds onto 4', () => {
    const s1 = calculateJobModel(job(c, { 'kafka.A': 4 }), emptyPrevious(), { mapper: 'samza' });
    const s2 = calculateJobModel(job(c, { 'kafka.A': 8 }), after(s1), { mapper: 'samza' });
    const prev = { ...after(s2), baseCounts: new Map<string, number>() };
    const p = calculateJobModel(job(c, { 'kafka.A': 12 }), prev);
    expect(p.streams[0]!.base).toBe(4);
    expect(p.grouping.tasks).toHaveLength(4);
  });

  it('broadcast inputs join every task and are never folded', () => {
    const b = { ...c, 'task.inputs': 'kafka.A,kafka.B', 'task.broadcast.inputs': 'kafka.B#0' };
    const p = calculateJobModel(job(b, { 'kafka.A': 2, 'kafka.B': 1 }), emptyPrevious());
    expect(tasksOf(p)).toEqual({ 'Partition 0': ['A#0', 'B#0'], 'Partition 1': ['A#1', 'B#0'] });
  });

  it('names the stream whose partition count is missing', () => {
    expect(() => calculateJobModel(job(c, {}), emptyPrevious())).toThrow('no partition count for input stream kafka.A');
  });

  it('AllSspToSingleTask gives each container a task with all SSPs', () => {
    const a = { ...c, 'job.systemstreampartition.grouper.factory': 'org.apache.samza.container.grouper.stream.AllSspToSingleTaskGrouperFactory', 'job.container.count': '2' };
    expect(tasksOf(calculateJobModel(job(a, { 'kafka.A': 2 }), emptyPrevious()))).toEqual({ 'Task-0': ['A#0', 'A#1'], 'Task-1': ['A#0', 'A#1'] });
  });
});

describe('standby containers', () => {
  it('for replication factor R add containers <id>-<r> with Standby-<task>-<r> copies (same SSPs and changelog partition)', () => {
    const p = calculateJobModel(
      job({ 'task.inputs': 'kafka.A', 'job.container.count': '2', 'job.standbytasks.replication.factor': '3' }, { 'kafka.A': 2 }),
      emptyPrevious(),
    );
    const m = toJobModel(p);
    expect(m.containers.map((c) => c.id)).toEqual(['0', '1', '0-0', '0-1', '1-0', '1-1']);
    const sb = m.containers.find((c) => c.id === '1-1')!;
    expect(sb.tasks).toEqual([{ taskName: 'Standby-Partition 1-1', ssps: [ssp('kafka', 'A', 1)], changelogPartition: 1, mode: 'Standby' }]);
    expect(m.maxChangeLogStreamPartitions).toBe(2);
  });
});

describe('JobModel JSON', () => {
  it('is valid JSON in container -> task -> SSP form, with user strings such as __proto__ kept as data', () => {
    const p = calculateJobModel(job({ 'task.inputs': 'kafka.__proto__' }, { 'kafka.__proto__': 2 }), emptyPrevious());
    const j = JSON.parse(jobModelJson(p));
    expect(j.containers[0].tasks[1]).toEqual({ taskName: 'Partition 1', mode: 'Active', changelogPartition: 1, ssps: [{ system: 'kafka', stream: '__proto__', partition: 1 }] });
    expect(j.maxChangeLogStreamPartitions).toBe(2);
  });
});

/** The JobModel JSON built the obvious way, from toJobModel's objects and JSON.stringify (the reference for the byte writer). */
function referenceJson(plan: ReturnType<typeof calculateJobModel>): string {
  const q = JSON.stringify;
  const config = [...plan.config.map.keys()].sort().map((k) => `${q(k)}:${q(plan.config.map.get(k))}`).join(',');
  const streams = plan.streams.map((s) => q({ stream: s.name, partitions: s.partitions, basePartitions: s.base })).join(',');
  const containers = toJobModel(plan).containers.map((c) => {
    const tasks = c.tasks.map((t) =>
      q({ taskName: t.taskName, mode: t.mode, changelogPartition: t.changelogPartition, ssps: t.ssps.map((x) => (x.keyBucket === -1 ? { system: x.system, stream: x.stream, partition: x.partition } : x)) }),
    );
    return `{"id":${q(c.id)},"tasks":[${tasks.join(',')}]}`;
  });
  return `{"config":{${config}},"mapper":${q(plan.mapper)},"maxChangeLogStreamPartitions":${plan.maxChangeLogStreamPartitions},"streams":[${streams}],"containers":[${containers.join(',')}]}\n`;
}

describe('JobModel JSON bytes', () => {
  it('equal the JSON built from the object model, for any stream names, buckets, standbys and piece size', () => {
    // Stream names with quotes, backslashes, control characters, non-ASCII and lone surrogates land in task names (GroupBySystemStreamPartition).
    const name = fc.oneof(
      fc.constantFrom('a', 'b"q', 'c\\d', 'tab\t', 'é', '\u{1F600}', '\uD800x', 'x\uDC00', '__proto__'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }).filter((s) => !/[,.#\[\]\s]/.test(s)),
    );
    const arb = fc.record({
      inputs: fc.uniqueArray(name, { minLength: 1, maxLength: 3 }),
      count: fc.integer({ min: 1, max: 12 }),
      factor: fc.constantFrom(1, 2, 3),
      standby: fc.constantFrom(1, 2),
      grouper: fc.constantFrom('GroupByPartitionFactory', 'GroupBySystemStreamPartitionFactory'),
      piece: fc.integer({ min: 1, max: 300 }),
    });
    fc.assert(
      fc.property(arb, ({ inputs, count, factor, standby, grouper, piece }) => {
        const cfg = {
          'task.inputs': inputs.map((n) => `kafka.${n}`).join(','),
          'job.elasticity.factor': String(factor),
          'job.systemstreampartition.grouper.factory': grouper,
          'job.standbytasks.replication.factor': String(standby),
          'job.container.count': '2',
          ...(standby > 1 ? STATEFUL : {}),
        };
        let plan;
        try {
          plan = calculateJobModel(job(cfg, Object.fromEntries(inputs.map((n) => [`kafka.${n}`, count]))), emptyPrevious());
        } catch (e) {
          if (e instanceof AssignorError) return; // a name or setting the config refuses
          throw e;
        }
        const expected = referenceJson(plan);
        expect(jobModelJson(plan)).toBe(expected);
        const pieces = [...jobModelJsonBytes(plan, piece)];
        expect(Buffer.concat(pieces).toString('utf8')).toBe(expected);
        expect(Buffer.concat(pieces).equals(Buffer.from(expected, 'utf8'))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('JobModel JSON bytes: the writer\'s other paths', () => {
  // Grouper task names are always wrapped ("Partition ..", "SystemStreamPartition [..]"), so the
  // writer's name path is driven here with any strings, as a previous store could hold them.
  it('writes any task name and container id as JSON.stringify does, standby copies included', () => {
    const text = fc.oneof(
      fc.constantFrom('', 'a', '"', '\\', '\u0000', '\u007f', '\u0080', 'é', '\u2028', '\u{1F600}', '\uD800', '\uDC00', 'x\uDBFF', '\uDFFFx', '__proto__'),
      fc.string({ unit: 'binary', maxLength: 6 }),
    );
    const arb = fc.record({ standby: fc.constantFrom(1, 2, 3), names: fc.array(text, { minLength: 4, maxLength: 4 }), ids: fc.uniqueArray(text, { minLength: 2, maxLength: 2 }), piece: fc.integer({ min: 1, max: 200 }) });
    fc.assert(
      fc.property(arb, ({ standby, names, ids, piece }) => {
        const base = calculateJobModel(
          job({ ...STATEFUL, 'task.inputs': 'kafka.A', 'job.container.count': '2', 'job.standbytasks.replication.factor': String(standby) }, { 'kafka.A': 4 }),
          emptyPrevious(),
        );
        const plan = { ...base, grouping: { ...base.grouping, tasks: names }, containers: { ...base.containers, ids } };
        const expected = referenceJson(plan);
        expect(jobModelJson(plan)).toBe(expected);
        expect(Buffer.concat([...jobModelJsonBytes(plan, piece)]).equals(Buffer.from(expected, 'utf8'))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('equal the JSON built from the object model with broadcast inputs, key buckets and standbys', () => {
    const streamName = fc.constantFrom('a', 'b', 'c', 'é"');
    const arb = fc.record({
      inputs: fc.uniqueArray(streamName, { minLength: 1, maxLength: 3 }),
      counts: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 3, maxLength: 3 }),
      broadcast: fc.array(fc.tuple(streamName, fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 3 }),
      factor: fc.constantFrom(1, 2, 3),
      standby: fc.constantFrom(1, 2),
      grouper: fc.constantFrom('GroupByPartitionFactory', 'GroupBySystemStreamPartitionFactory'),
      piece: fc.integer({ min: 1, max: 300 }),
    });
    fc.assert(
      fc.property(arb, ({ inputs, counts, broadcast, factor, standby, grouper, piece }) => {
        const cfg = {
          ...STATEFUL,
          'task.inputs': inputs.map((n) => `kafka.${n}`).join(','),
          'task.broadcast.inputs': broadcast.map(([n, a, len]) => `kafka.${n}#[${a}-${a + len}]`).join(','),
          'job.elasticity.factor': String(factor),
          'job.systemstreampartition.grouper.factory': grouper,
          'job.standbytasks.replication.factor': String(standby),
          'job.container.count': '2',
        };
        let plan;
        try {
          plan = calculateJobModel(job(cfg, Object.fromEntries(inputs.map((n, i) => [`kafka.${n}`, counts[i]!]))), emptyPrevious());
        } catch (e) {
          if (e instanceof AssignorError) return; // every input partition broadcast, or a setting the config refuses
          throw e;
        }
        const expected = referenceJson(plan);
        expect(jobModelJson(plan)).toBe(expected);
        expect(Buffer.concat([...jobModelJsonBytes(plan, piece)]).equals(Buffer.from(expected, 'utf8'))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('writes a task bigger than a piece (AllSspToSingleTask, 3,000 SSPs a task) at any piece size', () => {
    const cfg = {
      'task.inputs': 'kafka.A,kafka.B,kafka.C',
      'job.systemstreampartition.grouper.factory': 'org.apache.samza.container.grouper.stream.AllSspToSingleTaskGrouperFactory',
      'job.container.count': '2',
    };
    const plan = calculateJobModel(job(cfg, { 'kafka.A': 1000, 'kafka.B': 1000, 'kafka.C': 1000 }), emptyPrevious());
    expect(taskSsps(plan.grouping, 0)).toHaveLength(3000);
    const expected = Buffer.from(referenceJson(plan), 'utf8');
    for (const piece of [1, 1000, 1 << 16, 1 << 20]) {
      const pieces = [...jobModelJsonBytes(plan, piece)];
      expect(Buffer.concat(pieces).equals(expected)).toBe(true);
      // Every piece but the last reaches the piece size (a task is never split across pieces).
      for (const b of pieces.slice(0, -1)) expect(b.length).toBeGreaterThanOrEqual(Math.min(piece, expected.length));
    }
  });

  it('writes partitions, buckets and changelog partitions up to 2^31-1 in decimal', () => {
    const base = calculateJobModel(job({ ...STATEFUL, 'task.inputs': 'kafka.A', 'job.elasticity.factor': '2' }, { 'kafka.A': 3 }), emptyPrevious());
    const g = base.grouping;
    const values = [0, 9, 10, 99, 100, 999, 1000, 12345, 99999, 100000, 999999, 1e6, 1e7 - 1, 1e8, 1e9 - 1, 1e9, 2 ** 31 - 1];
    for (let i = 0; i + 2 < values.length; i += 3) {
      const plan = {
        ...base,
        grouping: { ...g, partition: g.partition.map((_, k) => values[(i + k) % values.length]!), bucket: g.bucket === null ? null : g.bucket.map((_, k) => values[(i + k + 1) % values.length]!) },
        changelog: base.changelog.map((_, k) => values[(i + k + 2) % values.length]!),
      };
      expect(jobModelJson(plan)).toBe(referenceJson(plan));
    }
  });
});

describe('JobModel JSON with broadcast inputs', () => {
  it('lists each task\'s SSPs exactly as the object model does (rows merged with every-task SSPs in SSP order)', () => {
    const streamName = fc.constantFrom('a', 'b', 'c', 'd', 'e');
    const arb = fc.record({
      inputs: fc.uniqueArray(streamName, { minLength: 1, maxLength: 3 }),
      counts: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 3, maxLength: 3 }),
      broadcast: fc.array(fc.tuple(streamName, fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 3 }),
      factor: fc.constantFrom(1, 2),
      grouper: fc.constantFrom('GroupByPartitionFactory', 'GroupBySystemStreamPartitionFactory'),
    });
    fc.assert(
      fc.property(arb, ({ inputs, counts, broadcast, factor, grouper }) => {
        const counted = Object.fromEntries(inputs.map((n, i) => [`kafka.${n}`, counts[i]!]));
        const cfg = {
          'task.inputs': inputs.map((n) => `kafka.${n}`).join(','),
          'task.broadcast.inputs': broadcast.map(([n, a, len]) => `kafka.${n}#[${a}-${a + len}]`).join(','),
          'job.elasticity.factor': String(factor),
          'job.systemstreampartition.grouper.factory': grouper,
        };
        let plan;
        try {
          plan = calculateJobModel(job(cfg, counted), emptyPrevious());
        } catch (e) {
          // Every input partition may be broadcast: no task is left (Samza's error).
          expect((e as AssignorError).code).toBe('E_SAMZA_NO_TASKS');
          return;
        }
        const fromJson = (JSON.parse(jobModelJson(plan)) as { containers: { tasks: { taskName: string; ssps: unknown[] }[] }[] }).containers.flatMap((c) => c.tasks);
        const fromObjects = toJobModel(plan).containers.flatMap((c) => c.tasks);
        expect(fromJson.map((t) => t.taskName)).toEqual(fromObjects.map((t) => t.taskName));
        fromObjects.forEach((t, i) => {
          expect(fromJson[i]!.ssps).toEqual(t.ssps.map((x) => (x.keyBucket === -1 ? { system: x.system, stream: x.stream, partition: x.partition } : { ...x })));
        });
      }),
      { numRuns: 200 },
    );
  });
});

describe('SEP-5 grouper names', () => {
  it('GroupByPartitionWithFixedTaskNum keeps the task set of a stateless job under the base mapper', () => {
    const c = { 'task.inputs': 'kafka.A', 'job.systemstreampartition.grouper.factory': 'org.apache.samza.container.grouper.stream.GroupByPartitionWithFixedTaskNumFactory' };
    const prev = after(calculateJobModel(job(c, { 'kafka.A': 3 }), emptyPrevious()));
    const p = calculateJobModel(job(c, { 'kafka.A': 6 }), prev);
    expect(p.grouping.tasks).toEqual(['Partition 0', 'Partition 1', 'Partition 2']);
    expect(p.streams[0]!.handling).toBe('folded');
  });
});
