// A hostile user's fuzz of `assignGroup` (issue 34): seeded random groups, then bent the way the
// issue's own run bent them (null fields, claims anywhere up to 2^31 - 1 and beyond, empty and
// duplicate ids, previous counts above the count, counts past a lowered partition limit, wrong
// types). Every call ends in a result or an AssignorError (0 crashes), within a time limit (0
// hangs), and every result is checked against an oracle written here, apart from src/: a valid
// assignment, the report recomputed from the claims, and for range (without racks) and round-robin
// Kafka's exact deal. The consumer protocol (KIP-848) runs too: its range is the same deal whatever
// the racks, and uniform with one subscription for all keeps every member within one partition.
//
//   default: 150 cases;  ASSIGNOR_LONG=1: 10,000 cases;  ASSIGNOR_FUZZ_SEED=<n> replays a run
import { describe, expect, it } from 'vitest';
import { AssignorError } from '../../src/errors.js';
import { assignGroup, type AssignGroupOptions, type GroupAssignment } from '../../src/group/index.js';
import { random, randomGroup, STRATEGIES } from './random-groups.js';

const LONG = Boolean(Number(process.env.ASSIGNOR_LONG ?? 0));
const CASES = LONG ? 10_000 : 150;
const SEED = process.env.ASSIGNOR_FUZZ_SEED !== undefined ? Number(process.env.ASSIGNOR_FUZZ_SEED) : 34_2026;
/** A case slower than this is a hang (the groups are at most a few thousand partitions). */
const HANG_MS = 5000;
const TOPIC_IDS = ['AAAAAAAAAAAAAAAAAAAAAg', '_____________________w', 'gAAAAAAAAAAAAAAAAAAAAA', 'AAAAAAAAAAAAAAAAAAAAAA', 'short', 'AAAAAAAAAAAAAAAAAAAAAB', null, 7];

type R = (n: number) => number;
type Json = Record<string, unknown>;

const CLAIMS = [0, 1, 2, 3, 99, 2147483646, 2147483647, 2147483648, -1, 1.5, null, '1'];
const ODD = [null, '', 0, -1, 1.5, 2147483647, 2 ** 31, [], {}, 'x', true];

/** One of the bends, applied to a valid group (in place). */
const BENDS: ((g: { topics: Json[]; members: Json[] }, r: R) => void)[] = [
  (g, r) => {
    const m = g.members[r(g.members.length)]!;
    const t = g.topics[r(g.topics.length)]!;
    m.owned = { ...(m.owned as Json), [t.name as string]: Array.from({ length: 1 + r(4) }, () => CLAIMS[r(CLAIMS.length)]) };
    m.generation = r(3) === 0 ? null : r(5);
  },
  (g, r) => {
    const m = g.members[r(g.members.length)]!;
    m[['generation', 'rack', 'instanceId', 'owned'][r(4)]!] = null;
  },
  (g, r) => {
    g.members[r(g.members.length)]!.instanceId = ['', ' ', 'i1', 'i1'][r(4)];
  },
  (g, r) => {
    const t = g.topics[r(g.topics.length)]!;
    t.previousPartitions = [null, 1, t.partitions, (t.partitions as number) + 1, 0, 2147483647][r(6)];
  },
  (g, r) => {
    const t = g.topics[r(g.topics.length)]!;
    delete t.racks;
    t.partitions = [2147483647, 50_000_001, 4096, 1 + r(3000)][r(4)];
  },
  (g, r) => {
    const m = g.members[r(g.members.length)]!;
    m[['id', 'topics', 'rack', 'instanceId', 'owned', 'generation'][r(6)]!] = ODD[r(ODD.length)];
  },
  (g, r) => {
    g.topics[r(g.topics.length)]![['name', 'partitions', 'racks', 'previousPartitions', 'id'][r(5)]!] = ODD[r(ODD.length)];
  },
  (g, r) => {
    // Kafka topic ids: valid ones (high bit set or not), reserved, malformed, one id on two topics.
    for (const t of g.topics) if (r(2) === 0) t.id = TOPIC_IDS[r(TOPIC_IDS.length)];
  },
];

/** A random group, bent 0-2 times. */
function caseOf(r: R): { spec: { topics: Json[]; members: Json[] }; bends: number } {
  const spec = JSON.parse(JSON.stringify(randomGroup(r))) as { topics: Json[]; members: Json[] };
  // Claims on about half the members, so the report has something to count.
  for (const m of spec.members) {
    if (r(2) === 0) continue;
    const owned: Json = {};
    for (const t of spec.topics) if (r(2) === 0) owned[t.name as string] = Array.from({ length: r(6) }, () => r((t.partitions as number) + 3));
    m.owned = owned;
    m.generation = r(4);
  }
  const bends = r(3);
  for (let i = 0; i < bends; i++) BENDS[r(BENDS.length)]!(spec, r);
  return { spec, bends };
}

const byUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Kafka's member order: static members first by instance id, then the rest by member id. */
function kafkaOrder(members: Json[]): Json[] {
  const statics = members.filter((m) => typeof m.instanceId === 'string').sort((a, b) => byUnits(a.instanceId as string, b.instanceId as string));
  const dynamic = members.filter((m) => typeof m.instanceId !== 'string').sort((a, b) => byUnits(a.id as string, b.id as string));
  return [...statics, ...dynamic];
}

/** The checked group's topics the oracle reads: subscribed and in the metadata, by name. */
function assignedTopics(spec: { topics: Json[]; members: Json[] }): Map<string, number> {
  const subscribed = new Set(spec.members.flatMap((m) => m.topics as string[]));
  return new Map(spec.topics.filter((t) => subscribed.has(t.name as string)).map((t) => [t.name as string, t.partitions as number]));
}

/** Kafka's RangeAssignor without racks: per topic, consecutive ranges in member order. */
function rangeOracle(spec: { topics: Json[]; members: Json[] }, topics: Map<string, number>): Map<string, string[]> {
  const order = kafkaOrder(spec.members);
  const out = new Map<string, string[]>();
  for (const [name, P] of topics) {
    const subs = order.filter((m) => (m.topics as string[]).includes(name));
    const owners: string[] = [];
    let p = 0;
    subs.forEach((m, i) => {
      const n = Math.floor(P / subs.length) + (i < P % subs.length ? 1 : 0);
      for (let k = 0; k < n; k++) owners[p++] = m.id as string;
    });
    out.set(name, owners);
  }
  return out;
}

/** Kafka's RoundRobinAssignor: topics by name, partitions dealt over all members, skipping non-subscribers. */
function roundRobinOracle(spec: { topics: Json[]; members: Json[] }, topics: Map<string, number>): Map<string, string[]> {
  const order = kafkaOrder(spec.members);
  const out = new Map<string, string[]>();
  let turn = 0;
  for (const name of [...topics.keys()].sort(byUnits)) {
    const owners: string[] = [];
    for (let p = 0; p < topics.get(name)!; p++) {
      while (!(order[turn]!.topics as string[]).includes(name)) turn = (turn + 1) % order.length;
      owners[p] = order[turn]!.id as string;
      turn = (turn + 1) % order.length;
    }
    out.set(name, owners);
  }
  return out;
}

/** The report's claim counts from the claims alone: newest generation wins, then the member first by id. */
function claimsOracle(spec: { topics: Json[]; members: Json[] }, topics: Map<string, number>): { before: Map<string, string>; conflicts: number; ignored: number } {
  const best = new Map<string, { id: string; gen: number }>();
  let conflicts = 0;
  let ignored = 0;
  for (const m of [...spec.members].sort((a, b) => byUnits(a.id as string, b.id as string))) {
    const gen = typeof m.generation === 'number' ? m.generation : 0;
    for (const [t, list] of Object.entries((m.owned ?? {}) as Record<string, number[]>)) {
      const distinct = [...new Set(list)];
      if (!topics.has(t) || !(m.topics as string[]).includes(t)) {
        ignored += distinct.length;
        continue;
      }
      for (const p of distinct) {
        if (p >= topics.get(t)!) {
          ignored++;
          continue;
        }
        const key = `${t}\u0000${p}`;
        const held = best.get(key);
        if (held !== undefined) conflicts++;
        if (held === undefined || gen > held.gen) best.set(key, { id: m.id as string, gen });
      }
    }
  }
  return { before: new Map([...best].map(([k, v]) => [k, v.id])), conflicts, ignored };
}

/** Owner id per partition, per topic, from the result's per-member lists. */
function ownersOf(result: GroupAssignment): Map<string, string[]> {
  const owners = new Map<string, string[]>();
  for (const [id, topics] of result.assignment) {
    for (const [t, ps] of topics) {
      const o = owners.get(t) ?? [];
      for (const p of ps) {
        if (o[p] !== undefined) throw new Error(`${t}-${p} has two owners`);
        o[p] = id;
      }
      owners.set(t, o);
    }
  }
  return owners;
}

/** Checks one success; returns which exact deal it was compared with, if any. */
function checkSuccess(spec: { topics: Json[]; members: Json[] }, options: AssignGroupOptions, result: GroupAssignment): 'range' | 'round-robin' | null {
  const strategy = options.strategy!;
  const consumer = options.protocol === 'consumer';
  const topics = assignedTopics(spec);
  const owners = ownersOf(result);
  const ids = new Map(spec.members.map((m) => [m.id as string, m]));
  expect([...result.assignment.keys()].sort(byUnits)).toEqual([...ids.keys()].sort(byUnits));
  let total = 0;
  for (const [name, P] of topics) {
    const o = owners.get(name) ?? [];
    total += P;
    expect(o.length, name).toBe(P);
    for (let p = 0; p < P; p++) if (!(ids.get(o[p]!)!.topics as string[]).includes(name)) throw new Error(`${name}-${p} to a non-subscriber`);
  }
  const { before, conflicts, ignored } = claimsOracle(spec, topics);
  let kept = 0;
  let placed = 0;
  for (const [name, P] of topics) for (let p = 0; p < P; p++) {
    const prev = before.get(`${name}\u0000${p}`);
    if (prev === undefined) placed++;
    else if (prev === owners.get(name)![p]) kept++;
  }
  const r = result.report;
  expect([r.partitions, r.kept, r.placed, r.moved, r.conflicts, r.ignoredClaims]).toEqual([total, kept, placed, total - kept - placed, conflicts, ignored]);
  const noRacks = spec.members.every((m) => m.rack === undefined || m.rack === null || m.rack === '');
  const names = (m: Json) => JSON.stringify([...new Set(m.topics as string[])].sort(byUnits));
  if (strategy === 'uniform' && spec.members.every((m) => names(m) === names(spec.members[0]!))) expect(r.balance.spread).toBeLessThanOrEqual(1);
  const exact = strategy === 'round-robin' ? roundRobinOracle(spec, topics) : strategy === 'range' && (noRacks || consumer) ? rangeOracle(spec, topics) : null;
  if (exact === null) return null;
  for (const [name, o] of exact) expect(owners.get(name) ?? [], `${strategy} ${name}`).toEqual(o);
  return strategy === 'range' ? 'range' : 'round-robin';
}

describe(`group fuzz (${CASES} cases, seed ${SEED}${LONG ? ', long mode' : ''})`, () => {
  it('ends every case in a result or an AssignorError, in time; every result passes the oracle', () => {
    const r = random(SEED);
    const counts = { cases: 0, successes: 0, range: 0, roundRobin: 0, refusals: 0, crashes: 0, hangs: 0 };
    const refusals = new Map<string, number>();
    for (let i = 0; i < CASES; i++) {
      const { spec } = caseOf(r);
      const options = STRATEGIES[r(STRATEGIES.length)]!;
      const strategy = `${options.protocol ?? 'classic'} ${options.strategy}`;
      const maxPartitions = r(4) === 0 ? 1 + r(400) : undefined;
      const t0 = performance.now();
      let result: GroupAssignment | undefined;
      try {
        result = assignGroup(spec, { ...options, ...(maxPartitions !== undefined ? { maxPartitions } : {}) });
      } catch (e) {
        if (!(e instanceof AssignorError)) {
          counts.crashes++;
          throw new Error(`case ${i} (seed ${SEED}, ${strategy}): ${(e as Error).stack}\n${JSON.stringify(spec).slice(0, 2000)}`);
        }
        expect(e.oneLine().includes('\n')).toBe(false);
        refusals.set(e.code, (refusals.get(e.code) ?? 0) + 1);
        counts.refusals++;
      }
      const ms = performance.now() - t0;
      if (ms > HANG_MS) counts.hangs++;
      expect(ms, `case ${i} took ${ms} ms`).toBeLessThan(HANG_MS);
      counts.cases++;
      if (result === undefined) continue;
      counts.successes++;
      const exact = checkSuccess(spec, options, result);
      if (exact === 'range') counts.range++;
      if (exact === 'round-robin') counts.roundRobin++;
    }
    console.log(`group fuzz: ${JSON.stringify(counts)}; refusals by code ${JSON.stringify(Object.fromEntries(refusals))}`);
    expect([counts.crashes, counts.hangs]).toEqual([0, 0]);
    expect(counts.successes).toBeGreaterThan(CASES / 4);
    expect(counts.refusals).toBeGreaterThan(0);
  }, LONG ? 1_800_000 : 60_000);
});
