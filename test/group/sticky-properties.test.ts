// Properties of StickyAssigner over random groups (1-200 members, 1-50 topics, same or mixed
// subscriptions, racks or none) driven through random events: joins, clean leaves, crashes,
// zombies (members the broker dropped that come back with their old claims), partition growth,
// and rebalances where nothing changed. After every rebalance: exactly one owner per subscribed
// partition, balance as documented, no more moves than the least any balanced assignment needs
// (sticky-oracle.ts computes it independently), and after a growth to a multiple every one of
// 10,000 random keys is read by the member that read it before (Kafka's hasher decides the
// partitions). ASSIGNOR_LONG=1 runs many more sequences.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createStickyAssigner, type StickyAssignmentReport } from '../../src/kafkajs/index.js';
import { partitionsForKeys } from '../../src/hashing/index.js';
import { analyzeExpansion } from '../../src/expansion/index.js';
import { judge, type Assignment, type Fold } from './sticky-oracle.js';
import { leave, rebalance, SimMember, World } from '../kafkajs/group-sim.js';

const LONG = process.env.ASSIGNOR_LONG === '1';

type Event = { kind: 'join' | 'leave' | 'crash' | 'zombie' | 'rejoin' | 'grow' | 'noop'; n: number; pick: number; factor: number };

const scenario = fc.record({
  topics: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 50 })),
  members: fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 1, max: 10 }) }, { weight: 3, arbitrary: fc.integer({ min: 1, max: 60 }) }, { weight: 1, arbitrary: fc.integer({ min: 100, max: 200 }) }),
  mixed: fc.boolean(),
  racks: fc.boolean(),
  seed: fc.integer(),
  events: fc.array(
    fc.record({
      kind: fc.constantFrom<Event['kind']>('join', 'leave', 'crash', 'zombie', 'rejoin', 'grow', 'grow', 'noop'),
      n: fc.integer({ min: 1, max: 12 }),
      pick: fc.nat(),
      factor: fc.constantFrom(2, 3, 0),
    }),
    { minLength: 2, maxLength: LONG ? 16 : 7 },
  ),
});

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function snapshot(a: Assignment): string {
  return JSON.stringify([...a].sort(([x], [y]) => (x < y ? -1 : 1)).map(([m, ts]) => [m, [...ts].sort(([x], [y]) => (x < y ? -1 : 1))]));
}

async function runScenario(s: { topics: number; members: number; mixed: boolean; racks: boolean; seed: number; events: Event[] }): Promise<void> {
  const r = rng(s.seed);
  const int = (n: number): number => Math.floor(r() * n);
  const world = new World();
  const racks = ['az-a', 'az-b', 'az-c'];
  if (s.racks) world.brokerRacks = racks;
  const replicasOf = (): number[] => (s.racks ? [int(3), int(3)].filter((v, i, a) => a.indexOf(v) === i) : [0]);
  const topicNames = Array.from({ length: s.topics }, (_, i) => `topic-${i}`);
  for (const t of topicNames) world.addTopic(t, 1 + int(12), replicasOf);
  const patterns = [topicNames, topicNames.filter(() => r() < 0.5), topicNames.filter(() => r() < 0.3)];
  const subscription = (): string[] => {
    if (!s.mixed) return topicNames;
    const roll = r();
    const chosen = roll < 0.6 ? patterns[int(3)]! : topicNames.filter(() => r() < 0.4);
    return chosen.length > 0 ? chosen : [topicNames[int(topicNames.length)]!];
  };
  const reports: StickyAssignmentReport[] = [];
  let counter = 0;
  const newMember = (): SimMember => {
    const rack = s.racks && r() < 0.8 ? [...racks, 'az-elsewhere'][int(4)]! : null;
    return new SimMember(`m${counter++}`, subscription(), world, createStickyAssigner({ rackId: rack, onAssignment: (x) => reports.push(x) }));
  };
  let group: SimMember[] = Array.from({ length: s.members }, newMember);
  const zombies: SimMember[] = [];
  let prev: Assignment | null = null;

  // folds: topics judged in families of k (a growth now, or its relaxed state kept by no-ops);
  // grown: topics that grew in this very rebalance (their keys are checked).
  const step = async (what: string, folds: Map<string, Fold>, grown: Map<string, Fold>, before: Map<string, number>): Promise<void> => {
    const leader = group[int(group.length)]!;
    const rb = await rebalance(world, group, leader, reports);
    const counts = new Map([...world.topics].map(([t, v]) => [t, v.partitions]));
    const verdict = judge(prev, group, counts, rb.assignment, folds);
    const context = `${what} (generation ${rb.generation}, ${group.length} members)`;
    expect(verdict.violations, context).toEqual([]);
    expect(verdict.moved, `${context}: moved more than the minimum`).toBeLessThanOrEqual(verdict.minimum);
    expect(rb.report.moved, `${context}: the report's moves`).toBe(verdict.moved);
    if (what === 'noop' && prev !== null) {
      expect(rb.report.unchanged, context).toBe(true);
      expect(snapshot(rb.assignment), context).toBe(snapshot(prev));
    }
    // Keys after a growth to a multiple stay with their member.
    for (const [t, f] of grown) {
      const keys = Array.from({ length: 10_000 }, () => `key-${int(1e9)}-${int(1e9)}`);
      const from = partitionsForKeys(keys, f.from);
      const to = partitionsForKeys(keys, f.from * f.k);
      const ownerBefore = new Map<number, string>();
      const ownerAfter = new Map<number, string>();
      for (const [m, ts] of prev!) for (const p of ts.get(t) ?? []) ownerBefore.set(p, m);
      for (const [m, ts] of rb.assignment) for (const p of ts.get(t) ?? []) ownerAfter.set(p, m);
      let moved = 0;
      for (let i = 0; i < keys.length; i++) if (ownerBefore.get(from[i]!) !== ownerAfter.get(to[i]!)) moved++;
      expect(moved, `${context}: keys of ${t} that changed member after ${f.from} -> ${f.from * f.k}`).toBe(0);
      expect(rb.report.growth.find((g) => g.topic === t)?.keysKept, context).toBe(true);
    }
    for (const [t, b] of before) {
      const g = rb.report.growth.find((x) => x.topic === t);
      const c = counts.get(t)!;
      const subs = group.filter((m) => m.topics.includes(t)).length;
      if (subs === 0 || b === c) continue;
      expect(g, `${context}: growth of ${t} reported`).toBeDefined();
      if (c % b !== 0) expect(g!.movedShare).toBe(analyzeExpansion(b, c).movedShare);
    }
    prev = rb.assignment;
  };

  await step('first assignment', new Map(), new Map(), new Map());
  // A growth's relaxed balance (families of k) lasts through rebalances that change nothing.
  let relaxed = new Map<string, Fold>();
  for (const e of s.events) {
    const folds = new Map<string, Fold>();
    const before = new Map<string, number>();
    let changed = false;
    switch (e.kind) {
      case 'join':
        for (let i = 0; i < e.n && group.length < 200; i++, changed = true) group.push(newMember());
        break;
      case 'leave':
        for (let i = 0; i < e.n && group.length > 1; i++, changed = true) await leave(group.splice(e.pick % group.length, 1)[0]!);
        break;
      case 'crash':
        for (let i = 0; i < e.n && group.length > 1; i++, changed = true) group.splice((e.pick + i) % group.length, 1);
        break;
      case 'zombie':
        if (group.length > 1) {
          zombies.push(group.splice(e.pick % group.length, 1)[0]!);
          changed = true;
        }
        break;
      case 'rejoin': {
        const z = zombies.shift();
        if (z === undefined) break;
        z.memberId = ''; // fenced: KafkaJS rejoins with no member id, still holding its old claims
        group.push(z);
        changed = true;
        break;
      }
      case 'grow': {
        const t = topicNames[e.pick % topicNames.length]!;
        const b = world.topics.get(t)!.partitions;
        const c = e.factor > 0 && b <= 16 ? b * e.factor : b + 1 + (e.pick % 5);
        world.grow(t, c, replicasOf);
        before.set(t, b);
        const S = group.filter((m) => m.topics.includes(t)).length;
        changed = S > 0; // a topic nobody reads grows unseen
        // Folded when every old partition's owner is still here and nobody then holds more than
        // growthSkew (2) times its fair share.
        if (S > 0 && c % b === 0) {
          const families = new Map<string, number>();
          let orphans = 0;
          for (let p = 0; p < b; p++) {
            const o = [...prev!].find(([, ts]) => ts.get(t)?.includes(p))?.[0];
            if (o === undefined || !group.some((m) => m.name === o)) orphans++;
            else families.set(o, (families.get(o) ?? 0) + 1);
          }
          if (orphans === 0 && Math.max(...families.values()) * (c / b) * S <= 2 * c) folds.set(t, { from: b, k: c / b });
        }
        break;
      }
      case 'noop':
        break;
    }
    // An event that changed nothing (a leave from a one-member group, a rejoin with no zombie) is a no-op.
    await step(changed ? e.kind : 'noop', changed ? folds : relaxed, folds, before);
    if (changed) relaxed = folds;
  }
}

describe('StickyAssigner properties (random groups and events)', () => {
  it(
    'one owner per partition, balance, minimal moves, keys kept across growth',
    async () => {
      await fc.assert(fc.asyncProperty(scenario, runScenario), { numRuns: LONG ? 1000 : 80 });
    },
    LONG ? 3_600_000 : 240_000,
  );
});
