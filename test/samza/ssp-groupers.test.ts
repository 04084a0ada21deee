// GroupByPartition, GroupBySystemStreamPartition and AllSspToSingleTask as Samza's tests pin them down.
import { describe, expect, it } from 'vitest';
import { AllSspToSingleTaskGrouper, createSspGrouper, GroupByPartition, GroupBySystemStreamPartition } from '../../src/samza/groupers.js';
import { SamzaError } from '../../src/samza/errors.js';
import { ssp } from '../../src/samza/model.js';
import { config, ssps, view } from './helpers.js';

describe('GroupByPartition', () => {
  it('puts partition p of every stream into task "Partition p"', () => {
    const g = new GroupByPartition(config({}));
    const input = [ssp('kafka', 'a', 1), ssp('kafka', 'b', 1), ssp('kafka', 'a', 0), ssp('kafka', 'c', 2)];
    expect(view(g.group(input))).toEqual({
      'Partition 0': ['kafka.a#0'],
      'Partition 1': ['kafka.a#1', 'kafka.b#1'],
      'Partition 2': ['kafka.c#2'],
    });
  });

  it('returns an empty map for empty input', () => {
    expect(new GroupByPartition(config({})).group([]).size).toBe(0);
  });

  it('adds every configured broadcast SSP to every task, even ones not in the input, and makes no task for them', () => {
    const g = new GroupByPartition(config({ 'task.broadcast.inputs': 'kafka.bc#0, kafka.bc#[5-6]' }));
    const input = [ssp('kafka', 'a', 0), ssp('kafka', 'a', 1), ssp('kafka', 'bc', 0), ssp('kafka', 'bc', 3)];
    expect(view(g.group(input))).toEqual({
      'Partition 0': ['kafka.a#0', 'kafka.bc#0', 'kafka.bc#5', 'kafka.bc#6'],
      'Partition 1': ['kafka.a#1', 'kafka.bc#0', 'kafka.bc#5', 'kafka.bc#6'],
      'Partition 3': ['kafka.bc#0', 'kafka.bc#3', 'kafka.bc#5', 'kafka.bc#6'],
    });
  });

  it('with elasticity factor F makes F tasks per partition, "Partition p b", holding the bucket copies', () => {
    const g = new GroupByPartition(config({ 'job.elasticity.factor': '2', 'task.broadcast.inputs': 'kafka.bc#0' }));
    expect(view(g.group([ssp('kafka', 'a', 0), ssp('kafka', 'b', 0), ssp('kafka', 'a', 1)]))).toEqual({
      'Partition 0 0': ['kafka.a#0/0', 'kafka.b#0/0', 'kafka.bc#0'],
      'Partition 0 1': ['kafka.a#0/1', 'kafka.b#0/1', 'kafka.bc#0'],
      'Partition 1 0': ['kafka.a#1/0', 'kafka.bc#0'],
      'Partition 1 1': ['kafka.a#1/1', 'kafka.bc#0'],
    });
  });
});

describe('GroupBySystemStreamPartition', () => {
  it('makes one task per SSP, named by its toString', () => {
    const g = new GroupBySystemStreamPartition(config({}));
    expect(view(g.group([ssp('kafka', 'a', 0), ssp('kafka', 'b', 1)]))).toEqual({
      'SystemStreamPartition [kafka, a, 0]': ['kafka.a#0'],
      'SystemStreamPartition [kafka, b, 1]': ['kafka.b#1'],
    });
  });

  it('adds broadcast SSPs to every task and makes no task for them', () => {
    const g = new GroupBySystemStreamPartition(config({ 'task.broadcast.inputs': 'kafka.bc#1' }));
    expect(view(g.group([ssp('kafka', 'a', 0), ssp('kafka', 'bc', 1)]))).toEqual({
      'SystemStreamPartition [kafka, a, 0]': ['kafka.a#0', 'kafka.bc#1'],
    });
  });

  it('with elasticity names tasks by the bucketed SSP', () => {
    const g = new GroupBySystemStreamPartition(config({ 'job.elasticity.factor': '2' }));
    expect([...g.group([ssp('kafka', 'a', 3)]).keys()].sort()).toEqual(['SystemStreamPartition [kafka, a, 3, 0]', 'SystemStreamPartition [kafka, a, 3, 1]']);
  });
});

describe('AllSspToSingleTask', () => {
  it('gives each processor a task "Task-<id>" holding all SSPs', () => {
    const g = createSspGrouper(config({ 'job.systemstreampartition.grouper.factory': 'org.apache.samza.container.grouper.stream.AllSspToSingleTaskGrouperFactory', 'processor.list': '0,1' }));
    expect(view(g.group(ssps('kafka', 'a', 0, 1)))).toEqual({ 'Task-0': ['kafka.a#0', 'kafka.a#1'], 'Task-1': ['kafka.a#0', 'kafka.a#1'] });
  });

  it('refuses broadcast streams at construction', () => {
    try {
      createSspGrouper(config({ 'job.systemstreampartition.grouper.factory': 'org.apache.samza.container.grouper.stream.AllSspToSingleTaskGrouperFactory', 'task.broadcast.inputs': 'kafka.b#0' }));
      expect.unreachable();
    } catch (e) {
      expect((e as SamzaError).samzaType).toBe('ConfigException');
      expect((e as Error).message).toBe('The job configured with AllSspToSingleTaskGrouper cannot have broadcast streams.');
    }
  });

  it('rejects a null and an empty SSP set with Samza\'s texts', () => {
    const g = new AllSspToSingleTaskGrouper(['0']);
    expect(() => g.group(null)).toThrow('ssp set cannot be null!');
    expect(() => g.group([])).toThrow('Cannot process stream task with no input system stream partitions');
  });
});
