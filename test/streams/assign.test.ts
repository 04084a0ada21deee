// assignStreams as a library: the answer depends on the group only (not on the order of processes,
// members or task lists), is the same on every engine, keeps its promises (every task once, actives
// balanced per member, no standby with its active, previous standbys kept in balanced mode where
// the tags allow, never a task narrower than kafka mode), and a restarted process gets its tasks
// back through the state it reports.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { assignStreams } from '../../src/streams/assign.js';
import { readStreamsGroup, type StreamsGroupSpec } from '../../src/streams/input.js';
import { compareSpreads, tagSpreads } from '../../src/streams/cluster.js';
import { rng, randomStreamsGroup } from './generators.js';

const shuffle = <T>(xs: readonly T[], rand: () => number): T[] => {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};

function shuffled(g: StreamsGroupSpec, rand: () => number): StreamsGroupSpec {
  return {
    ...g,
    subtopologies: shuffle(g.subtopologies, rand),
    processes: shuffle(g.processes, rand).map((p) => ({ ...p, members: shuffle(p.members, rand).map((m) => ({ ...m, active: shuffle(m.active ?? [], rand), standby: shuffle(m.standby ?? [], rand) })) })),
  };
}

describe('assignStreams', () => {
  it('depends on the group only, is the same on every engine, and keeps its promises', () => {
    fc.assert(
      fc.property(fc.integer(), fc.constantFrom('kafka' as const, 'balanced' as const), (seed, mode) => {
        const rand = rng(seed);
        const g = randomStreamsGroup(rand, 0);
        const want = assignStreams(g, { mode, engine: 'reference' }).members();
        expect(assignStreams(shuffled(g, rand), { mode }).members()).toEqual(want);
        const tasks = g.subtopologies.reduce((s, x) => s + x.partitions, 0);
        const actives = want.flatMap((m) => m.active);
        expect(new Set(actives).size).toBe(tasks);
        expect(actives.length).toBe(tasks);
        const counts = want.map((m) => m.active.length);
        expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
        const activeProcess = new Map(want.flatMap((m) => m.active.map((t) => [t, m.process] as const)));
        for (const m of want) for (const t of m.standby) expect(activeProcess.get(t)).not.toBe(m.process);
      }),
      { numRuns: 150 },
    );
  });

  it('balanced mode never spreads a task less than kafka mode, previous standbys or not', () => {
    const rand = rng(3);
    let compared = 0;
    for (let i = 0; i < 400; i++) {
      const g = readStreamsGroup(randomStreamsGroup(rand, i, false, i % 3 === 0 ? 2 : 1));
      if (g.numStandbys === 0) continue;
      const spreadOf = (mode: 'balanced' | 'kafka') => {
        const a = assignStreams(g, { mode });
        return tagSpreads(g, a.activeOwner, a.standbyTasks);
      };
      const balanced = spreadOf('balanced');
      const kafka = spreadOf('kafka');
      for (const s of g.subtopologies.filter((x) => x.stateful)) {
        for (let t = s.firstTask; t < s.firstTask + s.partitions; t++) {
          expect(compareSpreads(balanced[t]!, kafka[t]!), `group ${i} task ${t}`).toBeGreaterThanOrEqual(0);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it('balanced mode keeps a previous standby whose process differs from the active on every tag', () => {
    const g: StreamsGroupSpec = {
      numStandbys: 1,
      tagKeys: ['zone'],
      subtopologies: [{ id: '0', partitions: 2, stateful: true }],
      processes: [
        { id: 'a', tags: { zone: 'z1' }, members: [{ id: 'a1', active: ['0_0', '0_1'] }, { id: 'a2' }] },
        { id: 'b', tags: { zone: 'z2' }, members: [{ id: 'b1' }] },
        { id: 'c', tags: { zone: 'z3' }, members: [{ id: 'c1', standby: ['0_0'] }] },
        { id: 'd', tags: { zone: 'z1' }, members: [{ id: 'd1', standby: ['0_1'] }] },
      ],
    };
    const a = assignStreams(g);
    const at = (t: string) => a.members().find((m) => m.standby.includes(t))?.id;
    const owner = (t: string) => a.members().find((m) => m.active.includes(t))?.id;
    // Both actives stay in process a (one per member); 0_0's standby stays on c (zone z3); 0_1's
    // previous standby d shares zone z1 with the active, so it moves to a zone other than z1.
    expect([owner('0_0'), owner('0_1')]).toEqual(['a1', 'a2']);
    expect(at('0_0')).toBe('c1');
    expect(['b1', 'c1']).toContain(at('0_1'));
    expect(a.totals().standbysKept).toBe(1);
  });

  it('a restarted process (new member ids) gets its tasks back from the offsets it reports', () => {
    const rand = rng(5);
    const before: StreamsGroupSpec = {
      numStandbys: 1,
      tagKeys: [],
      subtopologies: [{ id: '0', partitions: 12, stateful: true }],
      processes: ['p1', 'p2', 'p3'].map((id) => ({ id, members: [{ id: `${id}-m1` }, { id: `${id}-m2` }] })),
    };
    const first = assignStreams(before).members();
    // p2 restarts: its members come back with new ids and no assignment, reporting the state on disk.
    const onDisk = Object.fromEntries(first.filter((m) => m.process === 'p2').flatMap((m) => [...m.active, ...m.standby]).map((t) => [t, 100]));
    const after: StreamsGroupSpec = {
      ...before,
      processes: before.processes.map((p) => ({
        id: p.id,
        members: p.id === 'p2'
          ? [{ id: 'p2-m3', offsets: onDisk }, { id: 'p2-m4', offsets: onDisk }]
          : first.filter((m) => m.process === p.id).map((m) => ({ id: m.id, active: m.active, standby: m.standby })),
      })),
    };
    const second = assignStreams(shuffled(after, rand)).members();
    const p2Before = first.filter((m) => m.process === 'p2').flatMap((m) => m.active).sort();
    const p2After = second.filter((m) => m.process === 'p2').flatMap((m) => m.active).sort();
    expect(p2After).toEqual(p2Before);
  });
});
