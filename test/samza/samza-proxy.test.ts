// The samza mapper mode: HashSystemStreamPartitionMapper + SSPGrouperProxy, spec §5-§6.
import { describe, expect, it } from 'vitest';
import { AllSspToSingleTaskGrouper, GroupByPartition, GroupBySystemStreamPartition } from '../../src/samza/groupers.js';
import { hashMapperPreviousSsp, sspGrouperProxy } from '../../src/samza/samza-proxy.js';
import { SamzaError } from '../../src/samza/errors.js';
import { ssp, type SSP } from '../../src/samza/model.js';
import { config, ssps, STATEFUL, view } from './helpers.js';

const PROXY_TEXT =
  'Error in partition-to-task assignment via the SSPGroupProxy. To disable the SSPGroupProxy, set config job.systemstreampartition.input.expansion.enabled = false, only if you cannot address the root cause as shown in the underlying exception.';

/** Previous assignment "Partition i" -> [stream#i] for every stream, i < n. */
function byPartition(streams: string[], n: number): Map<string, SSP[]> {
  const m = new Map<string, SSP[]>();
  for (let i = 0; i < n; i++) m.set(`Partition ${i}`, streams.map((s) => ssp('kafka', s, i)));
  return m;
}

function run(cfg: Record<string, string>, input: SSP[], previous: Map<string, SSP[]>) {
  const c = config(cfg);
  return sspGrouperProxy(new GroupByPartition(c), c, input, previous);
}

describe('HashSystemStreamPartitionMapper', () => {
  it('maps new partition n to n mod the previous count, without key bucket', () => {
    expect(hashMapperPreviousSsp(ssp('kafka', 'a', 13, 1), 4, 16)).toEqual(ssp('kafka', 'a', 1));
  });

  it('rejects a count that is not a multiple, and any decrease', () => {
    expect(() => hashMapperPreviousSsp(ssp('kafka', 'a', 5), 4, 6)).toThrow('New partition count: 6 should be a multiple of previous partition count: 4.');
    expect(() => hashMapperPreviousSsp(ssp('kafka', 'a', 1), 8, 4)).toThrow('New partition count: 4 should be a multiple of previous partition count: 8.');
  });
});

describe('SSPGrouperProxy', () => {
  it('worked example: a stateful job keeps 4 tasks when PVE goes from 4 to 8 partitions', () => {
    const r = run({ ...STATEFUL, 'task.inputs': 'kafka.PVE' }, ssps('kafka', 'PVE', 0, 7), byPartition(['PVE'], 4));
    expect(view(r.grouping)).toEqual({
      'Partition 0': ['kafka.PVE#0', 'kafka.PVE#4'],
      'Partition 1': ['kafka.PVE#1', 'kafka.PVE#5'],
      'Partition 2': ['kafka.PVE#2', 'kafka.PVE#6'],
      'Partition 3': ['kafka.PVE#3', 'kafka.PVE#7'],
    });
  });

  it('worked example, stateless: eight single-partition tasks', () => {
    const r = run({ 'task.inputs': 'kafka.PVE' }, ssps('kafka', 'PVE', 0, 7), byPartition(['PVE'], 4));
    expect(r.bypass).toBe('stateless');
    expect(r.grouping.size).toBe(8);
  });

  it('an in-memory store does not make a job stateful', () => {
    const r = run({ 'stores.s.factory': 'org.apache.samza.storage.kv.inmemory.InMemoryKeyValueStorageEngineFactory' }, ssps('kafka', 'PVE', 0, 7), byPartition(['PVE'], 4));
    expect(r.grouping.size).toBe(8);
  });

  it('first run (no previous assignment): the raw grouping', () => {
    const r = run(STATEFUL, ssps('kafka', 'PVE', 0, 7), new Map());
    expect(r.bypass).toBe('first-run');
    expect(r.grouping.size).toBe(8);
  });

  it('several streams expanded together each fold onto the old tasks', () => {
    const r = run(STATEFUL, [...ssps('kafka', 'A', 0, 7), ...ssps('kafka', 'B', 0, 7)], byPartition(['A', 'B'], 4));
    expect(view(r.grouping)['Partition 1']).toEqual(['kafka.A#1', 'kafka.A#5', 'kafka.B#1', 'kafka.B#5']);
    expect(r.grouping.size).toBe(4);
  });

  it('a new stream is placed by the raw grouper, creating tasks for its higher partitions', () => {
    const r = run(STATEFUL, [...ssps('kafka', 'A', 0, 3), ...ssps('kafka', 'B', 0, 7)], byPartition(['A'], 4));
    expect(view(r.grouping)).toEqual({
      'Partition 0': ['kafka.A#0', 'kafka.B#0'],
      'Partition 1': ['kafka.A#1', 'kafka.B#1'],
      'Partition 2': ['kafka.A#2', 'kafka.B#2'],
      'Partition 3': ['kafka.A#3', 'kafka.B#3'],
      'Partition 4': ['kafka.B#4'],
      'Partition 5': ['kafka.B#5'],
      'Partition 6': ['kafka.B#6'],
      'Partition 7': ['kafka.B#7'],
    });
  });

  it('a removed stream\'s previous entries are ignored', () => {
    const r = run(STATEFUL, ssps('kafka', 'A', 0, 7), byPartition(['A', 'gone'], 4));
    expect(r.grouping.size).toBe(4);
  });

  it('an unchanged stream returns each SSP to its previous task', () => {
    const prev = new Map<string, SSP[]>([
      ['Partition 0', [ssp('kafka', 'A', 1)]],
      ['Partition 1', [ssp('kafka', 'A', 0)]],
    ]);
    expect(view(run(STATEFUL, ssps('kafka', 'A', 0, 1), prev).grouping)).toEqual({ 'Partition 0': ['kafka.A#1'], 'Partition 1': ['kafka.A#0'] });
  });

  it('a non-multiple expansion is a SamzaException wrapping the mapper error', () => {
    try {
      run(STATEFUL, ssps('kafka', 'A', 0, 5), byPartition(['A'], 4));
      expect.unreachable();
    } catch (e) {
      const err = e as SamzaError;
      expect(err.samzaType).toBe('SamzaException');
      expect(err.message).toBe(PROXY_TEXT);
      expect(err.cause?.message).toBe('New partition count: 6 should be a multiple of previous partition count: 4.');
    }
  });

  it('a decrease fails the same way', () => {
    expect(() => run(STATEFUL, ssps('kafka', 'A', 0, 3), byPartition(['A'], 8))).toThrow(PROXY_TEXT);
  });

  it('chains compare with the previous run: 4 -> 8 -> 16 works, 4 -> 8 -> 12 fails at the second step', () => {
    const c = config(STATEFUL);
    const first = sspGrouperProxy(new GroupByPartition(c), c, ssps('kafka', 'A', 0, 7), byPartition(['A'], 4)).grouping;
    const prev = new Map([...first].map(([t, s]) => [t, s.sorted()] as [string, SSP[]]));
    expect(sspGrouperProxy(new GroupByPartition(c), c, ssps('kafka', 'A', 0, 15), prev).grouping.size).toBe(4);
    expect(() => sspGrouperProxy(new GroupByPartition(c), c, ssps('kafka', 'A', 0, 11), prev)).toThrow(PROXY_TEXT);
  });

  it('broadcast SSPs never move, and tasks left with only broadcast SSPs survive', () => {
    const cfg = { ...STATEFUL, 'task.broadcast.inputs': 'kafka.bc#0' };
    const prev = byPartition(['A'], 4);
    for (const l of prev.values()) l.push(ssp('kafka', 'bc', 0));
    const r = run(cfg, [...ssps('kafka', 'A', 0, 7), ssp('kafka', 'bc', 0)], prev);
    const v = view(r.grouping);
    expect(v['Partition 0']).toEqual(['kafka.A#0', 'kafka.A#4', 'kafka.bc#0']);
    // Counting occurrences: A's count went 4 -> 8 here, so the mapper ran; tasks 4..7 keep the broadcast SSP.
    expect(v['Partition 4']).toEqual(['kafka.bc#0']);
    expect(r.grouping.size).toBe(8);
  });

  it('counts occurrences, not partitions: AllSspToSingleTask going from 2 to 3 processors fails though no partition count changed', () => {
    const c = config({ ...STATEFUL, 'processor.list': '0,1,2' });
    const prev = new Map<string, SSP[]>([
      ['Task-0', ssps('kafka', 'A', 0, 2)],
      ['Task-1', ssps('kafka', 'A', 0, 2)],
    ]);
    // previous count 6 (3 SSPs x 2 tasks), current 9 (3 x 3): 9 is not a multiple of 6.
    expect(() => sspGrouperProxy(new AllSspToSingleTaskGrouper(['0', '1', '2']), c, ssps('kafka', 'A', 0, 2), prev)).toThrow(PROXY_TEXT);
  });

  it('with elasticity on, an expansion silently does nothing (the mapper drops the key bucket)', () => {
    const cfg = { ...STATEFUL, 'job.elasticity.factor': '2' };
    const prev = new Map<string, SSP[]>();
    for (let p = 0; p < 2; p++) for (let b = 0; b < 2; b++) prev.set(`Partition ${p} ${b}`, [ssp('kafka', 'A', p, b)]);
    const r = run(cfg, ssps('kafka', 'A', 0, 3), prev);
    expect(r.grouping.size).toBe(8);
    expect(view(r.grouping)['Partition 3 1']).toEqual(['kafka.A#3/1']);
  });

  it('a previous task missing from the current grouping fails (Samza: NullPointerException, wrapped)', () => {
    const c = config(STATEFUL);
    const prev = byPartition(['A'], 2);
    try {
      sspGrouperProxy(new GroupBySystemStreamPartition(c), c, ssps('kafka', 'A', 0, 1), prev);
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).toBe(PROXY_TEXT);
      expect((e as SamzaError).cause).toBeInstanceOf(SamzaError);
      expect(((e as SamzaError).cause as SamzaError).samzaType).toBe('NullPointerException');
    }
  });

  it('GroupBySystemStreamPartition: new SSPs join the task of SSP p mod P, and the emptied tasks disappear', () => {
    const c = config(STATEFUL);
    const prev = new Map<string, SSP[]>([
      ['SystemStreamPartition [kafka, A, 0]', [ssp('kafka', 'A', 0)]],
      ['SystemStreamPartition [kafka, A, 1]', [ssp('kafka', 'A', 1)]],
    ]);
    const r = sspGrouperProxy(new GroupBySystemStreamPartition(c), c, ssps('kafka', 'A', 0, 3), prev);
    expect(view(r.grouping)).toEqual({
      'SystemStreamPartition [kafka, A, 0]': ['kafka.A#0', 'kafka.A#2'],
      'SystemStreamPartition [kafka, A, 1]': ['kafka.A#1', 'kafka.A#3'],
    });
  });
});
