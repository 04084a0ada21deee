// The streamed JSON report (report-json.ts) against the report it replaces:
// `${JSON.stringify(buildReport(...), null, 2)}\n`, with Kafka's placement of the
// same input computed separately, as before. Byte for byte, on random clusters
// whose ids, tag keys and tag values need JSON escaping or look like object keys.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeCluster, placeCluster, type ClusterSpec, type Mode, type StandbyPlacement } from '../../src/standby/index.js';
import { buildReport } from '../../src/standby/report.js';
import { arbCluster, skewedCluster } from './generators.js';
import { reportJson } from '../../src/standby/report-json.js';

const ENGINES = ['reference', 'wasm'] as const;

function oldJson(pl: StandbyPlacement, engine: string): string {
  const kafka = pl.mode === 'balanced' ? placeCluster(pl.cluster, 'kafka', { engine: engine as 'wasm', zeroStandbyGuard: true }) : undefined;
  return `${JSON.stringify(buildReport(pl, kafka), null, 2)}\n`;
}

function newJson(pl: StandbyPlacement, chunk: number): Buffer {
  return Buffer.concat([...pl.reportJson(chunk)]);
}

// Strings that JSON must escape, or that behave specially as object keys.
const HOSTILE = ['__proto__', 'constructor', '"q"', 'back\\slash', 'new\nline', 'tab\t', '\u2028', '\ud800lone', 'é', '0', '17', '4294967295', '01', 'toString'];

/** Renames ids (plain ones only: UUIDs stay UUIDs), tag keys and tag values with hostile strings. */
function hostile(spec: ClusterSpec, pick: (n: number) => number): ClusterSpec {
  const keyName = new Map<string, string>();
  for (const k of spec.tagKeys ?? []) {
    let name = HOSTILE[pick(HOSTILE.length)]!;
    while ([...keyName.values()].includes(name)) name += 'x';
    keyName.set(k, name);
  }
  const rename = (v: string): string => `${HOSTILE[pick(HOSTILE.length)]!.slice(0, 20)}${v}`.slice(0, 30);
  const values = new Map<string, string>();
  return {
    ...spec,
    tagKeys: (spec.tagKeys ?? []).map((k) => keyName.get(k)!),
    clients: spec.clients.map((c, i) => {
      const tags = new Map<string, string>();
      for (const [k, v] of Object.entries((c.tags ?? {}) as Record<string, string>)) {
        if (!values.has(v)) values.set(v, rename(`${values.size}`));
        tags.set(keyName.get(k) ?? k, values.get(v)!);
      }
      const id = /^[0-9a-f-]{36}$/i.test(c.id) ? c.id : `${HOSTILE[pick(HOSTILE.length)]}#${i}`;
      return { ...c, id, tags };
    }),
  };
}

function check(spec: ClusterSpec, mode: Mode, engine: (typeof ENGINES)[number], chunk: number): void {
  const pl = placeCluster(normalizeCluster(spec), mode, { engine });
  const want = Buffer.from(oldJson(pl, engine), 'utf8');
  const got = newJson(pl, chunk);
  // toBe on the text first: a failure then shows where the two differ.
  expect(got.toString('utf8')).toBe(want.toString('utf8'));
  expect(got.equals(want)).toBe(true);
}

describe('streamed JSON report: the same bytes as JSON.stringify of the report objects', () => {
  for (const engine of ENGINES) {
    it(`random clusters, both modes, existing standbys, missing keys (${engine})`, () => {
      fc.assert(
        fc.property(arbCluster({ existing: true, missingKeys: true, maxClients: 12, maxTasks: 20 }), fc.constantFrom<Mode>('kafka', 'balanced'), fc.integer({ min: 1, max: 300 }), (spec, mode, chunk) => {
          check(spec, mode, engine, chunk);
        }),
        { numRuns: 150 },
      );
    });

    it(`hostile ids, tag keys and values (${engine})`, () => {
      fc.assert(
        fc.property(arbCluster({ existing: true, missingKeys: true }), fc.constantFrom<Mode>('kafka', 'balanced'), fc.integer(), (spec, mode, seed) => {
          let s = seed | 0;
          const pick = (n: number): number => {
            s = (Math.imul(s, 1103515245) + 12345) | 0;
            return (s >>> 8) % n;
          };
          check(hostile(spec, pick), mode, engine, 1 << 20);
        }),
        { numRuns: 150 },
      );
    });

    it(`skewed clusters (unowned tasks, unplaceable copies, warnings) (${engine})`, () => {
      for (let seed = 1; seed <= 60; seed++) {
        const spec = skewedCluster(seed, { existing: seed % 2 === 0, unowned: seed % 3 === 0 });
        for (const mode of ['kafka', 'balanced'] as const) check(spec, mode, engine, 4096);
      }
    });
  }

  it('numStandbys up to 2^31-1: every task ends with its own askedFor, unplaced and level', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1 << 17, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 6 }), fc.constantFrom<Mode>('kafka', 'balanced'), (S, C, T, mode) => {
        const clients = Array.from({ length: C }, (_, c) => ({ id: `c${c}`, tags: { zone: `z${c % 2}` }, active: Array.from({ length: T }, (_, t) => `0_${t}`).filter((_, t) => t % C === c) }));
        check({ clients, tasks: Array.from({ length: T }, (_, t) => `0_${t}`), numStandbys: S, tagKeys: ['zone'] }, mode, 'wasm', 64);
      }),
      { numRuns: 40 },
    );
    check({ clients: [{ id: 'a', active: ['0_0'] }, { id: 'b' }], tasks: ['0_0', '0_1'], numStandbys: 2 ** 31 - 1 }, 'kafka', 'wasm', 64);
  });

  it('reuse: each piece holds its bytes until the piece after the next one is built, and together they are the report', () => {
    fc.assert(
      fc.property(arbCluster({ existing: true, missingKeys: true, maxClients: 12, maxTasks: 30 }), fc.constantFrom<Mode>('kafka', 'balanced'), fc.integer({ min: 1, max: 200 }), (spec, mode, chunk) => {
        const pl = placeCluster(normalizeCluster(spec), mode);
        const want = Buffer.concat([...pl.reportJson(chunk)]);
        const pieces: Uint8Array[] = [];
        const copies: Buffer[] = [];
        for (const piece of reportJson(pl, pl.kafka(), chunk, undefined, { reuse: true })) {
          // The piece before this one is still intact (a writer may still be writing it).
          if (pieces.length > 0) expect(Buffer.from(pieces.at(-1)!).equals(copies.at(-1)!)).toBe(true);
          pieces.push(piece);
          copies.push(Buffer.from(piece));
        }
        expect(Buffer.concat(copies).equals(want)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('a chunk size that is not a whole number from 1 to 2^30 is refused with E_RANGE', () => {
    const pl = placeCluster(normalizeCluster({ clients: [{ id: 'a', active: ['0_0'] }, { id: 'b' }], tasks: ['0_0'], numStandbys: 1 }), 'kafka');
    for (const bad of [NaN, 0, -5, 2.5, 2 ** 31, '100' as unknown as number]) {
      expect(() => [...pl.reportJson(bad)]).toThrow(expect.objectContaining({ code: 'E_RANGE' }));
    }
  });

  it('an empty cluster and a cluster without tasks', () => {
    check({ clients: [{ id: 'a' }], numStandbys: 1 }, 'balanced', 'wasm', 10);
    check({ clients: [{ id: 'a', tags: { '1': 'x', b: 'y', '0': 'z' } }, { id: 'b', active: ['0_0'] }], tasks: ['0_0'], numStandbys: 1, tagKeys: ['b'] }, 'kafka', 'wasm', 10);
  });

  it("balanced reuses its first phase as Kafka's placement when there are no existing standbys", () => {
    for (let seed = 1; seed <= 80; seed++) {
      const cluster = normalizeCluster(skewedCluster(seed, { unowned: seed % 3 === 0 }));
      for (const engine of ENGINES) {
        const reused = placeCluster(cluster, 'balanced', { engine }).kafka()!;
        const fresh = placeCluster(cluster, 'kafka', { engine });
        expect(Array.from(reused.slots)).toEqual(Array.from(fresh.slots));
        expect(Array.from(reused.masks)).toEqual(Array.from(fresh.masks));
        expect(reused.totals()).toEqual(fresh.totals());
      }
    }
  });
});
