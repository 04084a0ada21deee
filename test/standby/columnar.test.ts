// The columnar input (placeStandbysColumnar) against the JSON-shaped one: the
// same placements on both engines and in both modes, from columns whose tag
// value ids are numbered differently from the object path; and bad columns
// rejected with an AssignorError naming the array and element.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AssignorError } from '../../src/errors.js';
import { columnarOf, normalizeCluster, placeCluster, placeStandbysColumnar, type ColumnarCluster, type Mode } from '../../src/standby/index.js';
import { arbCluster, skewedCluster } from './generators.js';

const ENGINES = ['reference', 'wasm'] as const;

/** Renumbers each key's value ids (v -> a permutation of them, spread out): placements must not depend on the numbering. */
function renumbered(col: ColumnarCluster, seed: number): ColumnarCluster {
  const tags = col.tags.map((v) => (v < 0 ? v : ((v * 7919 + seed) % 100003) * 3 + 1));
  return { ...col, tags };
}

function same(col: ColumnarCluster, spec: Parameters<typeof normalizeCluster>[0], mode: Mode, engine: (typeof ENGINES)[number], zeroStandbyGuard: boolean): void {
  const pl = placeCluster(normalizeCluster(spec), mode, { engine, zeroStandbyGuard });
  const c = placeStandbysColumnar(col, { mode, engine, zeroStandbyGuard });
  expect(c.width).toBe(pl.width);
  expect(Array.from(c.slots)).toEqual(Array.from(pl.slots));
  expect(Array.from(c.masks)).toEqual(Array.from(pl.masks));
  expect(c.orderExact).toBe(pl.orderExact);
  expect(c.assignor).toBe(pl.assignor);
}

describe('columnar input: the same placements as the JSON-shaped input', () => {
  for (const engine of ENGINES) {
    it(`random clusters, both modes, existing standbys, missing keys, stateless actives (${engine})`, () => {
      fc.assert(
        fc.property(arbCluster({ existing: true, missingKeys: true, maxClients: 12, maxTasks: 24 }), fc.constantFrom<Mode>('kafka', 'balanced'), fc.boolean(), fc.nat(1000), (spec, mode, guard, seed) => {
          same(renumbered(columnarOf(normalizeCluster(spec)), seed), spec, mode, engine, guard);
        }),
        { numRuns: 200 },
      );
    });

    it(`skewed clusters (${engine})`, () => {
      for (let seed = 1; seed <= 80; seed++) {
        const spec = skewedCluster(seed, { existing: seed % 2 === 0, unowned: seed % 3 === 0 });
        for (const mode of ['kafka', 'balanced'] as const) same(columnarOf(normalizeCluster(spec)), spec, mode, engine, true);
      }
    });
  }
});

describe('columnar input: bad columns', () => {
  const good = (): ColumnarCluster => ({
    keys: 1,
    tags: Int32Array.of(0, 1, 0),
    capacity: Int32Array.of(1, 2, 1),
    subtopology: Int32Array.of(0, 0, 1),
    partition: Int32Array.of(0, 1, 0),
    active: Int32Array.of(0, 1, -1),
    numStandbys: 1,
  });
  const cases: [string, (c: ColumnarCluster) => unknown, string][] = [
    ['keys NaN', (c) => (c.keys = NaN), 'keys'],
    ['keys 6', (c) => (c.keys = 6), 'keys'],
    ['numStandbys negative', (c) => (c.numStandbys = -1), 'numStandbys'],
    ['numStandbys NaN', (c) => (c.numStandbys = NaN), 'numStandbys'],
    ['numStandbys 1.5', (c) => (c.numStandbys = 1.5), 'numStandbys'],
    ['capacity a plain array', (c) => ((c as unknown as { capacity: number[] }).capacity = [1, 1, 1]), 'capacity'],
    ['capacity 0', (c) => (c.capacity[1] = 0), 'capacity[1]'],
    ['capacity too big', (c) => (c.capacity[2] = (1 << 20) + 1), 'capacity[2]'],
    ['tags too short', (c) => (c.tags = Int32Array.of(0, 1)), 'tags'],
    ['tag value -2', (c) => (c.tags[2] = -2), 'tags[2]'],
    ['partition length', (c) => (c.partition = Int32Array.of(0, 1)), 'partition'],
    ['negative subtopology', (c) => (c.subtopology[0] = -1), 'subtopology[0]'],
    ['negative partition', (c) => (c.partition[1] = -5), 'partition[1]'],
    ['tasks out of order', (c) => (c.partition[1] = 0), 'subtopology[1]'],
    ['active out of range', (c) => (c.active[0] = 3), 'active[0]'],
    ['active below -1', (c) => (c.active[1] = -2), 'active[1]'],
    ['active length', (c) => (c.active = Int32Array.of(0)), 'active'],
    ['otherLoad negative', (c) => (c.otherLoad = Int32Array.of(0, -1, 0)), 'otherLoad[1]'],
    ['otherLoad length', (c) => (c.otherLoad = Int32Array.of(0)), 'otherLoad'],
    ['standbyStart without clients', (c) => (c.standbyStart = new Int32Array(4)), 'standbyClients'],
    ['standbyClients without starts', (c) => (c.standbyClients = new Int32Array(0)), 'standbyStart'],
    ['capacity a Float64Array', (c) => ((c as unknown as { capacity: Float64Array }).capacity = new Float64Array(3)), 'capacity'],
    ['standbyStart not ending at the list length', (c) => ((c.standbyStart = Int32Array.of(0, 0, 0, 0)), (c.standbyClients = Int32Array.of(2))), 'standbyStart[3]'],
    ['standbyStart decreasing', (c) => ((c.standbyStart = Int32Array.of(0, 1, 0, 1)), (c.standbyClients = Int32Array.of(2))), 'standbyStart[2]'],
    ['standby client out of range', (c) => ((c.standbyStart = Int32Array.of(0, 1, 1, 1)), (c.standbyClients = Int32Array.of(7))), 'standbyClients[0]'],
    ['standby on the active client', (c) => ((c.standbyStart = Int32Array.of(0, 1, 1, 1)), (c.standbyClients = Int32Array.of(0))), 'standbyClients[0]'],
    ['standby clients not ascending', (c) => ((c.standbyStart = Int32Array.of(0, 0, 0, 2)), (c.standbyClients = Int32Array.of(2, 1))), 'standbyClients[1]'],
  ];
  for (const [name, spoil, path] of cases) {
    it(`${name}: E_INPUT at ${path}`, () => {
      const c = good();
      spoil(c);
      let err: unknown;
      try {
        placeStandbysColumnar(c);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(AssignorError);
      expect((err as AssignorError).code).toBe('E_INPUT');
      expect((err as AssignorError).path).toBe(path);
    });
  }

  it('a good input places', () => {
    const r = placeStandbysColumnar(good(), { engine: 'reference' });
    expect(r.width).toBe(1);
    // 0_0 (active on 0, value 0) -> the only other value; 0_1 (on 1) -> the less loaded value-0 client; 1_0 (no active) -> all tie at load 1, lowest index.
    expect(Array.from(r.slots)).toEqual([1, 2, 0]);
  });
  it('a wrong array is named by its kind and length, not quoted', () => {
    const c = good();
    (c as unknown as { tags: Float64Array }).tags = new Float64Array(2_000_000);
    expect(() => placeStandbysColumnar(c)).toThrow('tags must be an Int32Array, got a Float64Array(2000000)');
    expect(() => placeStandbysColumnar({ ...good(), standbyClients: new Int32Array(0) })).toThrow('existing standbys need both standbyStart and standbyClients (or neither); only standbyClients was given');
  });
  it('columnarOf takes the JSON-shaped input too, and gives what it gives for the normalized cluster', () => {
    const spec = { clients: [{ id: 'a', tags: { zone: 'x' }, active: ['0_0'] }, { id: 'b', tags: { zone: 'y' } }], tasks: ['0_0', '0_1'], numStandbys: 1, tagKeys: ['zone'] };
    expect(columnarOf(spec)).toEqual(columnarOf(normalizeCluster(spec)));
    expect(() => columnarOf({ clients: 'no' } as never)).toThrow(AssignorError);
  });
  it('not an object, and a bad mode', () => {
    expect(() => placeStandbysColumnar(good(), null as never)).toThrow(expect.objectContaining({ code: 'E_USAGE', path: 'options' }));
    expect(() => placeStandbysColumnar(null as unknown as ColumnarCluster)).toThrow(AssignorError);
    expect(() => placeStandbysColumnar(good(), { mode: 'fast' as Mode })).toThrow(/mode must be/);
  });
});
