// normalizeCluster (typed-array task table, hand-written id scanner) against the
// previous implementation (input-reference.ts: string-keyed Map, regex per new id,
// Sets per list): same output, same object sharing, same first error on random
// inputs with valid, odd and malformed task ids.
import { describe, expect, it } from 'vitest';
import { normalizeObjects } from '../../src/standby/input.js';
import { normalizeCluster } from '../../src/standby/normalize.js';
import { normalizeCluster as referenceBeforeNulls } from './input-reference.js';
import { parseTaskId, scanTaskId, scanned } from '../../src/standby/task-id.js';
import { AssignorError } from '../../src/errors.js';
import { clusterColumns } from '../../src/standby/input-columns.js';
import { flatten } from '../../src/standby/problem.js';


/**
 * Issue 34's one rule, applied in front of the readers that predate it (the reference, kept
 * verbatim, and normalizeObjects, which normalizeCluster calls after the rule): an optional field
 * written as null is left out, at the top and in each client.
 */
function withoutNulls(spec: unknown): unknown {
  const drop = (o: unknown): unknown => {
    if (typeof o !== 'object' || o === null || Array.isArray(o)) return o;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) if (v !== null) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    return out;
  };
  const top = drop(spec);
  if (typeof top === 'object' && top !== null && Array.isArray((top as { clients?: unknown }).clients)) {
    const t = top as { clients: unknown[] };
    t.clients = t.clients.map(drop);
  }
  return top;
}

function referenceNormalize(spec: unknown): ReturnType<typeof referenceBeforeNulls> {
  return referenceBeforeNulls(withoutNulls(spec));
}

let seed = 0x2545f491;
function rnd(n: number): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) % n;
}

const ODD: unknown[] = [
  '01_2', '00_0', '0_00', '1_02', '2147483647_0', '0_2147483647', '2147483648_1', '1_2147483648', '99999999999_1', '1_99999999999',
  '0000000001_1', '00000000001_1', '1_0000000001', '1_', '_1', '_', '', '1__2', '1_2_3', 'a_1', ' 1_2', '1_2 ', '1_2\n', '\uff11_2',
  '-1_2', '+1_2', '1.0_2', '1e1_2', '0x1_2', 12, null, true, {}, ['1_2'], undefined, '9999999999_9999999999', '4294967295_0',
];

function taskId(): unknown {
  const r = rnd(20);
  if (r === 0) return ODD[rnd(ODD.length)];
  if (r === 1) return `${'0'.repeat(rnd(3))}${rnd(3)}_${'0'.repeat(rnd(3))}${rnd(6)}`;
  return `${rnd(3)}_${rnd(6)}`;
}

function list(max: number): unknown[] {
  const n = rnd(max + 1);
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) out.push(taskId());
  return out;
}

function randomSpec(): Record<string, unknown> {
  const clients: Record<string, unknown>[] = [];
  const n = 1 + rnd(5);
  for (let c = 0; c < n; c++) {
    const client: Record<string, unknown> = { id: rnd(30) === 0 ? `c${rnd(2)}` : `c${c}` };
    if (rnd(4) !== 0) client.active = list(4);
    if (rnd(3) === 0) client.standby = list(3);
    if (rnd(40) === 0) client.active = '0_1';
    if (rnd(60) === 0) client[rnd(2) === 0 ? 'active' : 'standby'] = rnd(2) === 0 ? null : { 0: '0_1', length: 1 };
    if (rnd(6) === 0) client.capacity = 1 + rnd(3);
    clients.push(client);
  }
  const spec: Record<string, unknown> = { clients, numStandbys: rnd(3) };
  if (rnd(2) === 0) spec.tasks = list(12);
  return spec;
}

/** Everything observable, with task objects replaced by their order of first appearance (so sharing is compared too). */
function snapshot(run: () => ReturnType<typeof normalizeCluster>): unknown {
  try {
    const c = run();
    const seen = new Map<object, number>();
    const ref = (t: object & { subtopology: number; partition: number; index?: number }) => {
      if (!seen.has(t)) seen.set(t, seen.size);
      return [seen.get(t), t.subtopology, t.partition, t.index];
    };
    return {
      tasks: c.tasks.map(ref),
      clients: c.clients.map((x) => ({ id: x.id, key: x.key, tags: [...x.tags], capacity: x.capacity, active: x.active.map(ref), standby: x.standby.map(ref), inputIndex: x.inputIndex })),
      numStandbys: c.numStandbys,
      tagKeys: c.tagKeys,
      indexFields: c.tasks.map((t, i) => (t as unknown as { index: number }).index === i),
    };
  } catch (e) {
    if (!(e instanceof AssignorError)) throw e;
    return { code: e.code, message: e.message, path: e.path };
  }
}

describe('normalizeCluster equals the previous implementation', () => {
  it('on 5,000 random inputs (valid, duplicate, odd and malformed task ids)', () => {
    let errors = 0;
    for (let i = 0; i < 5000; i++) {
      const spec = randomSpec();
      const want = snapshot(() => referenceNormalize(spec));
      const got = snapshot(() => normalizeCluster(spec));
      expect(got, JSON.stringify(spec)).toEqual(want);
      if ('code' in (want as object)) errors++;
    }
    // Both outcomes are exercised.
    expect(errors).toBeGreaterThan(500);
    expect(errors).toBeLessThan(4500);
  });

  it('on inputs large enough to grow the task table (and a duplicate or clash at the end)', () => {
    for (const tail of [[], ['3_77'], ['03_0077']]) {
      const clients = Array.from({ length: 7 }, (_, c) => ({ id: `c${c}`, active: [] as string[], standby: [] as string[] }));
      const tasks: string[] = [];
      for (let t = 0; t < 9000; t++) {
        const id = `${t % 5}_${Math.floor(t / 5)}`;
        tasks.push(id);
        clients[t % 7]!.active.push(id);
        if (t % 3 === 0) clients[(t + 1) % 7]!.standby.push(id);
      }
      clients[6]!.active.push(...tail);
      // A short `tasks` makes the task table's size hint too small, so it grows while the clients are read.
      for (const spec of [{ clients, tasks }, { clients }, { clients, tasks: tasks.slice(0, 10) }]) {
        expect(snapshot(() => normalizeCluster(spec))).toEqual(snapshot(() => referenceNormalize(spec)));
      }
    }
  });

  it('finds a duplicate after the task table grew within the same list', () => {
    const active = Array.from({ length: 5000 }, (_, t) => `${t % 3}_${t}`);
    for (const dup of ['0_0', '00_0', '2_4999', '1_5000']) {
      const spec = { clients: [{ id: 'a', active: [...active, dup] }, { id: 'b', standby: ['1_1', dup] }], tasks: [] };
      expect(snapshot(() => normalizeCluster(spec))).toEqual(snapshot(() => referenceNormalize(spec)));
      const all = { clients: spec.clients };
      expect(snapshot(() => normalizeCluster(all))).toEqual(snapshot(() => referenceNormalize(all)));
    }
  });

  it('scanTaskId accepts exactly what parseTaskId accepts, with the same numbers', () => {
    const texts: string[] = ODD.filter((x): x is string => typeof x === 'string');
    for (let i = 0; i < 20000; i++) {
      const len = rnd(24);
      let s = '';
      for (let j = 0; j < len; j++) s += '0123456789_0123456789_x-'[rnd(24)];
      texts.push(s);
    }
    for (const t of texts) {
      let want: { subtopology: number; partition: number } | null;
      try {
        want = parseTaskId(t, 'x');
      } catch {
        want = null;
      }
      const ok = scanTaskId(t);
      expect(ok, JSON.stringify(t)).toBe(want !== null);
      if (ok) expect({ ...scanned }).toEqual(want);
    }
  });
});

describe('the columnar fast path of normalizeCluster', () => {
  it('takes every valid input, and flattens and columnizes it as the object path does', () => {
    let valid = 0;
    for (let i = 0; i < 3000; i++) {
      const spec = randomSpec();
      let want: ReturnType<typeof referenceNormalize>;
      try {
        want = referenceNormalize(spec);
      } catch {
        continue;
      }
      valid++;
      const got = normalizeCluster(spec);
      // Valid input falls back to the object path only for a subtopology id of 2^21 or more.
      const huge = [...want.tasks, ...want.clients.flatMap((c) => [...c.active, ...c.standby])].some((t) => t.subtopology >= 2 ** 21);
      expect(clusterColumns(got) !== undefined, JSON.stringify(spec)).toBe(!huge);
      const objects = normalizeObjects(withoutNulls(spec));
      expect(clusterColumns(objects)).toBeUndefined();
      expect(snapshot(() => objects)).toEqual(snapshot(() => want));
      for (const mode of ['kafka', 'balanced'] as const) expect(flatten(got, mode, true), JSON.stringify(spec)).toEqual(flatten(objects, mode, true));
    }
    expect(valid).toBeGreaterThan(500);
  });

  it('takes unsorted tasks, sparse partitions and large subtopologies, and falls back past 2^21', () => {
    const ids = ['7_3', '0_5', '2147483647_1', '2097151_0', '3_0', '3_2', '3_1', '0_9', '0_0', '1000000_4'];
    const spec = { clients: [{ id: 'a', active: ids.slice(0, 5), standby: ['3_1'] }, { id: 'b', active: [...ids.slice(5), '9_9'], standby: ['7_3'] }], tasks: ids, numStandbys: 1 };
    const want = snapshot(() => referenceNormalize(spec));
    // 2147483647 does not pack into a double key, so this one takes the object path.
    expect(clusterColumns(normalizeCluster(spec))).toBeUndefined();
    expect(snapshot(() => normalizeCluster(spec))).toEqual(want);
    const small = { ...spec, tasks: ids.filter((t) => !t.startsWith('2147483647')), clients: spec.clients.map((c) => ({ ...c, active: c.active.filter((t) => !t.startsWith('2147483647')) })) };
    expect(clusterColumns(normalizeCluster(small))).toBeDefined();
    expect(snapshot(() => normalizeCluster(small))).toEqual(snapshot(() => referenceNormalize(small)));
    const all = { clients: small.clients };
    expect(clusterColumns(normalizeCluster(all))).toBeDefined();
    expect(snapshot(() => normalizeCluster(all))).toEqual(snapshot(() => referenceNormalize(all)));
  });
});
