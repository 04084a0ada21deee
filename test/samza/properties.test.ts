// Properties of the planner on random inputs (fast-check).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calculateJobModel, emptyPrevious } from '../../src/samza/plan.js';
import { jobModelJson } from '../../src/samza/job-model.js';
import { taskSsps } from '../../src/samza/grouping.js';
import { fromTaskGrouping, toTaskGrouping } from '../support/groupings.js';
import { groupFlat } from '../../src/samza/flat-grouping.js';
import { createSspGrouper } from '../../src/samza/groupers.js';
import { SamzaConfig, readSettings } from '../../src/samza/config.js';
import { ssp, sspId, type SSP } from '../../src/samza/model.js';
import { partitionsForKeys } from '../../src/hashing/index.js';
import { after, STATEFUL } from './helpers.js';

const GROUPERS = {
  GroupByPartition: 'org.apache.samza.container.grouper.stream.GroupByPartitionFactory',
  GroupBySystemStreamPartition: 'org.apache.samza.container.grouper.stream.GroupBySystemStreamPartitionFactory',
} as const;

// Stream names from a small alphabet plus awkward ones (dots, __proto__, non-BMP).
const streamName = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', 'Z', '.', '-', '_'), minLength: 1, maxLength: 4 }),
  fc.constantFrom('__proto__', 'constructor', 'x\u{1F600}', 'ü'),
);
const streamSet = fc.uniqueArray(streamName, { minLength: 1, maxLength: 4 });

function job(cfg: Record<string, string>, counts: [string, number][]) {
  return { config: new SamzaConfig(Object.entries(cfg)), partitionCounts: new Map(counts) };
}

/** task owning (stream, partition, bucket) in a plan. */
function owners(plan: ReturnType<typeof calculateJobModel>): Map<string, string> {
  const m = new Map<string, string>();
  plan.grouping.tasks.forEach((t, i) => {
    for (const s of taskSsps(plan.grouping, i)) {
      const id = sspId(s);
      expect(m.has(id), `${id} is in two tasks`).toBe(false);
      m.set(id, t);
    }
  });
  return m;
}

describe('base mapper: every key stays on its task through expansions by multiples of the base', () => {
  it('for random streams, base counts, multiples and keys (Kafka hasher)', () => {
    fc.assert(
      fc.property(
        streamSet,
        fc.constantFrom<keyof typeof GROUPERS>('GroupByPartition', 'GroupBySystemStreamPartition'),
        fc.integer({ min: 1, max: 2 }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 12 }), fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 3 })), { minLength: 4, maxLength: 4 }),
        fc.array(fc.string({ maxLength: 12 }), { minLength: 1, maxLength: 60 }),
        (names, grouper, factor, shapes, keys) => {
          const streams = names.map((n, i) => ({ name: `kafka.${n}`, base: shapes[i]![0], steps: shapes[i]![1] }));
          const cfg = { ...STATEFUL, 'task.inputs': streams.map((s) => s.name).join(','), 'job.systemstreampartition.grouper.factory': GROUPERS[grouper], 'job.elasticity.factor': String(factor) };
          let plan = calculateJobModel(job(cfg, streams.map((s) => [s.name, s.base])), emptyPrevious());
          const original = owners(plan);
          const maxSteps = Math.max(...streams.map((s) => s.steps.length));
          for (let step = 0; step < maxSteps; step++) {
            const counts = streams.map((s) => s.base * (s.steps[Math.min(step, s.steps.length - 1)] ?? 1));
            plan = calculateJobModel(job(cfg, streams.map((s, i) => [s.name, counts[i]!])), after(plan));
            const now = owners(plan);
            streams.forEach((s, i) => {
              const stream = s.name.slice('kafka.'.length);
              const before = partitionsForKeys(keys, s.base);
              const nowP = partitionsForKeys(keys, counts[i]!);
              keys.forEach((_, k) => {
                for (let b = factor === 1 ? -1 : 0; b < (factor === 1 ? 0 : factor); b++) {
                  expect(now.get(sspId(ssp('kafka', stream, nowP[k]!, b)))).toBe(original.get(sspId(ssp('kafka', stream, before[k]!, b))));
                }
              });
            });
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('every input partition is in exactly one task (broadcast aside)', () => {
  it('in both mapper modes, any grouper, any elasticity factor', () => {
    fc.assert(
      fc.property(
        streamSet,
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 4, maxLength: 4 }),
        fc.constantFrom<keyof typeof GROUPERS>('GroupByPartition', 'GroupBySystemStreamPartition'),
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom<'base' | 'samza'>('base', 'samza'),
        fc.boolean(),
        (names, counts, grouper, factor, mapper, withBroadcast) => {
          const inputs = names.map((n) => `kafka.${n}`);
          const cfg: Record<string, string> = { 'task.inputs': inputs.join(','), 'job.systemstreampartition.grouper.factory': GROUPERS[grouper], 'job.elasticity.factor': String(factor) };
          if (withBroadcast) cfg['task.broadcast.inputs'] = `${inputs[0]}#0`;
          const build = () => calculateJobModel(job(cfg, inputs.map((n, i) => [n, counts[i]!])), emptyPrevious(), { mapper });
          if (withBroadcast && inputs.length === 1 && counts[0] === 1) {
            // The only input SSP is broadcast: no task exists for broadcast SSPs alone.
            expect(build).toThrow('No tasks found');
            return;
          }
          const plan = build();
          const seen = new Map<string, number>();
          plan.grouping.tasks.forEach((_, t) => {
            for (const s of taskSsps(plan.grouping, t)) seen.set(sspId(s), (seen.get(sspId(s)) ?? 0) + 1);
          });
          const tasks = plan.grouping.tasks.length;
          inputs.forEach((n, i) => {
            const stream = n.slice('kafka.'.length);
            for (let p = 0; p < counts[i]!; p++) {
              if (withBroadcast && i === 0 && p === 0) {
                expect(seen.get(sspId(ssp('kafka', stream, 0)))).toBe(tasks);
                continue;
              }
              for (let b = factor === 1 ? -1 : 0; b < (factor === 1 ? 0 : factor); b++) expect(seen.get(sspId(ssp('kafka', stream, p, b)))).toBe(1);
            }
          });
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('the output does not depend on input order', () => {
  it('shuffled task.inputs, partition-count entries and previous-state maps give the same JobModel', () => {
    fc.assert(
      fc.property(
        streamSet,
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 4, maxLength: 4 }),
        fc.constantFrom<'base' | 'samza'>('base', 'samza'),
        fc.integer({ min: 1, max: 3 }),
        fc.context(),
        (names, counts, mapper, containers, ctx) => {
          const inputs = names.map((n) => `kafka.${n}`);
          const totalTasks = Math.max(...counts.slice(0, inputs.length));
          const cfg = (order: string[]) => ({ ...STATEFUL, 'task.inputs': order.join(', '), 'job.container.count': String(Math.min(containers, totalTasks)) });
          const pairs = inputs.map((n, i) => [n, counts[i]!] as [string, number]);
          const first = calculateJobModel(job(cfg(inputs), pairs), emptyPrevious(), { mapper });
          const prev = after(first);
          const doubled = pairs.map(([n, c]) => [n, c * 2] as [string, number]);
          const a = jobModelJson(calculateJobModel(job(cfg(inputs), doubled), prev, { mapper }));
          const rev = <T,>(m: ReadonlyMap<string, T>) => new Map([...m].reverse());
          const prevRev = { ...prev, taskToSsps: new Map([...prev.taskToSsps].reverse().map(([t, l]) => [t, [...l].reverse()] as [string, SSP[]])), changelog: rev(prev.changelog), taskContainer: rev(prev.taskContainer), baseCounts: rev(prev.baseCounts) };
          const b = jobModelJson(calculateJobModel(job(cfg([...inputs].reverse()), [...doubled].reverse()), prevRev, { mapper }));
          ctx.log(a);
          // The echoed config differs (task.inputs is written in another order); the model must not.
          const model = (j: string) => ({ ...JSON.parse(j), config: undefined });
          expect(model(b)).toEqual(model(a));
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe('the flat grouping equals Samza\'s object groupers', () => {
  it('for random streams, counts, broadcast SSPs and elasticity', () => {
    fc.assert(
      fc.property(
        streamSet,
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 4, maxLength: 4 }),
        fc.constantFrom<keyof typeof GROUPERS>('GroupByPartition', 'GroupBySystemStreamPartition'),
        fc.integer({ min: 1, max: 3 }),
        fc.option(fc.tuple(fc.nat(3), fc.nat(8), fc.nat(3)), { nil: undefined }),
        (names, counts, grouper, factor, bc) => {
          const inputs = names.map((n) => `kafka.${n}`);
          const cfgMap: Record<string, string> = { 'task.inputs': inputs.join(','), 'job.systemstreampartition.grouper.factory': GROUPERS[grouper], 'job.elasticity.factor': String(factor) };
          if (bc !== undefined) cfgMap['task.broadcast.inputs'] = `${inputs[bc[0] % inputs.length]}#[${bc[1]}-${bc[1] + bc[2]}]`;
          const config = new SamzaConfig(Object.entries(cfgMap));
          const settings = readSettings(config);
          const c = settings.inputs.map((s) => counts[inputs.indexOf(`${s.system}.${s.stream}`)]!);
          const flat = groupFlat({ grouper: settings.grouper, elasticityFactor: factor, streams: settings.inputs, counts: c, rules: c.map(() => ({ kind: 'identity' as const })), broadcast: settings.broadcast, processors: ['0'] });
          const all: SSP[] = [];
          settings.inputs.forEach((s, i) => {
            for (let p = 0; p < c[i]!; p++) all.push(ssp(s.system, s.stream, p));
          });
          const objects = fromTaskGrouping(createSspGrouper(config).group(all));
          const view = (g: ReturnType<typeof toTaskGrouping>) => [...g].map(([t, set]) => [t, set.sorted().map(sspId)]);
          expect(view(toTaskGrouping(flat))).toEqual(view(toTaskGrouping(objects)));
        },
      ),
      { numRuns: 150 },
    );
  });
});
