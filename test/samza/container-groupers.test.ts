// GroupByContainerCount and GroupByContainerIds, spec §10.
import { describe, expect, it } from 'vitest';
import { byCodeUnits } from '../../src/basics.js';
import {
  balanceByContainerCount,
  groupByContainerCount,
  groupByContainerIds,
  groupByContainerIdsWithLocality,
  type ContainerAssignment,
} from '../../src/samza/container-groupers.js';

const tasks = (n: number): string[] => Array.from({ length: n }, (_, i) => `Partition ${i}`).sort(byCodeUnits);

function layout(names: string[], a: ContainerAssignment): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const id of a.ids) out[id] = [];
  names.forEach((t, i) => out[a.ids[a.containerOf[i]!]!]!.push(t));
  return out;
}

describe('GroupByContainerCount', () => {
  it('round-robins name-sorted tasks ("Partition 10" sorts before "Partition 2")', () => {
    const t = tasks(11);
    expect(layout(t, groupByContainerCount(t, 2))).toEqual({
      '0': ['Partition 0', 'Partition 10', 'Partition 3', 'Partition 5', 'Partition 7', 'Partition 9'],
      '1': ['Partition 1', 'Partition 2', 'Partition 4', 'Partition 6', 'Partition 8'],
    });
  });

  it('rejects zero containers, no tasks, and more containers than tasks with Samza\'s texts', () => {
    expect(() => groupByContainerCount(tasks(2), 0)).toThrow('Must have at least one container');
    expect(() => groupByContainerCount([], 1)).toThrow("No tasks found. Likely due to no input partitions. Can't run a job with no tasks.");
    expect(() => groupByContainerCount(tasks(2), 3)).toThrow(
      "Your container count (3) is larger than your task count (2). Can't have containers with nothing to do, so aborting.",
    );
  });

  describe('balance path (host affinity)', () => {
    const names = (ns: number[]): string[] => ns.map((n) => `Partition ${n}`);
    const prev = (m: Record<string, number[]>): Map<string, string> => {
      const out = new Map<string, string>();
      for (const [c, ns] of Object.entries(m)) for (const n of ns) out.set(`Partition ${n}`, c);
      return out;
    };

    it('moves only the surplus, largest names first, when going from 2 to 4 containers', () => {
      const t = tasks(9);
      const r = balanceByContainerCount(t, 4, prev({ '0': [0, 2, 4, 6, 8], '1': [1, 3, 5, 7] }));
      expect(r.path).toBe('balance');
      const l = layout(t, r);
      expect(l['0']!.sort()).toEqual(names([0, 2, 4]).sort());
      expect(l['1']!.sort()).toEqual(names([1, 3]).sort());
      expect(l['2']!.sort()).toEqual(names([8, 6]).sort());
      expect(l['3']!.sort()).toEqual(names([7, 5]).sort());
    });

    it('shrinking moves the removed containers\' tasks to under-filled ones', () => {
      const t = tasks(6);
      const r = balanceByContainerCount(t, 2, prev({ '0': [0, 3], '1': [1, 4], '2': [2, 5] }));
      const l = layout(t, r);
      expect(l['0']!.length + l['1']!.length).toBe(6);
      expect(l['0']).toEqual(expect.arrayContaining(names([0, 3])));
      expect(l['1']).toEqual(expect.arrayContaining(names([1, 4])));
    });

    it('reuses the previous layout verbatim when the container count is unchanged, even if unbalanced', () => {
      const t = tasks(4);
      const r = balanceByContainerCount(t, 2, prev({ '0': [0, 1, 2], '1': [3] }));
      expect(r.path).toBe('reuse');
      expect(layout(t, r)).toEqual({ '0': names([0, 1, 2]), '1': names([3]) });
    });

    it('falls back to round-robin: no previous mapping, different task count, missing container ids, one container', () => {
      const t = tasks(4);
      expect(balanceByContainerCount(t, 2, new Map()).path).toBe('plain');
      expect(balanceByContainerCount(t, 2, prev({ '0': [0, 1], '1': [2] })).path).toBe('plain');
      const missing = balanceByContainerCount(t, 2, prev({ '0': [0, 1], '2': [2, 3] }));
      expect(missing.path).toBe('plain');
      expect(missing.reason).toBe('Task mapping is missing container: 1');
      expect(balanceByContainerCount(t, 2, prev({ '0': [0, 1, 2, 3] })).path).toBe('plain');
      expect(balanceByContainerCount(t, 1, prev({ '0': [0, 1], '1': [2, 3] })).path).toBe('plain');
    });

    it('falls back instead of crashing when the task names differ at equal count (Samza: NullPointerException)', () => {
      const t = tasks(2);
      const p = new Map([
        ['Partition 0', '0'],
        ['Other', '1'],
      ]);
      expect(balanceByContainerCount(t, 2, p).path).toBe('plain');
    });
  });
});

describe('GroupByContainerIds', () => {
  it('without ids uses "0".."count-1"', () => {
    const t = tasks(4);
    expect(layout(t, groupByContainerIds(t, null, 2))).toEqual({ '0': ['Partition 0', 'Partition 2'], '1': ['Partition 1', 'Partition 3'] });
  });

  it('round-robins over the ids in the given order', () => {
    const t = tasks(3);
    const r = groupByContainerIds(t, ['4', '2']);
    expect(r.ids).toEqual(['4', '2']);
    expect(layout(t, r)).toEqual({ '4': ['Partition 0', 'Partition 2'], '2': ['Partition 1'] });
  });

  it('keeps the lexicographically smallest t ids when there are more ids than tasks', () => {
    const t = tasks(2);
    expect(groupByContainerIds(t, ['9', '10', '3']).ids).toEqual(['10', '3']);
  });

  it('rejects empty ids and empty tasks with Samza\'s texts', () => {
    expect(() => groupByContainerIds(tasks(2), [])).toThrow('Must have at least one container');
    expect(() => groupByContainerIds([], ['0', '1'])).toThrow('cannot group an empty set. containerIds=[0, 1]');
  });

  describe('locality path', () => {
    it('puts tasks back on a processor at their previous host, up to floor(t/p) each, then fills in id order', () => {
      const t = tasks(4);
      const procs = new Map([
        ['0', 'host-a'],
        ['1', 'host-b'],
      ]);
      const taskLoc = new Map([
        ['Partition 0', 'host-b'],
        ['Partition 1', 'host-b'],
        ['Partition 2', 'host-b'],
      ]);
      // perProc = 2: P0, P1 go to processor 1 (host-b); P2 finds it full; P2, P3 then fill processor 0.
      expect(layout(t, groupByContainerIdsWithLocality(t, procs, taskLoc))).toEqual({ '0': ['Partition 2', 'Partition 3'], '1': ['Partition 0', 'Partition 1'] });
    });

    it('round-robins the remainder from the smallest id when every processor is full', () => {
      const t = tasks(5);
      const procs = new Map([
        ['1', 'h'],
        ['0', 'h'],
      ]);
      const l = layout(t, groupByContainerIdsWithLocality(t, procs, new Map()));
      expect(l['0']).toEqual(['Partition 0', 'Partition 1', 'Partition 4']);
      expect(l['1']).toEqual(['Partition 2', 'Partition 3']);
    });

    it('uses only the smallest t processors, and rejects no tasks and no processors', () => {
      const t = tasks(1);
      expect(groupByContainerIdsWithLocality(t, new Map([['b', 'h'], ['a', 'h']]), new Map()).ids).toEqual(['a']);
      expect(() => groupByContainerIdsWithLocality([], new Map([['0', 'h']]), new Map())).toThrow('No tasks found');
      expect(() => groupByContainerIdsWithLocality(t, new Map(), new Map())).toThrow('Must have at least one container');
    });
  });
});

describe('the groupers sort their input as Samza does', () => {
  const sorted = tasks(11);
  // A fixed shuffle of the same names.
  const shuffled = [5, 0, 9, 2, 10, 7, 1, 8, 3, 6, 4].map((i) => sorted[i]!);
  const byName = (names: string[], a: ContainerAssignment) => Object.fromEntries(Object.entries(layout(names, a)).map(([id, l]) => [id, l.sort(byCodeUnits)]));

  it('GroupByContainerCount and GroupByContainerIds give the same layout for any input order', () => {
    expect(byName(shuffled, groupByContainerCount(shuffled, 3))).toEqual(byName(sorted, groupByContainerCount(sorted, 3)));
    expect(byName(shuffled, groupByContainerIds(shuffled, ['b', 'a']))).toEqual(byName(sorted, groupByContainerIds(sorted, ['b', 'a'])));
    expect(byName(shuffled, groupByContainerIds(shuffled, null, 4))).toEqual(byName(sorted, groupByContainerIds(sorted, null, 4)));
  });

  it('the balance path and the locality path too', () => {
    const prev = new Map(sorted.map((t, i) => [t, String(i % 3)] as [string, string]));
    expect(byName(shuffled, balanceByContainerCount(shuffled, 2, prev))).toEqual(byName(sorted, balanceByContainerCount(sorted, 2, prev)));
    const procs = new Map([['0', 'h1'], ['1', 'h2'], ['2', 'h1']]);
    const located = new Map(sorted.filter((_, i) => i % 2 === 0).map((t, i) => [t, i % 2 === 0 ? 'h1' : 'h2'] as [string, string]));
    expect(byName(shuffled, groupByContainerIdsWithLocality(shuffled, procs, located))).toEqual(byName(sorted, groupByContainerIdsWithLocality(sorted, procs, located)));
  });

  it('a task given twice is refused (Samza gets a Set)', () => {
    try {
      groupByContainerCount(['Partition 1', 'Partition 0', 'Partition 1'], 1);
      expect.unreachable();
    } catch (e) {
      expect((e as { code: string }).code).toBe('E_SAMZA_DUPLICATE_TASK');
      expect((e as { path: string }).path).toBe('tasks[2]');
    }
  });

  it('GroupByContainerIds without ids and a negative count fails where Samza sizes its list', () => {
    expect(() => groupByContainerIds(sorted, null, -1)).toThrow('Illegal Capacity: -1');
  });
});
