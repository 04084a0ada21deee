// The planner's GroupByPartition names kept as one byte column (partitionTaskNameColumn,
// withNames/taskNames in grouping.ts) must be exactly the strings the string path makes, and
// every reader of names (container grouper, changelog lookup, JobModel writer, store cycle) must
// answer from the bytes what it answers from strings.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AsciiColumn } from '../../src/columns/ascii-column.js';
import { ArrayTexts, type Texts } from '../../src/columns/texts.js';
import { partitionTaskName, partitionTaskNameColumn } from '../../src/samza/groupers.js';
import { groupFlat, groupRows, type FlatGroupInput } from '../../src/samza/flat-grouping.js';
import { namesAreBytes, taskNames, withNames } from '../../src/samza/grouping.js';
import { calculateJobModel, emptyPrevious } from '../../src/samza/plan.js';
import { jobModelJson, jobModelJsonBytes, toJobModel } from '../../src/samza/job-model.js';
import { config } from './helpers.js';
import { byCodeUnits } from '../../src/basics.js';

const EDGE = [0, 1, 9, 10, 99, 100, 999_999, 1_000_000, 2 ** 31 - 1];
const int = fc.oneof(fc.constantFrom(...EDGE), fc.integer({ min: 0, max: 2 ** 31 - 1 }));

/** A byte column of ASCII strings (as the store and the planner make them). */
function column(rows: readonly string[]): AsciiColumn {
  const off = new Int32Array(rows.length + 1);
  rows.forEach((r, i) => (off[i + 1] = off[i]! + r.length));
  return new AsciiColumn(Uint8Array.from(rows.join(''), (c) => c.charCodeAt(0)), off);
}

describe('task names as one byte column', () => {
  it('partitionTaskNameColumn gives partitionTaskName for any partition and key bucket', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(int, fc.oneof(fc.constant(-1), int)), { maxLength: 40 }), fc.boolean(), (pairs, withBuckets) => {
        const p = Int32Array.from(pairs, ([a]) => a);
        const b = withBuckets ? Int32Array.from(pairs, ([, x]) => x) : null;
        const names = partitionTaskNameColumn(p, b, pairs.length);
        const want = pairs.map(([a, x]) => partitionTaskName(a, withBuckets ? x : -1));
        expect(names.toArray()).toEqual(want);
        want.forEach((w, i) => {
          expect(names.at(i)).toBe(w);
          expect(names.is(i, w)).toBe(true);
          expect(names.lengthOf(i)).toBe(w.length);
        });
      }),
    );
  });

  it('equals and holdsAt agree with string comparison for bytes and strings on either side', () => {
    const ascii = fc.string({ maxLength: 6 }).map((s) => s.replace(/[^\x00-\x7f]/g, '?'));
    fc.assert(
      fc.property(fc.array(ascii, { minLength: 1, maxLength: 8 }), fc.array(ascii, { minLength: 1, maxLength: 8 }), fc.nat(), fc.nat(), fc.integer({ min: -1, max: 7 }), (xs, ys, i0, j0, at) => {
        const i = i0 % xs.length;
        const j = j0 % ys.length;
        const forms: [Texts, Texts][] = [
          [column(xs), column(ys)],
          [column(xs), new ArrayTexts(ys)],
          [new ArrayTexts(xs), column(ys)],
          [new ArrayTexts(xs), new ArrayTexts(ys)],
        ];
        for (const [a, b] of forms) {
          expect(a.equals(i, b, j)).toBe(xs[i] === ys[j]);
          expect(a.holdsAt(i, at, b, j)).toBe(at >= 0 && xs[i]!.startsWith(ys[j]!, at)); // hasAt's rule: `at` past the end stands at the end
        }
      }),
    );
  });

  it('GroupByPartition through the planner: byte names equal the string path, in Java order, strings made once', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 3 }), fc.constantFrom(1, 2, 3), (counts, factor) => {
        const input: FlatGroupInput = {
          grouper: 'GroupByPartition',
          elasticityFactor: factor,
          streams: counts.map((_, i) => ({ system: 'kafka', stream: `s${i}` })),
          counts,
          rules: counts.map(() => ({ kind: 'identity' as const })),
          broadcast: [],
          processors: ['0'],
        };
        const g = groupFlat(input);
        const strings = groupRows(input).tasks;
        expect(namesAreBytes(g)).toBe(true);
        const names = taskNames(g);
        expect(names).toBeInstanceOf(AsciiColumn);
        expect(Array.from({ length: names.length }, (_, i) => names.at(i))).toEqual(strings);
        expect([...strings].sort(byCodeUnits)).toEqual(strings);
        // `tasks` is made on first read, once; a copy of the grouping is read by its own tasks.
        expect(g.tasks).toEqual(strings);
        expect(g.tasks).toBe(g.tasks);
        const renamed = { ...g, tasks: g.tasks.map((t) => `${t}!`) };
        expect(namesAreBytes(renamed)).toBe(false);
        expect(taskNames(renamed).at(0)).toBe(`${strings[0]}!`);
      }),
    );
  });

  it('a plan\'s tasks behave as a plain array: assigned or changed in place, they are what every output writes', () => {
    const plan = () => calculateJobModel({ config: config({ 'task.inputs': 'kafka.A', 'job.container.count': '1' }), partitionCounts: new Map([['kafka.A', 2]]) }, emptyPrevious());
    const fields = ['streams', 'tasks', 'taskStart', 'order', 'stream', 'partition', 'bucket', 'everyTask'];
    const assigned = plan();
    expect(Object.keys(assigned.grouping)).toEqual(fields);
    assigned.grouping.tasks = ['X', 'Y'];
    expect(namesAreBytes(assigned.grouping)).toBe(false);
    expect(jobModelJson(assigned)).toContain('"taskName":"X"');
    expect(toJobModel(assigned).containers[0]!.tasks.map((t) => t.taskName)).toEqual(['X', 'Y']);
    const changed = plan();
    changed.grouping.tasks[0] = 'Renamed';
    expect(jobModelJson(changed)).toContain('"taskName":"Renamed"');
    expect(jobModelJson(changed)).not.toContain('"Partition 0"');
    // Serialized as the fields of a plain object, in the same order.
    const g = plan().grouping;
    expect(JSON.stringify(g)).toBe(JSON.stringify(Object.fromEntries(fields.map((f) => [f, (g as unknown as Record<string, unknown>)[f]]))));
    expect(JSON.parse(JSON.stringify(g)).tasks).toEqual(['Partition 0', 'Partition 1']);
  });

  it('the JobModel writer copies byte names as JSON.stringify writes them, and escapes the ones that need it', () => {
    const plan = calculateJobModel({ config: config({ 'task.inputs': 'kafka.A', 'job.container.count': '2' }), partitionCounts: new Map([['kafka.A', 6]]) }, emptyPrevious());
    expect(namesAreBytes(plan.grouping)).toBe(true);
    const fromObjects = JSON.stringify(toJobModel(plan).containers.map((c) => c.tasks.map((t) => t.taskName)));
    expect(fromObjects).toBe(JSON.stringify([['Partition 0', 'Partition 2', 'Partition 4'], ['Partition 1', 'Partition 3', 'Partition 5']]));
    // Byte names a store could hold: quotes, backslashes, control characters, DEL.
    const odd = ['a"b', 'c\\d', '\u0001', '\u007f', 'plain', 'x"'];
    const g = plan.grouping;
    const fields = { streams: g.streams, taskStart: g.taskStart, order: g.order, stream: g.stream, partition: g.partition, bucket: g.bucket, everyTask: g.everyTask };
    const bytesPlan = { ...plan, grouping: withNames(fields, column(odd)) };
    const stringsPlan = { ...plan, grouping: withNames(fields, odd) };
    const text = jobModelJson(stringsPlan);
    expect(text).toContain(JSON.stringify('a"b'));
    expect(Buffer.concat([...jobModelJsonBytes(bytesPlan, 7)]).toString('utf8')).toBe(text);
  });
});
