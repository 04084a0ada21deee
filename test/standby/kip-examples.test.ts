// The KIP-708 worked examples (the KIP's "Example of standby task allocation"): 3 clusters x 3 zones (absolute),
// 2 clusters x 3 zones (partially preferred), 2 clusters x 2 zones (least
// preferred), active task 0_0 on Node-1, two standbys, in both modes and on
// every engine.
import { describe, expect, it } from 'vitest';
import { placeStandbys } from '../../src/standby/index.js';
import { cluster, grid } from './fixtures.js';

const ENGINES = ['reference', 'wasm-scalar', 'wasm-simd'] as const;
const MODES = ['kafka', 'balanced'] as const;

function standbysOf(c: ReturnType<typeof cluster>, mode: (typeof MODES)[number], engine: (typeof ENGINES)[number]) {
  const r = placeStandbys(c, { mode, engine }).report();
  return r.tasks[0]!;
}

describe.each(MODES)('KIP-708 examples, %s mode', (mode) => {
  it.each(ENGINES)('absolute preferred: 3 clusters x 3 zones (%s)', (engine) => {
    const t = standbysOf(cluster(grid(3, 3), 2, ['cluster', 'zone']), mode, engine);
    const ids = t.standbys.map((s) => s.client);
    // The KIP lists Node-5 + Node-9 or Node-6 + Node-8; equal loads pick the smaller id first.
    expect([['Node-5', 'Node-9'], ['Node-6', 'Node-8']]).toContainEqual(ids);
    expect(ids).toEqual(['Node-5', 'Node-9']);
    expect(t.standbys.map((s) => s.level)).toEqual(['absolute', 'absolute']);
    expect(t.level).toBe('absolute');
  });

  it.each(ENGINES)('partially preferred: 2 clusters x 3 zones, zone first (%s)', (engine) => {
    const t = standbysOf(cluster(grid(2, 3), 2, ['zone', 'cluster']), mode, engine);
    const ids = t.standbys.map((s) => s.client);
    // KIP: Node-5, then LL(Node-3, Node-6): a third zone, cluster already used up.
    expect(ids[0]).toBe('Node-5');
    expect(['Node-3', 'Node-6']).toContain(ids[1]);
    expect(ids[1]).toBe('Node-3');
    expect(t.standbys[1]!.level).toBe('partial');
    expect(t.standbys[1]!.differsOn).toEqual(['zone']);
    expect(t.standbys[1]!.why).toMatch(/cluster: all 2 values/);
    expect(t.level).toBe('partial');
  });

  it.each(ENGINES)('least preferred: 2 clusters x 2 zones (%s)', (engine) => {
    // The KIP's prose says "three availability zones" but then "only two distinct
    // zones available"; the placement it shows (Node-4, then LL(Node-2, Node-3)) is the 2 x 2 grid.
    const t = standbysOf(cluster(grid(2, 2), 2, ['zone', 'cluster']), mode, engine);
    const ids = t.standbys.map((s) => s.client);
    expect(ids[0]).toBe('Node-4');
    expect(['Node-2', 'Node-3']).toContain(ids[1]);
    expect(t.standbys.map((s) => s.level)).toEqual(['absolute', 'least']);
    expect(t.level).toBe('least');
  });
});

describe('KIP example totals', () => {
  it('reports totals per level', () => {
    const r = placeStandbys(cluster(grid(2, 3), 2, ['zone', 'cluster'])).report();
    expect(r.totals.standbyLevels).toEqual({ absolute: 1, partial: 1, least: 0, untagged: 0 });
    expect(r.totals.taskLevels.partial).toBe(1);
    expect(r.totals.unplaced).toBe(0);
  });
});
