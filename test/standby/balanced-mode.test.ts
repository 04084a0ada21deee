// Balanced mode's own rules, on every engine: spread compared key by key in
// precedence order, inside Kafka's range of loads; least loaded among equals; existing standbys count; a missing
// key neither counts as differing nor blocks; loads even out inside tag groups.
import { describe, expect, it } from 'vitest';
import { placeStandbys } from '../../src/standby/index.js';
import { cluster, pid as P, type Node } from './fixtures.js';

const ENGINES = ['reference', 'wasm-scalar', 'wasm-simd'] as const;

describe.each(ENGINES)('balanced mode (%s)', (engine) => {
  const run = (nodes: Node[], S: number, keys: string[], tasks?: string[]) => placeStandbys(cluster(nodes, S, keys, tasks), { engine }).report();
  const first = (r: ReturnType<typeof run>) => r.tasks[0]!.standbys.map((s) => s.client);

  it('spread is compared key by key in precedence order: a new zone beats a new cluster and rack', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { zone: 'z1', cluster: 'c1', rack: 'r1' }, active: ['0_0'] },
      { id: P(2), tags: { zone: 'z2', cluster: 'c1', rack: 'r1' } }, // zone only
      { id: P(3), tags: { zone: 'z1', cluster: 'c2', rack: 'r2' } }, // cluster + rack
    ];
    const r = run(nodes, 1, ['zone', 'cluster', 'rack']);
    expect(first(r)).toEqual([P(2)]);
    expect(r.tasks[0]!.standbys[0]!.differsOn).toEqual(['zone']);
  });

  it('the higher-precedence key wins when the move stays inside Kafka\'s range of loads', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { zone: 'z1', cluster: 'c1' }, active: ['0_0', '2_0'] },
      { id: P(2), tags: { zone: 'z1', cluster: 'c2' } }, // cluster only, idle
      { id: P(3), tags: { zone: 'z2', cluster: 'c1' }, active: ['1_0'] }, // zone only, loaded
      { id: P(4), tags: { zone: 'z1', cluster: 'c1' } }, // idle: Kafka's least loaded client stays at 0
    ];
    // Kafka: no client differs on both, so the tag-blind fallback takes idle P2 (X01).
    expect(first(placeStandbys(cluster(nodes, 1, ['zone', 'cluster'], ['0_0']), { engine, mode: 'kafka' }).report())).toEqual([P(2)]);
    // Balanced: P3 (new zone) ends at load 2, no more than Kafka's most loaded client (P1, 2).
    expect(first(run(nodes, 1, ['zone', 'cluster'], ['0_0']))).toEqual([P(3)]);
    expect(first(run(nodes, 1, ['cluster', 'zone'], ['0_0']))).toEqual([P(2)]);
  });

  it('but never at the price of a load above Kafka\'s most loaded client', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { zone: 'z1', cluster: 'c1' }, active: ['0_0'] },
      { id: P(2), tags: { zone: 'z1', cluster: 'c2' } }, // cluster only, idle
      { id: P(3), tags: { zone: 'z2', cluster: 'c1' }, active: ['1_0', '1_1'] }, // zone only, at Kafka's maximum
    ];
    // P3 would reach load 3 where Kafka's most loaded client has 2: balanced keeps Kafka's choice.
    expect(first(run(nodes, 1, ['zone', 'cluster'], ['0_0']))).toEqual([P(2)]);
  });

  it('among equal tag levels, the least loaded (load = tasks / capacity), then ProcessId', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { zone: 'z1' }, active: ['0_0'] },
      { id: P(2), tags: { zone: 'z2' }, active: ['1_0'] },
      { id: P(3), tags: { zone: 'z2' }, active: ['1_1', '1_2'], capacity: 4 },
      { id: P(4), tags: { zone: 'z2' }, active: ['1_3', '1_4'], capacity: 4 },
    ];
    expect(first(run(nodes, 1, ['zone'], ['0_0']))).toEqual([P(3)]);
  });

  it('existing standbys count toward the target and their values are used', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { zone: 'z1' }, active: ['0_0'] },
      { id: P(2), tags: { zone: 'z2' } },
      { id: P(3), tags: { zone: 'z2' }, standby: ['0_0'] },
      { id: P(4), tags: { zone: 'z3' } },
    ];
    const r = run(nodes, 2, ['zone']);
    expect(r.tasks[0]!.existing.map((e) => e.client)).toEqual([P(3)]);
    expect(first(r)).toEqual([P(4)]); // one more, in the unused zone
    expect(r.tasks[0]!.standbys[0]!.level).toBe('absolute');
  });

  it('a client without a key does not count as differing on it, and does not block others', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { cluster: 'c1' }, active: ['0_0'] },
      { id: P(2), tags: { zone: 'z2', cluster: 'c2' } },
      { id: P(3), tags: { cluster: 'c3' } },
    ];
    const r = run(nodes, 2, ['zone', 'cluster']);
    expect(first(r)).toEqual([P(2), P(3)]);
    expect(r.tasks[0]!.standbys.map((s) => s.level)).toEqual(['absolute', 'partial']);
    expect(r.tasks[0]!.standbys[1]!.why).toMatch(/zone: this client has no zone tag/);
  });

  it('loads even out inside a tag group without changing any level', () => {
    const nodes: Node[] = Array.from({ length: 6 }, (_, i) => ({ id: P(i + 1), tags: { zone: `z${i % 2}` }, active: [`0_${i}`] }));
    const r = run(nodes, 1, ['zone']);
    expect(r.tasks.every((t) => t.level === 'absolute')).toBe(true);
    const counts = r.clients.map((c) => c.standby.length);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  });
});
