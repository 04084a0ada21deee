// Kafka mode against the behaviours Kafka's own tests pin down
// (ClientTagAwareStandbyTaskAssignorTest, StandbyTaskAssignmentUtilsTest,
// TaskAssignmentUtilsTest in apache/kafka), re-expressed as our own cases (C13 ...
// C31 are our labels for them), and quirks X01-X05 (docs/standby.md).
// Each case runs on every engine.
import { describe, expect, it } from 'vitest';
import { placeStandbys, javaHashMapOrder, parseTaskId, formatTaskId, type ClusterSpec } from '../../src/standby/index.js';
import { cluster, pid, type Node } from './fixtures.js';

const ENGINES = ['reference', 'wasm-scalar', 'wasm-simd'] as const;

function run(spec: ClusterSpec, engine: (typeof ENGINES)[number], mode: 'kafka' | 'balanced' = 'kafka', zeroStandbyGuard = true) {
  return placeStandbys(spec, { mode, engine, zeroStandbyGuard }).report();
}
function standbys(r: ReturnType<typeof run>, task: string): string[] {
  return r.tasks.find((t) => t.task === task)!.standbys.map((s) => s.client);
}
function counts(r: ReturnType<typeof run>): Record<string, number> {
  return Object.fromEntries(r.clients.map((c) => [c.id, c.standby.length]));
}
const P = pid;

describe.each(ENGINES)('kafka mode (%s)', (engine) => {
  it('C13 partial rack awareness: first standby differs on both keys, the second only on zone', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { cluster: 'c1', zone: 'z1' }, active: ['0_0'] },
      { id: P(2), tags: { cluster: 'c1', zone: 'z2' } },
      { id: P(3), tags: { cluster: 'c1', zone: 'z3' } },
      { id: P(4), tags: { cluster: 'c2', zone: 'z1' } },
      { id: P(5), tags: { cluster: 'c2', zone: 'z2' } },
      { id: P(6), tags: { cluster: 'c2', zone: 'z3' }, active: ['1_0'] },
    ];
    const r = run(cluster(nodes, 2, ['cluster', 'zone']), engine);
    // Kafka's test accepts P3 or P6 (and P1 or P4); loads and the id tie-break make it exact.
    expect(standbys(r, '0_0')).toEqual([P(5), P(3)]);
    expect(standbys(r, '1_0')).toEqual([P(2), P(4)]);
    expect(r.assignor).toBe('ClientTagAwareStandbyTaskAssignor');
  });

  it('C14 capacity is a divisor, not a limit: standbys land on clients already at capacity', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { zone: 'z1' }, active: ['0_0', '0_1'] },
      { id: P(2), tags: { zone: 'z2' }, active: ['0_2', '0_3'] },
    ];
    const r = run(cluster(nodes, 1, ['zone']), engine);
    expect(r.totals.standbys).toBe(4);
    expect(counts(r)).toEqual({ [P(1)]: 2, [P(2)]: 2 });
  });

  it('C16 tag entries are (key, value) pairs: equal values under different keys do not collide', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { zone: 'a', cluster: 'b' }, active: ['0_0'] },
      { id: P(2), tags: { zone: 'a', cluster: 'a' } },
      { id: P(3), tags: { zone: 'b', cluster: 'a' } },
    ];
    const r = run(cluster(nodes, 1, ['zone', 'cluster']), engine);
    expect(standbys(r, '0_0')).toEqual([P(3)]);
    expect(r.tasks[0]!.level).toBe('absolute');
  });

  it('C17 / X03 a key with one distinct value is dropped before the first standby', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { zone: 'z1', cluster: 'k' }, active: ['0_0'] },
      { id: P(2), tags: { zone: 'z2', cluster: 'k' } },
      { id: P(3), tags: { zone: 'z3', cluster: 'k' } },
    ];
    const r = run(cluster(nodes, 2, ['zone', 'cluster']), engine);
    // cluster never blocks; zone still spreads the copies: z2 then z3.
    expect(standbys(r, '0_0')).toEqual([P(2), P(3)]);
    expect(r.tasks[0]!.standbys.every((s) => s.differsOn.join() === 'zone')).toBe(true);
  });

  it('X01 no partial search: when no client differs on every live key, the fallback is tag-blind', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { zone: 'z1', cluster: 'c1' }, active: ['0_0'] },
      { id: P(2), tags: { zone: 'z1', cluster: 'c1' } },
      { id: P(3), tags: { zone: 'z2', cluster: 'c1' } },
      { id: P(4), tags: { zone: 'z1', cluster: 'c2' } },
    ];
    const spec = cluster(nodes, 1, ['zone', 'cluster']);
    const k = run(spec, engine);
    expect(standbys(k, '0_0')).toEqual([P(2)]); // identical tags, picked on the id tie-break
    expect(k.tasks[0]!.level).toBe('least');
    expect(k.tasks[0]!.standbys[0]!.why).toMatch(/^kafka mode: a partial placement \(differing on zone\) was free, .*falls back to the least-loaded client \(quirk X01\)/);
    expect(k.tasks[0]!.standbys[0]!.why).not.toMatch(/X02/);
    // P3 had an unused zone and P4 an unused cluster: the report must not say otherwise.
    expect(k.tasks[0]!.standbys[0]!.why).toMatch(/; zone: clients without a copy had an unused zone value, but Kafka's choice was not one of them; cluster: clients without a copy had an unused cluster value/);
    expect(k.tasks[0]!.standbys[0]!.why).not.toMatch(/no client without a copy/);
    const b = run(spec, engine, 'balanced');
    expect(standbys(b, '0_0')).toEqual([P(3)]); // balanced: differs on zone, the higher-precedence key
    expect(b.tasks[0]!.level).toBe('partial');
    expect(b.tasks[0]!.standbys[0]!.why).toBe('cluster: no client without a copy had an unused cluster value while also differing on zone');
  });

  it('X02 a client without a configured key is a wildcard for it', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { zone: 'z1', cluster: 'c1' }, active: ['0_0'] },
      { id: P(2), tags: { cluster: 'c2' } },
      { id: P(3), tags: { zone: 'z2', cluster: 'c2' } },
    ];
    const r = run(cluster(nodes, 1, ['zone', 'cluster']), engine);
    expect(standbys(r, '0_0')).toEqual([P(2)]);
    expect(r.tasks[0]!.standbys[0]!.why).toMatch(/has no zone tag/);
    // Kafka's filter let P2 through (wildcard): the report must not blame the fallback (X01).
    expect(r.tasks[0]!.standbys[0]!.why).toMatch(/^kafka mode: an absolute placement \(differing on zone, cluster\) was free, but Kafka's filter let this less-spread client through.*\(quirk X02\)/);
    expect(r.tasks[0]!.standbys[0]!.why).not.toMatch(/X01/);
  });

  it('X02 exhaustion counts clients used, not values used', () => {
    // zone has 3 values; after the active and a zone-less standby, usedCount = 2 < 3, still live;
    // cluster has 2 values and is exhausted by usedCount = 2 at the second update.
    const nodes: Node[] = [
      { id: P(1), tags: { zone: 'z1', cluster: 'c1' }, active: ['0_0'] },
      { id: P(2), tags: { cluster: 'c2' } },
      { id: P(3), tags: { zone: 'z1', cluster: 'c2' } },
      { id: P(4), tags: { zone: 'z2', cluster: 'c1' } },
      { id: P(5), tags: { zone: 'z3', cluster: 'c2' } },
    ];
    const r = run(cluster(nodes, 2, ['zone', 'cluster']), engine);
    // second standby: zone z1 still excluded, cluster dropped: P4 (z2, c1) beats P5 on the id.
    expect(standbys(r, '0_0')).toEqual([P(2), P(4)]);
  });

  it('X04 numStandbys = 0: nothing with the HA guard; one standby per task without it (tag-aware do-while)', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { zone: 'z1' }, active: ['0_0', '0_1'] },
      { id: P(2), tags: { zone: 'z2' } },
    ];
    expect(run(cluster(nodes, 0, ['zone']), engine).totals.standbys).toBe(0);
    const r = run(cluster(nodes, 0, ['zone']), engine, 'kafka', false);
    expect(standbys(r, '0_0')).toEqual([P(2)]);
    expect(standbys(r, '0_1')).toEqual([P(2)]);
    // The default assignor's while-loop has no such quirk.
    expect(run(cluster(nodes, 0, []), engine, 'kafka', false).totals.standbys).toBe(0);
  });

  it('X05 order sensitivity: sorted TaskId order skews counts where the HashSet order of the unit tests does not', () => {
    const tasks = ['0_0', '0_1', '0_2', '1_0', '1_1', '1_2'];
    const owners = [2, 5, 5, 3, 2, 3];
    const hashOrder = Array.from(javaHashMapOrder(tasks.map((t) => parseTaskId(t, 't'))).order).map((i) => tasks[i]!);
    const build = (names: string[]): Node[] => {
      const nodes: Node[] = [];
      for (let i = 0; i < 6; i++) nodes.push({ id: P(i + 1), tags: { cluster: `c${Math.floor(i / 3)}`, zone: `z${i % 3}` }, active: names.filter((_, t) => owners[t] === i) });
      return nodes;
    };
    const idle = (r: ReturnType<typeof run>) => r.clients.filter((c) => c.active.length === 0).map((c) => c.standby.length);
    // Production order (sorted): 3 / 4 / 2 standbys on the clients without actives.
    expect(idle(run(cluster(build(tasks), 2, ['cluster', 'zone'], tasks), engine))).toEqual([3, 4, 2]);
    // Same cluster, tasks visited in Kafka's HashSet order (simulated by renaming): 3 / 3 / 3.
    const renamed = tasks.map((t) => tasks[hashOrder.indexOf(t)]!);
    expect(idle(run(cluster(build(renamed), 2, ['cluster', 'zone'], tasks), engine))).toEqual([3, 3, 3]);
  });

  it('fallback visits pending tasks in java.util.HashMap order (0_1 before 0_0)', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { zone: 'z1', cluster: 'c1' }, active: ['0_0', '0_1'] },
      { id: P(2), tags: { zone: 'z1', cluster: 'c1' } },
      { id: P(3), tags: { zone: 'z2', cluster: 'c1' } },
      { id: P(4), tags: { zone: 'z1', cluster: 'c2' } },
    ];
    const r = run(cluster(nodes, 1, ['zone', 'cluster']), engine);
    expect(standbys(r, '0_1')).toEqual([P(2)]);
    expect(standbys(r, '0_0')).toEqual([P(3)]);
  });

  it('tie-break is ProcessId order: UUID.compareTo on signed halves (8..f before 0..7)', () => {
    const high = 'f0000000-0000-0000-0000-000000000000';
    const low = '10000000-0000-0000-0000-000000000000';
    const nodes: Node[] = [
      { id: P(1), tags: {}, active: ['0_0'] },
      { id: low, tags: {} },
      { id: high, tags: {} },
    ];
    const r = run(cluster(nodes, 1, []), engine);
    expect(standbys(r, '0_0')).toEqual([high]);
    expect(r.assignor).toBe('DefaultStandbyTaskAssignor');
    // The least significant half is signed too.
    const a = '00000000-0000-0000-8000-000000000000';
    const b = '00000000-0000-0000-0000-000000000001';
    expect(standbys(run(cluster([{ id: P(9), tags: {}, active: ['0_0'] }, { id: b, tags: {} }, { id: a, tags: {} }], 1, []), engine), '0_0')).toEqual([a]);
  });

  it('load = (active + standby) / capacity, stateless actives included (C31)', () => {
    const nodes: Node[] = [
      { id: P(1), tags: {}, active: ['0_0'] },
      { id: P(2), tags: {}, active: ['1_0', '1_1', '1_2'] }, // stateless actives
      { id: P(3), tags: {}, active: ['2_0'], capacity: 1 },
      { id: P(4), tags: {}, active: ['2_1', '2_2'], capacity: 4 },
    ];
    const r = run(cluster(nodes, 1, [], ['0_0']), engine);
    expect(standbys(r, '0_0')).toEqual([P(4)]); // 2/4 < 1/1 < 3/1
  });

  it('C30 tags 1, 1, 2, 3: the two standbys go to the az-2 and az-3 clients', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { az: '1' }, active: ['0_0'] },
      { id: P(2), tags: { az: '1' } },
      { id: P(3), tags: { az: '2' } },
      { id: P(4), tags: { az: '3' } },
    ];
    for (const mode of ['kafka', 'balanced'] as const) expect(standbys(run(cluster(nodes, 2, ['az']), engine, mode), '0_0')).toEqual([P(3), P(4)]);
  });

  it('DefaultStandbyTaskAssignor is greedy: 3 clients, 1 standby each, counts end 2 / 1 / 0', () => {
    const nodes: Node[] = [
      { id: P(1), tags: {}, active: ['0_0'] },
      { id: P(2), tags: {}, active: ['0_1'] },
      { id: P(3), tags: {}, active: ['0_2'] },
    ];
    const k = run(cluster(nodes, 1, []), engine);
    expect(counts(k)).toEqual({ [P(1)]: 2, [P(2)]: 1, [P(3)]: 0 });
    expect(standbys(k, '0_0')).toEqual([P(2)]);
    const b = run(cluster(nodes, 1, []), engine, 'balanced');
    expect(counts(b)).toEqual({ [P(1)]: 1, [P(2)]: 1, [P(3)]: 1 });
  });

  it('a task without an active owner gets its standbys in the fallback', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { zone: 'z1' }, active: ['0_0'] },
      { id: P(2), tags: { zone: 'z2' } },
      { id: P(3), tags: { zone: 'z3' } },
    ];
    const r = run(cluster(nodes, 2, ['zone'], ['0_0', '0_1']), engine);
    expect(standbys(r, '0_0')).toEqual([P(2), P(3)]);
    expect(standbys(r, '0_1')).toEqual([P(1), P(2)]);
  });

  it('more standbys than other clients: places clients - 1 and reports the rest as unplaced', () => {
    const nodes: Node[] = [
      { id: P(1), tags: { zone: 'z1' }, active: ['0_0'] },
      { id: P(2), tags: { zone: 'z2' } },
    ];
    const r = run(cluster(nodes, 3, ['zone']), engine);
    expect(standbys(r, '0_0')).toEqual([P(2)]);
    expect(r.tasks[0]!.unplaced).toBe(2);
    expect(r.warnings.join()).toMatch(/2 of 3 standbys could not be placed/);
  });

  it('existing standbys count in the load and block a second copy', () => {
    const nodes: Node[] = [
      { id: P(1), tags: {}, active: ['0_0', '0_1'] },
      { id: P(2), tags: {}, standby: ['0_0'] },
      { id: P(3), tags: {} },
    ];
    const k = run(cluster(nodes, 1, []), engine);
    expect(standbys(k, '0_0')).toEqual([P(3)]); // Kafka's counter ignores the existing copy
    expect(standbys(k, '0_1')).toEqual([P(2)]);
    const b = run(cluster(nodes, 1, []), engine, 'balanced');
    expect(standbys(b, '0_0')).toEqual([]); // balanced counts it toward num.standby.replicas
    expect(b.tasks[0]!.existing.map((e) => e.client)).toEqual([P(2)]);
  });
});

describe('Kafka orders', () => {
  it('HashSet order of 0_0..1_2 is 1_0, 0_2, 0_1, 1_2, 0_0, 1_1 (as in Kafka unit tests)', () => {
    const tasks = ['0_0', '0_1', '0_2', '1_0', '1_1', '1_2'].map((t) => parseTaskId(t, 't'));
    const h = javaHashMapOrder(tasks);
    expect(Array.from(h.order).map((i) => formatTaskId(tasks[i]!))).toEqual(['1_0', '0_2', '0_1', '1_2', '0_0', '1_1']);
    expect(h.exact).toBe(true);
  });
  it('the table grows past 0.75 load and when a small table gets a 9-entry bucket', () => {
    const many = Array.from({ length: 100 }, (_, i) => parseTaskId(`0_${i}`, 't'));
    const h = javaHashMapOrder(many);
    expect(new Set(h.order).size).toBe(100);
    // 0_0..0_7 plus eight tasks s_s collide in bucket 15 of a 16-table: treeifyBin doubles it.
    const diag = Array.from({ length: 9 }, (_, i) => parseTaskId(`${i}_${i}`, 't'));
    expect(javaHashMapOrder(diag).exact).toBe(true);
  });
});
