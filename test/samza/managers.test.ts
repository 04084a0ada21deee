// The Samza managers over the store, and the job file parser.
import { describe, expect, it } from 'vitest';
import { MemoryCoordinatorStore } from '../../src/store/memory-store.js';
import { baseCountRecord, readBaseCounts, TYPES } from '../../src/samza/managers.js';
import { changelogRecord, previousTaskToSsps, readChangelogMapping, readTaskAssignment, readTaskModes, readTaskPartitionAssignments, taskContainerRecords, taskPartitionRecord } from '../support/samza-managers.js';
import { parseJobFile } from '../../src/samza/job-file.js';
import { calculateJobModel, emptyPrevious } from '../../src/samza/plan.js';
import { ssp } from '../../src/samza/model.js';
import { assignChangelogPartitions } from '../../src/samza/changelog.js';

describe('TaskPartitionAssignmentManager', () => {
  it('writes one record per SSP; an empty task list is a delete', () => {
    const store = new MemoryCoordinatorStore();
    store.commit([taskPartitionRecord(ssp('kafka', 'A', 0), ['Partition 0', 'Standby-Partition 0-0'])]);
    expect(readTaskPartitionAssignments(store).sspToTasks.size).toBe(1);
    store.commit([taskPartitionRecord(ssp('kafka', 'A', 0), [])]);
    expect(readTaskPartitionAssignments(store).sspToTasks.size).toBe(0);
  });

  it('reads SSP -> task list keeping the list order, and inverts it for active tasks only', () => {
    const store = new MemoryCoordinatorStore();
    store.commit([
      taskPartitionRecord(ssp('kafka', 'A', 0), ['Partition 0', 'Standby-Partition 0-0']),
      taskPartitionRecord(ssp('kafka', 'A', 1), ['Partition 1']),
      ...taskContainerRecords('Standby-Partition 0-0', '0-0', 'Standby'),
    ]);
    const a = readTaskPartitionAssignments(store);
    expect([...a.sspToTasks.values()][0]!.tasks).toEqual(['Partition 0', 'Standby-Partition 0-0']);
    const inv = previousTaskToSsps(a, readTaskModes(store));
    expect([...inv.keys()]).toEqual(['Partition 0', 'Partition 1']);
  });
});

describe('ChangelogStreamManager and TaskAssignmentManager', () => {
  it('reads task -> changelog partition, skipping blank values; a null partition deletes', () => {
    const store = new MemoryCoordinatorStore();
    store.commit([changelogRecord('Partition 0', 3), { type: TYPES.changelog, key: 'Partition 1', value: { Partition: '' } }]);
    expect([...readChangelogMapping(store)]).toEqual([['Partition 0', 3]]);
    store.commit([changelogRecord('Partition 0', null)]);
    expect(readChangelogMapping(store).size).toBe(0);
  });

  it('a damaged integer record is an error naming it, never a silent wrong number', () => {
    // Before: "1e300" read as a partition, and the next new task got Int32(1e300 + 1) = 0, a partition already in use.
    for (const bad of ['1e300', '2147483648', '-3', 'abc', '1.5']) {
      const store = new MemoryCoordinatorStore();
      store.commit([changelogRecord('Partition 0', 0), { type: TYPES.changelog, key: 'Partition 9', value: { Partition: bad } }]);
      expect(() => readChangelogMapping(store)).toThrow(
        expect.objectContaining({ code: 'E_SAMZA_STORE_READ', path: 'set-changelog Partition 9', message: `the store's set-changelog record for "Partition 9" holds ${JSON.stringify(bad)}, not an integer in [0, 2147483647]` }),
      );
      const counts = new MemoryCoordinatorStore();
      counts.commit([{ type: TYPES.baseCount, key: 'kafka.A', value: { basePartitionCount: bad } }]);
      expect(() => readBaseCounts(counts)).toThrow(expect.objectContaining({ code: 'E_SAMZA_STORE_READ', path: 'set-stream-base-partition-count kafka.A' }));
    }
    const store = new MemoryCoordinatorStore();
    store.commit([changelogRecord('Partition 0', 2147483647)]);
    expect(readChangelogMapping(store).get('Partition 0')).toBe(2147483647);
    expect(() => assignChangelogPartitions(['Partition 0', 'Partition 1'], readChangelogMapping(store))).toThrow('no changelog partition left for new task "Partition 1"');
  });

  it('an SSP key with a partition or key bucket outside Java int range is Samza\'s read exception', () => {
    for (const key of ['{"system":"kafka","partition":-5,"stream":"PVE"}', '{"system":"kafka","partition":1e300,"stream":"PVE"}', '{"system":"kafka","partition":1,"stream":"PVE","keyBucket":-2}']) {
      const store = new MemoryCoordinatorStore();
      store.put(TYPES.taskPartition, key, { taskNames: '["Partition 0"]' });
      expect(() => readTaskPartitionAssignments(store)).toThrow(expect.objectContaining({ code: 'E_SAMZA_STORE_READ', message: 'Exception occurred when reading task partition assignments.' }));
    }
  });

  it('task -> container writes both container and mode; a null container deletes both', () => {
    const store = new MemoryCoordinatorStore();
    store.commit(taskContainerRecords('Partition 0', '1', 'Active'));
    expect([...readTaskAssignment(store)]).toEqual([['Partition 0', '1']]);
    expect([...readTaskModes(store)]).toEqual([['Partition 0', 'Active']]);
    store.commit(taskContainerRecords('Partition 0', null, 'Active'));
    expect(readTaskAssignment(store).size + readTaskModes(store).size).toBe(0);
  });

  it('base counts live in their own message type', () => {
    const store = new MemoryCoordinatorStore();
    store.commit([baseCountRecord('kafka.A', 4)]);
    expect(store.get('set-stream-base-partition-count', 'kafka.A')).toEqual({ basePartitionCount: '4' });
    expect([...readBaseCounts(store)]).toEqual([['kafka.A', 4]]);
  });
});

describe('job file', () => {
  it('reads config, partitions, mapper, allowKeyMovement and processors; __proto__ is an ordinary name', () => {
    const j = parseJobFile(
      JSON.parse('{"config":{"task.inputs":"kafka.__proto__","job.container.count":2,"__proto__":"x"},"partitions":{"kafka.__proto__":3},"mapper":"samza","allowKeyMovement":true,"processors":{"__proto__":"h"}}'),
    );
    expect(j.config.get('job.container.count')).toBe('2');
    expect(j.config.get('__proto__')).toBe('x');
    expect([...j.partitionCounts]).toEqual([['kafka.__proto__', 3]]);
    expect(j.mapper).toBe('samza');
    expect(j.allowKeyMovement).toBe(true);
    expect([...j.processors!]).toEqual([['__proto__', 'h']]);
  });

  it('rejects unknown fields, bad counts and bad values, naming where', () => {
    expect(() => parseJobFile({ config: {}, extra: 1 })).toThrow('unknown field "extra"');
    expect(() => parseJobFile({ partitions: {} })).toThrow('job has no "config" object');
    expect(() => parseJobFile({ config: {}, partitions: { 'kafka.A': 0 } })).toThrow('partition count of kafka.A must be an integer in [1, 2147483647]');
    expect(() => parseJobFile({ config: { a: [1] } })).toThrow('config value of "a" must be a string, number or boolean');
    expect(() => parseJobFile({ config: {}, mapper: 'hash' })).toThrow('mapper must be "base" or "samza"');
  });
});

describe('job model calculation details (Samza JobModelCalculator)', () => {
  const job = (cfg: Record<string, string>, counts: Record<string, number>) => ({
    config: parseJobFile({ config: cfg }).config,
    partitionCounts: new Map(Object.entries(counts)),
  });

  it('GroupByContainerIds uses the processor ids (processor locality keys) in order', () => {
    const p = calculateJobModel(
      job({ 'task.inputs': 'kafka.A', 'task.name.grouper.factory': 'org.apache.samza.container.grouper.task.GroupByContainerIdsFactory' }, { 'kafka.A': 3 }),
      emptyPrevious(),
      { processors: new Map([['b', 'h'], ['a', 'h']]) },
    );
    expect(p.containers.ids).toEqual(['b', 'a']);
    expect([...p.containers.containerOf]).toEqual([0, 1, 0]);
  });

  it('AllSspToSingleTask reads the processor list written into the config copy', () => {
    const p = calculateJobModel(
      job({ 'task.inputs': 'kafka.A', 'job.systemstreampartition.grouper.factory': 'org.apache.samza.container.grouper.stream.AllSspToSingleTaskGrouperFactory' }, { 'kafka.A': 2 }),
      emptyPrevious(),
      { mapper: 'samza', processors: new Map([['p1', 'h'], ['p2', 'h']]) },
    );
    expect(p.grouping.tasks).toEqual(['Task-p1', 'Task-p2']);
  });

  it('SingleContainer puts every task in container processor.id', () => {
    const p = calculateJobModel(
      job({ 'task.inputs': 'kafka.A', 'processor.id': 'solo', 'task.name.grouper.factory': 'org.apache.samza.container.grouper.task.SingleContainerGrouperFactory' }, { 'kafka.A': 3 }),
    );
    expect(p.containers.ids).toEqual(['solo']);
  });

  it('more containers than tasks is Samza\'s error', () => {
    expect(() => calculateJobModel(job({ 'task.inputs': 'kafka.A', 'job.container.count': '3' }, { 'kafka.A': 2 }))).toThrow(
      "Your container count (3) is larger than your task count (2). Can't have containers with nothing to do, so aborting.",
    );
  });
});

describe('job file processors', () => {
  it('an array keeps the given id order (an object would list integer-like ids first)', () => {
    const j = parseJobFile({ config: {}, processors: [{ id: '4', host: 'a' }, { id: '2' }] });
    expect([...j.processors!]).toEqual([['4', 'a'], ['2', 'ANY_HOST']]);
    expect(() => parseJobFile({ config: {}, processors: [{ id: '4' }, { id: '4' }] })).toThrow('processor "4" is listed twice');
    // A typo must not silently turn a host into ANY_HOST.
    expect(() => parseJobFile({ config: {}, processors: [{ id: '4', hots: 'a' }] })).toThrow(expect.objectContaining({ message: 'unknown field "hots" in processors[0]: expected id, host', path: 'processors[0].hots' }));
    // processor.list is comma-joined: "a,b" would be one task for the base mapper and two for the samza mapper.
    expect(() => parseJobFile({ config: {}, processors: { 'a,b': 'h' } })).toThrow('processor id "a,b" must be non-empty and contain no comma');
    expect(() => parseJobFile({ config: {}, processors: [{ id: '' }] })).toThrow('processor id "" must be non-empty');
    expect(() => parseJobFile({ config: {}, processors: {} })).toThrow('processors must list at least one processor');
    expect(() => parseJobFile({ config: {}, processors: [] })).toThrow('processors must list at least one processor');
  });
});
