import { describe, expect, it } from 'vitest';
import {
  allInputStreams,
  broadcastSsps,
  broadcastStreams,
  containerCount,
  elasticityFactor,
  hasDurableStores,
  hostAffinityEnabled,
  inputStreams,
  persistentStoreCount,
  readSettings,
  sspGrouper,
  stores,
} from '../../src/samza/config.js';
import { sspToString } from '../../src/samza/model.js';
import { SamzaError } from '../../src/samza/errors.js';
import { config } from './helpers.js';

const FORMAT = (item: string): string =>
  `incorrect format in ${item}. Broadcast stream names should be in the form 'system.stream#partitionId' or 'system.stream#[partitionN-partitionM]'`;

function thrown(f: () => unknown): SamzaError {
  try {
    f();
  } catch (e) {
    return e as SamzaError;
  }
  throw new Error('expected a throw');
}

describe('task.inputs', () => {
  it('is a comma-separated list of system.stream names, trimmed, split at the first dot', () => {
    expect(inputStreams(config({ 'task.inputs': ' kafka.a , kafka.b.c,hdfs.x ' }))).toEqual([
      { system: 'hdfs', stream: 'x' },
      { system: 'kafka', stream: 'a' },
      { system: 'kafka', stream: 'b.c' },
    ]);
  });
});

describe('task.broadcast.inputs grammar', () => {
  it('reads single partitions and inclusive [A-B] ranges, swallowing whitespace around commas', () => {
    const c = config({ 'task.broadcast.inputs': 'kafka.foo#4, kafka.boo#5 ,\tkafka.z-o-o#[12-14], kafka.foo.bar#[3-4]' });
    expect(broadcastSsps(c).map(sspToString)).toEqual([
      'SystemStreamPartition [kafka, boo, 5]',
      'SystemStreamPartition [kafka, foo, 4]',
      'SystemStreamPartition [kafka, foo.bar, 3]',
      'SystemStreamPartition [kafka, foo.bar, 4]',
      'SystemStreamPartition [kafka, z-o-o, 12]',
      'SystemStreamPartition [kafka, z-o-o, 13]',
      'SystemStreamPartition [kafka, z-o-o, 14]',
    ]);
  });

  it('missing or blank means no broadcast SSPs', () => {
    expect(broadcastSsps(config({}))).toEqual([]);
    expect(broadcastSsps(config({ 'task.broadcast.inputs': '   ' }))).toEqual([]);
  });

  it('a reversed range adds nothing and warns', () => {
    const warnings: string[] = [];
    expect(broadcastSsps(config({ 'task.broadcast.inputs': 'kafka.foo#[5-3]' }), (w) => warnings.push(w))).toEqual([]);
    expect(warnings).toHaveLength(1);
  });

  it('an item without # is rejected with Samza\'s text', () => {
    const e = thrown(() => broadcastSsps(config({ 'task.broadcast.inputs': 'kafka.foo#1, kafka.bar' })));
    expect(e.samzaType).toBe('IllegalArgumentException');
    expect(e.message).toBe(FORMAT('kafka.bar'));
  });

  it('a range without brackets is rejected the same way', () => {
    expect(thrown(() => broadcastSsps(config({ 'task.broadcast.inputs': 'kafka.foo#1-2' }))).message).toBe(FORMAT('kafka.foo#1-2'));
    expect(thrown(() => broadcastSsps(config({ 'task.broadcast.inputs': 'kafka.foo#[1-2' }))).message).toBe(FORMAT('kafka.foo#[1-2'));
    expect(thrown(() => broadcastSsps(config({ 'task.broadcast.inputs': 'kafka.foo#x' }))).message).toBe(FORMAT('kafka.foo#x'));
  });

  it('the stream left of # needs a dot', () => {
    expect(thrown(() => broadcastSsps(config({ 'task.broadcast.inputs': 'foo#1' }))).message).toBe(
      "No '.' in stream name 'foo'. Stream names should be in the form 'system.stream'",
    );
  });

  it('broadcast streams are the distinct streams, and all inputs are task.inputs plus them', () => {
    const c = config({ 'task.inputs': 'kafka.a', 'task.broadcast.inputs': 'kafka.b#1,kafka.b#[2-3],kafka.a#0' });
    expect(broadcastStreams(c)).toEqual([
      { system: 'kafka', stream: 'a' },
      { system: 'kafka', stream: 'b' },
    ]);
    expect(allInputStreams(c)).toEqual([
      { system: 'kafka', stream: 'a' },
      { system: 'kafka', stream: 'b' },
    ]);
  });
});

describe('other keys', () => {
  it('elasticity factor below 1 is a ConfigException', () => {
    const e = thrown(() => elasticityFactor(config({ 'job.elasticity.factor': '0' })));
    expect(e.samzaType).toBe('ConfigException');
    expect(e.message).toBe('Elasticity factor can not be less than 1');
    expect(elasticityFactor(config({}))).toBe(1);
  });

  it('container count falls back to yarn.container.count; autosizing wins when enabled', () => {
    expect(containerCount(config({}))).toBe(1);
    expect(containerCount(config({ 'yarn.container.count': '3' }))).toBe(3);
    expect(containerCount(config({ 'yarn.container.count': '3', 'job.container.count': '2' }))).toBe(2);
    expect(containerCount(config({ 'job.container.count': '2', 'job.autosizing.enabled': 'true', 'job.autosizing.container.count': '5' }))).toBe(5);
  });

  it('host affinity reads the legacy key too', () => {
    expect(hostAffinityEnabled(config({ 'yarn.samza.host-affinity.enabled': 'true' }))).toBe(true);
    expect(hostAffinityEnabled(config({ 'job.host-affinity.enabled': 'TRUE' }))).toBe(true);
    expect(hostAffinityEnabled(config({}))).toBe(false);
  });

  it('stateful means a non-in-memory store factory; durable means any changelog', () => {
    const mem = { 'stores.a.factory': 'org.apache.samza.storage.kv.inmemory.InMemoryKeyValueStorageEngineFactory', 'stores.a.changelog': 'kafka.a-changelog' };
    expect(persistentStoreCount(config(mem))).toBe(0);
    expect(hasDurableStores(config(mem))).toBe(true);
    expect(persistentStoreCount(config({ 'stores.b.factory': 'org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory' }))).toBe(1);
    expect(hasDurableStores(config({ 'stores.b.factory': 'x' }))).toBe(false);
  });

  it('side-input stores are store names too; one without a factory is not persistent', () => {
    const side = { 'stores.s.side.inputs.processor.factory': 'com.example.SideInputsProcessorFactory' };
    expect(stores(config(side))).toEqual([{ name: 's', factory: undefined }]);
    expect(persistentStoreCount(config(side))).toBe(0);
    expect(readSettings(config({ ...side, 'task.inputs': 'kafka.A' })).stateful).toBe(false);
    // With a factory it is one persistent store, not two.
    const both = { ...side, 'stores.s.factory': 'org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory' };
    expect(stores(config(both))).toEqual([{ name: 's', factory: 'org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory' }]);
    expect(persistentStoreCount(config(both))).toBe(1);
  });

  it('accepts Samza factory class names and the SEP-5 names, which force expansion on', () => {
    expect(sspGrouper(config({})).kind).toBe('GroupByPartition');
    expect(sspGrouper(config({ 'job.systemstreampartition.grouper.factory': 'org.apache.samza.container.grouper.stream.GroupBySystemStreamPartitionFactory' })).kind).toBe(
      'GroupBySystemStreamPartition',
    );
    const s = readSettings(
      config({
        'job.systemstreampartition.grouper.factory': 'org.apache.samza.container.grouper.stream.GroupByPartitionWithFixedTaskNumFactory',
        'job.systemstreampartition.input.expansion.enabled': 'false',
      }),
    );
    expect(s.grouper).toBe('GroupByPartition');
    expect(s.expansionEnabled).toBe(true);
    expect(() => sspGrouper(config({ 'job.systemstreampartition.grouper.factory': 'com.example.Custom' }))).toThrow(/unsupported SSP grouper factory/);
  });
});
