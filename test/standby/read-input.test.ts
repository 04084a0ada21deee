// The byte scanner for cluster.json (read-input.ts) against the general way it stands in for:
// JSON.parse, then normalizeCluster. The guarantee: the scanner either gives up (and the CLI
// then takes the general way, with its errors) or returns exactly the Cluster the general way
// builds. So on random valid clusters it must agree, and on hostile and broken text it must
// never accept what the general way refuses or reads differently.
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { normalizeCluster, placeCluster, type Cluster, type ClusterSpec } from '../../src/standby/index.js';
import { scanCluster } from '../../src/standby/read-input.js';
import { clusterColumns } from '../../src/standby/input-columns.js';
import { isNormalized, type IndexedTask } from '../../src/standby/input.js';
import { benchSpec } from '../../bench/standby-whole.js';
import { arbCluster } from './generators.js';

/** The general way: the CLI's JSON.parse of the UTF-8 text (BOM skipped), then normalizeCluster; undefined when it throws. */
function general(bytes: Buffer): Cluster | undefined {
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  try {
    return normalizeCluster(JSON.parse(bytes.toString('utf8', start)));
  } catch {
    return undefined;
  }
}

/** A Cluster as plain data: its lists and tasks may be getters (normalizeCluster's column clusters). */
function plain(c: Cluster): unknown {
  return {
    numStandbys: c.numStandbys,
    tagKeys: c.tagKeys,
    tasks: c.tasks.map((t) => ({ ...t })),
    // The tags' order is the order of the object's own keys (isDeepStrictEqual ignores a Map's order).
    clients: c.clients.map((x) => ({ id: x.id, key: x.key, tags: [...x.tags], capacity: x.capacity, inputIndex: x.inputIndex, active: x.active.map((t) => ({ ...t })), standby: x.standby.map((t) => ({ ...t })) })),
  };
}

/** Same clusters, the same columns when both have them (flatten reads those), and registered as normalized. */
function expectSame(got: Cluster, want: Cluster): void {
  expect(isDeepStrictEqual(plain(got), plain(want))).toBe(true);
  expect(isNormalized(got)).toBe(true);
  const g = clusterColumns(got), w = clusterColumns(want);
  expect(g).toBeDefined();
  if (w !== undefined) expect(isDeepStrictEqual(g, w)).toBe(true);
  // Every stateful task in a client's list is the object in `tasks` at its index.
  for (const c of got.clients) {
    for (const t of [...c.active, ...c.standby]) {
      const i = (t as IndexedTask).index;
      if (i >= 0) expect(got.tasks[i]).toBe(t);
    }
  }
}

/** Accepted only when the general way accepts the same text and builds an equal Cluster. */
function neverDiffers(bytes: Buffer): 'scanned' | 'gave up' {
  const got = scanCluster(bytes);
  if (got === undefined) return 'gave up';
  const want = general(bytes);
  expect(want, `the scanner accepted what the general way refuses: ${bytes.toString('utf8').slice(0, 300)}`).toBeDefined();
  expectSame(got, want!);
  return 'scanned';
}

// Strings that JSON escapes, that are special as object keys, non-ASCII, or lone surrogates.
const HOSTILE = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '"q"', 'back\\slash', 'new\nline', 'é', 'ß日本', '😀', '\u2028', '\ud800', '0', '17', '4294967295', '01', '-1', ' sp '];

/** Shuffles the fields of every object (the scanner must not depend on field order), then prints with `indent`. */
function print(spec: ClusterSpec, pick: (n: number) => number, indent: string | number): string {
  const shuffle = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(shuffle);
    if (v instanceof Map) return shuffle(Object.fromEntries(v));
    if (typeof v !== 'object' || v === null) return v;
    const entries = Object.entries(v).filter(([, x]) => x !== undefined);
    for (let i = entries.length - 1; i > 0; i--) {
      const j = pick(i + 1);
      [entries[i], entries[j]] = [entries[j]!, entries[i]!];
    }
    // An object built by assignment keeps the shuffled order for non-index keys.
    const out: Record<string, unknown> = {};
    for (const [k, x] of entries) Object.defineProperty(out, k, { value: shuffle(x), enumerable: true, writable: true, configurable: true });
    return out;
  };
  return JSON.stringify(shuffle(spec), null, indent);
}

function rename(spec: ClusterSpec, pick: (n: number) => number): ClusterSpec {
  const h = (): string => HOSTILE[pick(HOSTILE.length)]!;
  const keyName = new Map<string, string>();
  for (const k of spec.tagKeys ?? []) {
    let name = pick(2) === 0 ? k : h().slice(0, 18);
    while ([...keyName.values()].includes(name)) name += 'x';
    keyName.set(k, name);
  }
  return {
    ...spec,
    tagKeys: (spec.tagKeys ?? []).map((k) => keyName.get(k)!),
    clients: spec.clients.map((c, i) => ({
      ...c,
      id: pick(3) === 0 ? `${h()}${i}` : c.id,
      tags: Object.fromEntries(Object.entries((c.tags ?? {}) as Record<string, string>).map(([k, v]) => [keyName.get(k) ?? k, pick(3) === 0 ? `${h()}${v}`.slice(0, 30) : v])),
    })),
  };
}

const seeded = (seed: number): ((n: number) => number) => {
  let s = seed | 0;
  return (n) => {
    s = (Math.imul(s, 1103515245) + 12345) | 0;
    return (s >>> 8) % n;
  };
};

describe('scanCluster: the Cluster normalizeCluster builds, or it gives up', () => {
  it('random valid clusters, any field order and layout: the same Cluster, shared task objects included', () => {
    let scanned = 0;
    let runs = 0;
    fc.assert(
      fc.property(arbCluster({ existing: true, missingKeys: true, maxClients: 12, maxTasks: 40 }), fc.integer(), fc.constantFrom<string | number>(0, 2, '\t', ' \r\n'), fc.boolean(), (spec, seed, indent, bom) => {
        const pick = seeded(seed);
        const text = print(spec, pick, indent);
        const bytes = Buffer.concat([Buffer.from(bom ? [0xef, 0xbb, 0xbf] : []), Buffer.from(text, 'utf8')]);
        runs++;
        if (neverDiffers(bytes) === 'scanned') scanned++;
      }),
      { numRuns: 300 },
    );
    // The plain shape is what arbCluster writes: the scanner takes (nearly) all of it.
    expect(scanned).toBeGreaterThan(runs * 0.9);
  });

  it('hostile ids, tag keys and values (escapes, non-ASCII, __proto__, index-like keys)', () => {
    let scanned = 0;
    fc.assert(
      fc.property(arbCluster({ existing: true, missingKeys: true }), fc.integer(), (spec, seed) => {
        const pick = seeded(seed);
        if (neverDiffers(Buffer.from(print(rename(spec, pick), pick, pick(2) * 2), 'utf8')) === 'scanned') scanned++;
      }),
      { numRuns: 300 },
    );
    expect(scanned).toBeGreaterThan(0);
  });

  // Edits that make the text wrong, or right in a way the scanner does not read.
  const EDITS: ((text: string, pick: (n: number) => number) => string)[] = [
    (t, p) => t.slice(0, p(t.length + 1)), // truncated
    (t, p) => { const i = p(t.length + 1); return t.slice(0, i) + t.slice(i + 1); }, // a byte deleted
    (t, p) => { const i = p(t.length + 1); return t.slice(0, i) + ' ,:[]{}"\\0_1-e.x\u00e9\u0000'[p(17)]! + t.slice(i); }, // a character inserted
    (t, p) => t.replace(/\d+/g, (m) => (p(6) === 0 ? ['1e3', '-0', '1.0', '2147483648', '01', '4294967296', '-1', '0.5', '1E0'][p(9)]! : m)), // numbers written otherwise
    (t, p) => t.replace(/"(id|tags|capacity|active|standby|tasks|numStandbys|tagKeys|clients)":/g, (m) => (p(5) === 0 ? `${m}null,${m}` : m)), // a field repeated (JSON.parse keeps the last)
    (t, p) => t.replace(/"(\d+)_(\d+)"/g, (m, s, q) => (p(8) === 0 ? [`"${s}_${s}"`, `"0${s}_${q}"`, `"${s}_${q}\\u0030"`, `"${s}\\u005f${q}"`, `"${s}_${q}_"`, `"${s}__${q}"`, `"${'9'.repeat(11)}_${q}"`][p(7)]! : m)), // task ids bent
    (t, p) => t.replace(/"tags":\{/g, (m) => (p(3) === 0 ? `${m}"__proto__":"x",` : p(3) === 0 ? `${m}"7":"x",` : m)),
    (t, p) => t.replace(/\{"id"/g, (m) => (p(4) === 0 ? `{"properties":{},"id"` : p(4) === 0 ? `{"__proto__":1,"id"` : m)),
    (t, p) => t.replace(/\[/g, (m) => (p(10) === 0 ? '['.repeat(2000) + ']'.repeat(1999) + ',' : m)), // deep nesting
    (t) => `${t} x`,
    (t) => `\ufeff${t}`, // a BOM as a character: not JSON whitespace
  ];

  it('broken and unusual text: never accepted unless the general way reads the same Cluster', () => {
    fc.assert(
      fc.property(arbCluster({ existing: true, missingKeys: true, maxClients: 6, maxTasks: 12 }), fc.array(fc.nat(EDITS.length - 1), { minLength: 1, maxLength: 3 }), fc.integer(), (spec, edits, seed) => {
        const pick = seeded(seed);
        let text = print(spec, pick, pick(2) * 2);
        for (const e of edits) text = EDITS[e]!(text, pick);
        neverDiffers(Buffer.from(text, 'utf8'));
      }),
      { numRuns: 1500 },
    );
  });

  it('bytes that are not UTF-8, anywhere: the same decoding as the whole file, or it gives up', () => {
    fc.assert(
      fc.property(arbCluster({ maxClients: 5, maxTasks: 8 }), fc.uint8Array({ minLength: 1, maxLength: 4 }), fc.nat(), (spec, junk, at) => {
        const bytes = Buffer.from(JSON.stringify(spec), 'utf8');
        const i = at % (bytes.length + 1);
        neverDiffers(Buffer.concat([bytes.subarray(0, i), Buffer.from(junk.map((b) => b | 0x80)), bytes.subarray(i)]));
        // Inside a client id, high bytes are data: the id decodes as the whole file would.
        const id = bytes.indexOf('"id":"');
        if (id >= 0) neverDiffers(Buffer.concat([bytes.subarray(0, id + 6), Buffer.from(junk.map((b) => b | 0x80)), bytes.subarray(id + 6)]));
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ['a task listed twice', '{"clients":[{"id":"a","active":["0_0","0_0"]}]}'],
    ['a task listed twice in tasks', '{"clients":[],"tasks":["0_0","00_0"]}'],
    ['a standby listed twice', '{"clients":[{"id":"a","standby":["0_0","0_0"]}],"tasks":["0_0"]}'],
    ['a task active on two clients', '{"clients":[{"id":"a","active":["0_0"]},{"id":"b","active":["0_0"]}]}'],
    ['active and standby on one client', '{"clients":[{"id":"a","active":["0_0"],"standby":["0_0"]}],"tasks":["0_0"]}'],
    ['a standby of a task outside tasks', '{"clients":[{"id":"a","standby":["0_1"]}],"tasks":["0_0"]}'],
    ['a client id used twice (case of a UUID)', '{"clients":[{"id":"00000000-0000-0000-0000-00000000000a"},{"id":"00000000-0000-0000-0000-00000000000A"}]}'],
    ['an empty client id', '{"clients":[{"id":""}]}'],
    ['a client without id', '{"clients":[{"capacity":2}]}'],
    ['capacity 0', '{"clients":[{"id":"a","capacity":0}]}'],
    ['capacity above 2^20', '{"clients":[{"id":"a","capacity":1048577}]}'],
    ['numStandbys 2^31', '{"clients":[],"numStandbys":2147483648}'],
    ['numStandbys -0', '{"clients":[],"numStandbys":-0}'],
    ['numStandbys 1e0', '{"clients":[],"numStandbys":1e0}'],
    ['six tag keys', '{"clients":[],"tagKeys":["a","b","c","d","e","f"]}'],
    ['a repeated tag key', '{"clients":[],"tagKeys":["a","a"]}'],
    ['a tag value over 30 characters', `{"clients":[{"id":"a","tags":{"z":"${'v'.repeat(31)}"}}],"tagKeys":["z"]}`],
    ['six tags on a client', '{"clients":[{"id":"a","tags":{"a":"1","b":"1","c":"1","d":"1","e":"1","f":"1"}}]}'],
    ['a tag value that is not a string', '{"clients":[{"id":"a","tags":{"z":1}}],"tagKeys":["z"]}'],
    ['an unknown field', '{"clients":[],"numStandby":1}'],
    ['shared properties', '{"clients":[],"properties":{"num.standby.replicas":"1"}}'],
    ['a repeated field', '{"clients":[],"numStandbys":1,"numStandbys":2}'],
    ['a task id with 11 digits', '{"clients":[{"id":"a","active":["12345678901_0"]}]}'],
    ['a task id above 2^31-1', '{"clients":[{"id":"a","active":["0_2147483648"]}]}'],
    ['a task id with an escape', '{"clients":[{"id":"a","active":["0\\u005f1"]}]}'],
    ['an id with an escape', '{"clients":[{"id":"a\\"b"}]}'],
    ['a control character in a string', '{"clients":[{"id":"a\u0001b"}]}'],
    ['trailing text', '{"clients":[]} {}'],
    ['not an object', '[]'],
    ['no clients', '{}'],
    ['clients null', '{"clients":null}'],
    ['tags null', '{"clients":[{"id":"a","tags":null}]}'],
    ['an index-like tag key (object key order differs)', '{"clients":[{"id":"a","tags":{"b":"1","7":"2"}}]}'],
  ])('gives up on %s', (_, text) => {
    expect(scanCluster(Buffer.from(text, 'utf8'))).toBeUndefined();
  });

  it('reads the plain shape at the edges of its ranges', () => {
    for (const text of [
      '{"clients":[]}',
      ' \t\r\n{ "clients" : [ ] } \n',
      '{"clients":[{"id":"a","capacity":1048576,"active":["2147483647_2147483647","0000000000_0"]}],"numStandbys":2147483647}',
      '{"clients":[{"id":"a","active":["01_2"]},{"id":"b","standby":["1_2"]}],"tasks":["1_02"]}',
      '{"tagKeys":["__proto__","constructor"],"clients":[{"id":"é😀","tags":{"__proto__":"x","constructor":"日本"}},{"id":"b","tags":{}}],"numStandbys":0}',
      '{"clients":[{"id":"b","active":["1_5","0_9"]},{"id":"00000000-0000-0000-0000-00000000000A"},{"id":"f0000000-0000-0000-0000-000000000000"}]}',
      '{"clients":[{"id":"a","active":["3_1000000","3_0","1_7"]}]}', // sparse partitions
      `{"clients":[{"id":"a","active":[${Array.from({ length: 300 }, (_, i) => `"${i * 7919}_${2147483647 - i}"`).join(',')}]}]}`, // beyond the dense arrays' budget
    ]) {
      const bytes = Buffer.from(text, 'utf8');
      expect(neverDiffers(bytes), text.slice(0, 80)).toBe('scanned');
    }
  });

  it("the benchmark's cluster: scanned, the same Cluster and the same placement", () => {
    const spec = benchSpec(200, 20_000);
    const bytes = Buffer.from(JSON.stringify(spec), 'utf8');
    const got = scanCluster(bytes)!;
    expect(got).toBeDefined();
    const want = normalizeCluster(spec);
    expectSame(got, want);
    expect(Array.from(placeCluster(got, 'balanced').slots)).toEqual(Array.from(placeCluster(want, 'balanced').slots));
  });
});
