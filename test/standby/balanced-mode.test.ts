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
    const r = run(nodes, 1, ['zone', 'cluster'], ['0_0']);
    expect(first(r)).toEqual([P(2)]);
    // The report says what the better level would have needed.
    expect(r.tasks[0]!.standbys[0]!.why).toContain(`needed ${P(3)} (differing on zone), the least loaded such client, to reach load 3, above Kafka's most loaded client (2); balanced stays inside Kafka's range`);
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

describe.each(ENGINES)('balanced mode, issue 12 cases (%s)', (engine) => {
  const spreadOf = (r: ReturnType<ReturnType<typeof placeStandbys>['report']>, keys: string[]) =>
    keys.map((k) => {
      const tagsOf = new Map(r.clients.map((c) => [c.id, c.tags]));
      const t = r.tasks[0]!;
      const ids = [t.active!, ...t.standbys.map((s) => s.client)];
      return new Set(ids.map((id) => tagsOf.get(id)![k]).filter((v) => v !== undefined)).size;
    });

  it('chooses the standbys as a set: the pair (zone-0, rack-2) + (zone-1, rack-1), not the greedy first (zone-1, rack-2)', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { zone: 'zone-2', rack: 'rack-0' }, active: ['0_0'] },
      { id: P(2), tags: { zone: 'zone-1', rack: 'rack-2' } }, // first in ProcessId order: a greedy pick takes it
      { id: P(3), tags: { zone: 'zone-0', rack: 'rack-2' } },
      { id: P(4), tags: { zone: 'zone-1', rack: 'rack-1' } },
    ];
    const spec = cluster(nodes, 2, ['zone', 'rack'], ['0_0']);
    const b = placeStandbys(spec, { engine }).report();
    expect(spreadOf(b, ['zone', 'rack'])).toEqual([3, 3]);
    expect(b.tasks[0]!.standbys.map((s) => s.client).sort()).toEqual([P(3), P(4)].sort());
    const k = placeStandbys(spec, { engine, mode: 'kafka' }).report();
    // Kafka takes the first one and can then reach only a new zone: balanced's set is strictly better.
    expect(spreadOf(k, ['zone', 'rack'])).toEqual([3, 2]);
    expect(b.againstKafka!.tasks).toEqual({ better: 1, equal: 0, worse: 0 });
  });

  it('the rare-value reproducer: the single rack=v0 client collects no more standbys than under Kafka, and clients without the key take standbys', () => {
    const tasks = Array.from({ length: 62 }, (_, i) => `${i % 4}_${Math.floor(i / 4)}`);
    const ids = [P(1), P(2), P(3), P(4), P(5), P(6), P(7), P(8), P(9), P(10), P(11), P(12), P(13)];
    const racks = ['v0', 'v1', 'v1', 'v2', 'v2', 'v3', 'v3'];
    const nodes: Node[] = ids.map((id, i) => ({
      id,
      tags: i < racks.length ? { rack: racks[i]! } : ({} as Record<string, string>),
      capacity: i === 0 ? 3 : 1,
      active: tasks.filter((_, t) => t % ids.length === i),
    }));
    const spec = cluster(nodes, 3, ['rack'], tasks);
    const b = placeStandbys(spec, { engine }).report();
    const k = placeStandbys(spec, { engine, mode: 'kafka' }).report();
    const on = (r: typeof b, id: string) => r.clients.find((c) => c.id === id)!.standby.length;
    expect(on(b, P(1))).toBeLessThanOrEqual(on(k, P(1)));
    const keyless = b.clients.filter((c) => c.tags.rack === undefined).reduce((n, c) => n + c.standby.length, 0);
    expect(keyless).toBeGreaterThan(0);
    expect(b.againstKafka!.tasks.worse).toBe(0);
    expect(b.againstKafka!.balanced.countSpread).toBeLessThanOrEqual(b.againstKafka!.kafka.countSpread);
    expect(b.againstKafka!.balanced.loadSpread).toBeLessThanOrEqual(b.againstKafka!.kafka.loadSpread + 1e-9);
    // Clients with the same tags, capacity and actives end within one standby of each other.
    const groups = new Map<string, number[]>();
    b.clients.forEach((c, i) => {
      const key = `${c.tags.rack ?? '-'}/${nodes.find((n) => n.id === c.id)!.capacity}/${nodes.find((n) => n.id === c.id)!.active!.length}`;
      groups.set(key, [...(groups.get(key) ?? []), c.standby.length]);
      void i;
    });
    for (const counts of groups.values()) expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  });
});
