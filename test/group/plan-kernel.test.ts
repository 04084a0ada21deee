// The group planner's one entry (groupPlan): the WASM kernel (scalar and SIMD builds) equals its
// TypeScript twin on random flat problems, every output compared: owners, growth triples, the
// counts it inferred, co-partitioned verdicts. The problems cover what the planner decides:
// co-partitioned sets (held and broken), growths (folded, orphaned, over the skew, not a
// multiple), inferred growths, racks, balanced classes and owners that no longer subscribe.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { engines } from '../helpers.js';
import { loadWasmCore } from '../../src/engine/core.js';
import { GROWTH_FOLDED, type GroupPlanProblem, type GroupPlanResult } from '../../src/engine/abi.js';

const [ref, ...wasms] = engines();

interface TopicSpec {
  count: number;
  /** Subscriber flags, or null: the previous topic's subscribers (for classes and co-partitioned sets). */
  subscribed: boolean[] | null;
  /** Per partition: an owner choice (mod members), -1 for none. */
  owners: number[];
  /** How many leading partitions keep their owners when the rest are cleared (an inferred growth), or -1. */
  prefix: number;
  from: number;
  racks: number[][];
}

const topicSpec = (maxMembers: number, maxCount: number): fc.Arbitrary<TopicSpec> =>
  fc.integer({ min: 1, max: maxCount }).chain((count) =>
    fc.record({
      count: fc.constant(count),
      subscribed: fc.option(fc.array(fc.boolean(), { minLength: maxMembers, maxLength: maxMembers }), { freq: 3 }),
      owners: fc.array(fc.integer({ min: -1, max: maxMembers - 1 }), { minLength: count, maxLength: count }),
      prefix: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: count })),
      from: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: count }), fc.constantFrom(1, 2, 4, count >> 1, count >> 2)),
      racks: fc.array(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 }), { minLength: count, maxLength: count }),
    }),
  );

const planSpec = (maxMembers: number, maxTopics: number, maxCount: number) =>
  fc.record({
    members: fc.integer({ min: 0, max: maxMembers }),
    topics: fc.array(topicSpec(Math.max(1, maxMembers), maxCount), { maxLength: maxTopics }),
    rackCount: fc.integer({ min: 0, max: 4 }),
    memberRack: fc.array(fc.integer({ min: -1, max: 3 }), { minLength: maxMembers, maxLength: maxMembers }),
    sets: fc.array(fc.array(fc.nat(), { maxLength: 4 }), { maxLength: 3 }),
    inferGrowth: fc.boolean(),
    growthSkew: fc.constantFrom(1, 1.5, 2, 3, 100),
    shareLists: fc.boolean(),
  });

function build(spec: ReturnType<typeof planSpec> extends fc.Arbitrary<infer S> ? S : never): GroupPlanProblem {
  const M = spec.members;
  const T = spec.topics.length;
  const counts = Int32Array.from(spec.topics, (t) => t.count);
  // shareLists: a topic that keeps the subscribers of the topic before it shares its list (as the
  // broker plugin writes them); else one list per topic, laid out as the kernel's own.
  const listStart: number[] = [0];
  const subs: number[] = [];
  const topicList = new Int32Array(T);
  const owner: number[] = [];
  const rackStart: number[] = [0];
  const racks: number[] = [];
  let flags: boolean[] = Array.from({ length: M }, () => true);
  spec.topics.forEach((t, i) => {
    const shared = spec.shareLists && i > 0 && t.subscribed === null;
    if (t.subscribed !== null) flags = t.subscribed;
    if (!shared) {
      for (let m = 0; m < M; m++) if (flags[m]) subs.push(m);
      listStart.push(subs.length);
    }
    topicList[i] = listStart.length - 2;
    t.owners.forEach((o, p) => owner.push(M === 0 || o < 0 || (t.prefix >= 0 && p >= t.prefix) ? -1 : o % M));
    for (const list of t.racks) {
      for (const r of new Set(list)) if (r < spec.rackCount) racks.push(r);
      rackStart.push(racks.length);
    }
  });
  // Sets as the options allow them: disjoint, each topic once.
  const used = new Set<number>();
  const sets = T === 0 ? [] : spec.sets.map((s) => [...new Set(s.map((x) => x % T))].filter((t) => !used.has(t) && used.add(t)));
  const coStart = new Int32Array(sets.length + 1);
  sets.forEach((s, g) => (coStart[g + 1] = coStart[g]! + s.length));
  return {
    members: M,
    counts,
    from: Int32Array.from(spec.topics, (t) => t.from),
    inferGrowth: spec.inferGrowth,
    growthSkew: spec.growthSkew,
    listStart: Int32Array.from(listStart),
    listMembers: Int32Array.from(subs),
    topicList,
    owner: Int32Array.from(owner),
    rackCount: spec.rackCount,
    memberRack: Int32Array.from(spec.memberRack.slice(0, M), (r) => (r < spec.rackCount ? r : -1)),
    rackStart: Int32Array.from(rackStart),
    racks: Int32Array.from(racks),
    coStart,
    coTopics: Int32Array.from(sets.flat()),
  };
}

function plain(r: GroupPlanResult): Record<string, number[]> {
  return { owner: [...r.owner], growth: [...r.growth], from: [...r.from], coStatus: [...r.coStatus] };
}

describe.each(wasms.map((k) => [k.name, k] as const))('group planner: %s = reference', (_name, k) => {
  it('small random groups (sets, growths, racks, classes, stray owners)', () => {
    fc.assert(
      fc.property(planSpec(8, 6, 24), (spec) => {
        const p = build(spec);
        expect(plain(k.groupPlan(p))).toEqual(plain(ref!.groupPlan(p)));
      }),
      { numRuns: 400 },
    );
  });

  it('larger random groups', () => {
    fc.assert(
      fc.property(planSpec(60, 12, 150), (spec) => {
        const p = build(spec);
        expect(plain(k.groupPlan(p))).toEqual(plain(ref!.groupPlan(p)));
      }),
      { numRuns: 40 },
    );
  });

  it('edge cases: no members, no topics, one partition, a lone member', () => {
    const none = build({ members: 0, topics: [], rackCount: 0, memberRack: [], sets: [], inferGrowth: true, growthSkew: 2, shareLists: false });
    const one = build({ members: 1, topics: [{ count: 1, subscribed: null, owners: [-1], prefix: -1, from: 0, racks: [[]] }], rackCount: 0, memberRack: [-1], sets: [[0]], inferGrowth: false, growthSkew: 2, shareLists: false });
    for (const p of [none, one, { ...one, members: 0, listMembers: new Int32Array(0), listStart: new Int32Array([0, 0]) }]) {
      expect(plain(k.groupPlan(p))).toEqual(plain(ref!.groupPlan(p)));
    }
    expect([...k.groupPlan(one).owner]).toEqual([0]);
  });

  it.each([
    ['one list per topic', [0, 1, 2, 3, 4, 5, 6, 7]],
    ['topics sharing lists, some equal lists apart', [0, 0, 1, 2, 2, 3, 4, 5]],
  ])('subscriber lists that differ only in their last or in one paired slot are different lists; equal ones apart share an id (%s)', (_how, topicOf) => {
    // The kernel compares lists two slots at a time, then the odd one out, and finds a list seen
    // before (not just the one before) by its hash. Members 3 and 5 own partitions of topics they
    // do not subscribe, so a wrong list id would count them as holders.
    const perTopic = [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [0, 1, 2, 3, 5], [0, 1, 2, 4, 5], [0, 1, 2, 4, 5], [1, 2, 3, 4], [0, 1, 2, 3, 5], [0, 1, 2, 3, 4]];
    const topicList = Int32Array.from(topicOf);
    const given = perTopic.filter((_, t) => t === 0 || topicOf[t] !== topicOf[t - 1]);
    const listStart = Int32Array.from([0, ...given.map((_, l) => given.slice(0, l + 1).flat().length)]);
    const lists = perTopic;
    const count = 10;
    for (let seed = 1; seed <= 40; seed++) {
      let x = seed;
      const owner = Int32Array.from({ length: count * lists.length }, () => ((x = (x * 1103515245 + 12345) & 0x7fffffff) % 7) - 1);
      const p: GroupPlanProblem = {
        members: 6, counts: Int32Array.from(lists, () => count), from: new Int32Array(lists.length), inferGrowth: false, growthSkew: 2,
        listStart, listMembers: Int32Array.from(given.flat()), topicList, owner,
        rackCount: 0, memberRack: new Int32Array(6), rackStart: new Int32Array(1), racks: new Int32Array(0),
        coStart: new Int32Array(1), coTopics: new Int32Array(0),
      };
      const got = k.groupPlan(p);
      expect(plain(got)).toEqual(plain(ref!.groupPlan(p)));
      lists.forEach((list, t) => {
        for (let q = 0; q < count; q++) expect(list).toContain(got.owner[count * t + q]);
      });
    }
  });

  it('memory stays flat over many calls', () => {
    const core = loadWasmCore(k.name === 'wasm-simd');
    const p = build(fc.sample(planSpec(40, 8, 100), { numRuns: 1, seed: 7 })[0]!);
    k.groupPlan(p);
    const before = core.memoryBytes();
    for (let i = 0; i < 2000; i++) k.groupPlan(p);
    expect(core.memoryBytes()).toBe(before);
  });
});

describe('group planner decisions', () => {
  it('an inferred growth 8 -> 16 folds: partition p joins the owner of p mod 8', () => {
    const owner = Int32Array.from({ length: 16 }, (_, p) => (p < 8 ? p % 3 : -1));
    const p: GroupPlanProblem = {
      members: 3, counts: new Int32Array([16]), from: new Int32Array(1), inferGrowth: true, growthSkew: 2,
      listStart: new Int32Array([0, 3]), listMembers: new Int32Array([0, 1, 2]), topicList: new Int32Array(1), owner, rackCount: 0, memberRack: new Int32Array(3).fill(-1),
      rackStart: new Int32Array(0), racks: new Int32Array(0), coStart: new Int32Array([0]), coTopics: new Int32Array(0),
    };
    for (const k of engines()) {
      const r = k.groupPlan(p);
      expect([...r.from]).toEqual([8]);
      expect([...r.growth]).toEqual([0, GROWTH_FOLDED, 0]);
      expect([...r.owner]).toEqual(Array.from({ length: 16 }, (_, q) => (q % 8) % 3));
    }
  });

  it('a million partitions through the WASM planner: nothing moves when nothing changed', () => {
    const members = 1000;
    const owner = Int32Array.from({ length: 1_000_000 }, (_, i) => (i * 7) % members);
    const p: GroupPlanProblem = {
      members, counts: new Int32Array([1_000_000]), from: new Int32Array(1), inferGrowth: true, growthSkew: 2,
      listStart: new Int32Array([0, members]), listMembers: Int32Array.from({ length: members }, (_, m) => m), topicList: new Int32Array(1), owner, rackCount: 0, memberRack: new Int32Array(members).fill(-1),
      rackStart: new Int32Array(0), racks: new Int32Array(0), coStart: new Int32Array([0]), coTopics: new Int32Array(0),
    };
    expect(wasms[0]!.groupPlan(p).owner).toEqual(owner);
  });
});
