// Java library behaviour Samza's results depend on (checked against the JVM in samza-java.test.ts).
import { describe, expect, it } from 'vitest';
import { decimalStringOrder, javaHashMapKeyOrder, javaSplit } from '../../src/samza/java-order.js';
import { javaStringHash } from '../../src/basics.js';
import { calculateJobModel } from '../../src/samza/plan.js';
import { createSspGrouper } from '../../src/samza/groupers.js';
import { SamzaError } from '../../src/samza/errors.js';
import { ssp } from '../../src/samza/model.js';
import { config } from './helpers.js';

describe('Java String.split', () => {
  it('drops trailing empty strings but keeps leading and inner ones', () => {
    expect(javaSplit('0,1,', ',')).toEqual(['0', '1']);
    expect(javaSplit('1,0,,', ',')).toEqual(['1', '0']);
    expect(javaSplit(',0', ',')).toEqual(['', '0']);
    expect(javaSplit('a,,b', ',')).toEqual(['a', '', 'b']);
    expect(javaSplit(',', ',')).toEqual([]);
    expect(javaSplit('', ',')).toEqual(['']);
  });
});

describe('java.util.HashMap key order', () => {
  it('String.hashCode over UTF-16 code units, wrapping at 32 bits', () => {
    expect(javaStringHash('')).toBe(0);
    expect(javaStringHash('10')).toBe(1567);
    // Values printed by java.lang.String.hashCode (JDK 17).
    expect(javaStringHash('Partition 0')).toBe(-1373000614);
    expect(javaStringHash('\u{1F600}x')).toBe(54959989);
  });

  it('container ids 0..11: 11 shares a bucket with 0 and follows it', () => {
    expect(javaHashMapKeyOrder(Array.from({ length: 12 }, (_, i) => String(i)))).toEqual(['0', '11', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
  });

  it('GroupByContainerIds in a plan deals the name-sorted tasks out in that order (12 containers)', () => {
    const plan = calculateJobModel({
      config: config({ 'task.inputs': 'kafka.A', 'job.container.count': '12', 'task.name.grouper.factory': 'org.apache.samza.container.grouper.task.GroupByContainerIdsFactory' }),
      partitionCounts: new Map([['kafka.A', 12]]),
    });
    const containerOf = (t: string) => plan.containers.ids[plan.containers.containerOf[plan.grouping.tasks.indexOf(t)]!];
    // Tasks sorted: Partition 0, Partition 1, Partition 10, Partition 11, Partition 2, ...
    expect(containerOf('Partition 0')).toBe('0');
    expect(containerOf('Partition 1')).toBe('11');
    expect(containerOf('Partition 10')).toBe('1');
    expect(plan.containers.ids).toEqual(['0', '11', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
  });
});

describe('AllSspToSingleTaskGrouperFactory reads processor.list as Samza does', () => {
  const cfg = (list?: string) => config({ 'job.systemstreampartition.grouper.factory': 'AllSspToSingleTaskGrouperFactory', ...(list === undefined ? {} : { 'processor.list': list }) });

  it('trailing commas add no processor', () => {
    expect([...createSspGrouper(cfg('0,1,')).group([ssp('kafka', 'A', 0)]).keys()].sort()).toEqual(['Task-0', 'Task-1']);
  });

  it('a list that splits to nothing is refused with Samza\'s text, a missing one as the NullPointerException it is in Samza', () => {
    expect(() => createSspGrouper(cfg(','))).toThrow('processor list cannot be empty!');
    try {
      createSspGrouper(cfg());
      expect.unreachable();
    } catch (e) {
      expect((e as SamzaError).samzaType).toBe('NullPointerException');
      expect((e as SamzaError).path).toBe('processor.list');
    }
  });
});

describe('GroupByPartition with elasticity off', () => {
  it('gives every SSP key bucket -1, whatever it had', () => {
    const g = createSspGrouper(config({})).group([ssp('kafka', 'A', 0, 1), ssp('kafka', 'A', 0, 0)]);
    expect([...g.get('Partition 0')!]).toEqual([ssp('kafka', 'A', 0)]);
  });
});

describe('decimalStringOrder (Java order of "Partition <p>" names without strings)', () => {
  it('equals sorting the decimal strings, for every n up to 1,500 and around powers of ten', () => {
    const bySort = (n: number): number[] => Array.from({ length: n }, (_, i) => i).sort((a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
    for (let n = 0; n <= 1500; n++) expect(Array.from(decimalStringOrder(n)), `n = ${n}`).toEqual(bySort(n));
    for (const n of [9_999, 10_000, 10_001, 123_457]) expect(Array.from(decimalStringOrder(n)), `n = ${n}`).toEqual(bySort(n));
  });

  it('GroupByPartition names come out in Java order, with and without key buckets', () => {
    for (const [partitions, factor] of [[1, 1], [12, 1], [105, 1], [11, 3], [21, 12]] as const) {
      const m = calculateJobModel(
        { config: config({ 'task.inputs': 'kafka.a,kafka.b', 'job.elasticity.factor': String(factor), 'job.container.count': '1' }), partitionCounts: { 'kafka.a': partitions, 'kafka.b': Math.max(1, partitions - 3) } },
        undefined,
      );
      const names = m.grouping.tasks;
      expect(names.length).toBe(partitions * factor);
      expect([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(names);
      expect(new Set(names).size).toBe(names.length);
    }
  });
});
