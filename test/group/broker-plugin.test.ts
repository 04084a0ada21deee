// The broker plugin (jvm/, build/assignor-broker.jar: dev.assignor.broker.StickyAssignor) inside a
// JVM with the 4.4.0 group coordinator, through the GroupSpec the broker builds
// (test/group/java/BrokerPluginDriver.java). The plugin runs the package's own release.wasm through
// Chicory, so these tests are about the glue: index spaces, cleaning, the ABI header, the read-back,
// and the fail-safe. The jar is built when missing or older than its sources (npm run build:jvm).
// A missing JVM or Maven fails these tests, never skips.
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { runJava } from '../kafka/jvm.js';
import { pluginDriver } from '../support/plugin-jar.js';
import { derivedTopicId, formatTopicId } from '../../src/group/topic-id.js';
import { random, randomGroup } from './random-groups.js';
import { assignGroup, type GroupSpec } from '../../src/group/index.js';

const DRIVER = fileURLToPath(new URL('./java/BrokerPluginDriver.java', import.meta.url));

type Mode = 'kernel' | 'fallback' | 'interpreter' | 'uniform';
interface CaseTopic { id: string; partitions: number; racks?: string[][] }
interface CaseMember { id: string; rack?: string; topics: string[]; owned?: Record<string, number[]> }
interface Case { topics: CaseTopic[]; members: CaseMember[]; mode: Mode }
type Plain = Record<string, Record<string, number[]>>;
interface Answer { assignment: Plain | null; error: string | null; fallbacks: number; reused?: string[] }

function run(cases: readonly Case[]): Answer[] {
  return JSON.parse(runJava(pluginDriver(DRIVER), 'BrokerPluginDriver', [], JSON.stringify(cases), '2g').stdout) as Answer[];
}

const id = (name: string): string => formatTopicId(derivedTopicId(name));

/** A group of assignor's shape as the driver's case: topic ids derived from names; subscriptions may name topics the metadata lacks. */
function caseOf(group: GroupSpec, mode: Mode): Case {
  return {
    mode,
    topics: group.topics.map((t) => ({ id: id(t.name), partitions: t.partitions, ...(t.racks ? { racks: t.racks.map((r) => [...r]) } : {}) })),
    members: group.members.map((m) => ({
      id: m.id,
      ...(m.rack === undefined || m.rack === null ? {} : { rack: m.rack }),
      topics: m.topics.map(id),
      ...(m.owned ? { owned: Object.fromEntries(Object.entries(m.owned).map(([t, ps]) => [id(t), [...ps]])) } : {}),
    })),
  };
}

/**
 * Checks what every answer must be, and returns per-member totals:
 * every member present; every partition of every subscribed topic the metadata has, exactly once,
 * to a member that subscribes it; nothing else.
 */
function valid(c: Case, a: Plain): Map<string, number> {
  expect(Object.keys(a).sort()).toEqual(c.members.map((m) => m.id).sort());
  const counts = new Map(c.topics.map((t) => [t.id, t.partitions]));
  const subscribers = new Map<string, Set<string>>();
  for (const m of c.members) for (const t of m.topics) if ((counts.get(t) ?? 0) > 0) (subscribers.get(t) ?? subscribers.set(t, new Set()).get(t)!).add(m.id);
  const seen = new Map<string, number[]>();
  const totals = new Map<string, number>();
  for (const [member, topics] of Object.entries(a)) {
    totals.set(member, 0);
    for (const [t, ps] of Object.entries(topics)) {
      expect(subscribers.get(t)?.has(member), `${member} holds ${t} without subscribing it`).toBe(true);
      const owners = seen.get(t) ?? seen.set(t, []).get(t)!;
      for (const p of ps) {
        expect(p >= 0 && p < counts.get(t)!, `${t}-${p} is out of range`).toBe(true);
        expect(owners[p], `${t}-${p} assigned twice`).toBeUndefined();
        owners[p] = 1;
      }
      totals.set(member, totals.get(member)! + ps.length);
    }
  }
  for (const t of subscribers.keys()) expect(seen.get(t)?.filter((x) => x === 1).length ?? 0, `every partition of ${t}`).toBe(counts.get(t));
  return totals;
}

/** A topic whose owned partitions are exactly 0..B-1 (0 < B < count): the planner infers a growth and may keep keys over balance. */
function looksGrown(c: Case): boolean {
  return c.topics.some((t) => {
    const owned = new Set(c.members.flatMap((m) => m.owned?.[t.id] ?? []).filter((p) => p < t.partitions));
    let b = 0;
    while (owned.has(b)) b++;
    return b > 0 && b < t.partitions && owned.size === b;
  });
}

/** Per topic, every subscriber holds floor or ceil of its share; with one subscription for all, totals differ by at most one. */
function balanced(c: Case, a: Plain): void {
  const counts = new Map(c.topics.map((t) => [t.id, t.partitions]));
  const subs = (m: CaseMember): string => m.topics.filter((t) => (counts.get(t) ?? 0) > 0).sort().join();
  for (const [t, n] of counts) {
    const holders = c.members.filter((m) => m.topics.includes(t));
    if (holders.length === 0) continue;
    for (const m of holders) {
      const held = a[m.id]![t]?.length ?? 0;
      expect(held >= Math.floor(n / holders.length) && held <= Math.ceil(n / holders.length), `${m.id} holds ${held} of ${n} partitions of ${t} (${holders.length} subscribers)`).toBe(true);
    }
  }
  if (c.members.every((m) => subs(m) === subs(c.members[0]!))) {
    const totals = c.members.map((m) => Object.values(a[m.id]!).reduce((s, ps) => s + ps.length, 0));
    expect(Math.max(...totals) - Math.min(...totals)).toBeLessThanOrEqual(1);
  }
}

/** The same group with its members listed in another order (memberIds() iterates in that order). */
function shuffled<T>(list: readonly T[], r: (n: number) => number): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = r(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A random group, then again after one member leaves, with the first answer as the current assignment. */
function rounds(seed: number): { first: Case; second: (firstAnswer: Plain) => Case } {
  const r = random(seed);
  const group = randomGroup(r);
  const first = caseOf(group, 'kernel');
  return {
    first,
    second: (answer) => {
      const members = first.members.map((m) => ({ ...m, owned: answer[m.id]! }));
      if (members.length > 1) members.splice(r(members.length), 1);
      return { ...first, members };
    },
  };
}

/** Node's preview of the plugin (protocol consumer, strategy sticky) in the driver's shape: topic ids, empty lists left out. */
function nodeSticky(group: GroupSpec): Plain {
  const out: Plain = {};
  for (const [member, topics] of assignGroup(group, { protocol: 'consumer', strategy: 'sticky' }).assignment) {
    const mine: Record<string, number[]> = {};
    for (const [name, ps] of topics) if (ps.length > 0) Object.defineProperty(mine, id(name), { value: [...ps], enumerable: true });
    Object.defineProperty(out, member, { value: mine, enumerable: true });
  }
  return out;
}

const nonEmpty = (a: Plain): Plain => Object.fromEntries(Object.entries(a).map(([m, ts]) => [m, Object.fromEntries(Object.entries(ts).filter(([, ps]) => ps.length > 0))]));

const T1 = id('orders');
const T2 = id('payments');
const T3 = id('refunds');
const GONE = id('deleted-topic');

/** The three inputs the broker's UniformAssignor cannot take as they are. */
const DIRTY: Record<string, Omit<Case, 'mode'>> = {
  'a subscription names a topic the metadata lacks': {
    topics: [{ id: T1, partitions: 6 }],
    members: [
      { id: 'c-2', topics: [T1, GONE] },
      { id: 'c-1', topics: [T1] },
    ],
  },
  'current assignments claim partitions beyond the count and a topic that is gone': {
    topics: [{ id: T1, partitions: 4 }, { id: T2, partitions: 3 }],
    members: [
      { id: 'c-1', topics: [T1, T2], owned: { [T1]: [0, 1, 5, 7], [GONE]: [0, 1] } },
      { id: 'c-2', topics: [T1, T2], owned: { [T1]: [2, 3], [T2]: [0, 1, 2, 3, 4] } },
    ],
  },
  'two members claim one partition': {
    topics: [{ id: T1, partitions: 4 }],
    members: [
      { id: 'c-2', topics: [T1], owned: { [T1]: [0, 1, 2] } },
      { id: 'c-1', topics: [T1], owned: { [T1]: [2, 3] } },
      { id: 'c-3', topics: [T1] },
    ],
  },
};

describe('the broker plugin (assignor-sticky in the 4.4.0 coordinator)', () => {
  it('answers the same whatever order memberIds() lists the members in', () => {
    const cases: Case[] = [];
    const firsts = Array.from({ length: 20 }, (_, i) => rounds(7000 + i));
    const answers = run(firsts.map((x) => x.first));
    firsts.forEach((x, i) => {
      const second = x.second(answers[i]!.assignment!);
      const r = random(100 + i);
      for (const c of [x.first, second]) for (let k = 0; k < 3; k++) cases.push({ ...c, members: k === 0 ? c.members : shuffled(c.members, r) });
    });
    const out = run(cases);
    for (let i = 0; i < out.length; i += 3) {
      expect(out[i]!.fallbacks).toBe(0);
      expect(out[i + 1]!.assignment).toEqual(out[i]!.assignment);
      expect(out[i + 2]!.assignment).toEqual(out[i]!.assignment);
    }
  });

  describe('gives a valid assignment on input the broker\'s uniform cannot take, without an exception', () => {
    const names = Object.keys(DIRTY);
    it.each(names)('%s', (name) => {
      const [kernel, fallback, uniform] = run((['kernel', 'fallback', 'uniform'] as const).map((mode) => ({ ...DIRTY[name]!, mode })));
      // Through the planner: no fallback happened.
      expect(kernel!.error).toBeNull();
      expect(kernel!.fallbacks).toBe(0);
      valid({ ...DIRTY[name]!, mode: 'kernel' }, kernel!.assignment!);
      // Through the broker's own uniform on the cleaned group (forced).
      expect(fallback!.error).toBeNull();
      expect(fallback!.fallbacks).toBe(1);
      valid({ ...DIRTY[name]!, mode: 'fallback' }, fallback!.assignment!);
      // Why the cleaning: the broker's uniform on the same spec throws or hands a partition out twice.
      if (uniform!.error === null) expect(() => valid({ ...DIRTY[name]!, mode: 'uniform' }, uniform!.assignment!)).toThrow();
    });
  });

  it('hands a member whose claims it keeps exactly its own map back, and rebuilds any map it cleaned', () => {
    const topics = [{ id: T1, partitions: 6 }, { id: T2, partitions: 4 }, { id: T3, partitions: 2 }];
    const ids = ['a', 'b', 'c'];
    const first: Case = { mode: 'kernel', topics, members: ids.map((m) => ({ id: m, topics: [T1, T2] })) };
    const answer = run([first])[0]!.assignment!;
    const owning = (extra: Record<string, Record<string, number[]>> = {}): Case => ({
      mode: 'kernel',
      topics,
      members: ids.map((m) => ({ id: m, topics: [T1, T2], owned: { ...answer[m], ...extra[m] } })),
    });
    const aT1 = answer['a']![T1]!;
    const [same, unsubscribed, twice] = run([
      owning(),
      owning({ b: { [T3]: [0] } }), // b claims a topic it does not subscribe
      owning({ c: { [T1]: [...(answer['c']![T1] ?? []), aT1[0]!] } }), // c claims a partition a holds
    ]);
    expect(same!.assignment).toEqual(answer);
    expect(same!.reused).toEqual(ids);
    expect(unsubscribed!.assignment).toEqual(answer);
    expect(unsubscribed!.reused).toEqual(['a', 'c']);
    expect(twice!.assignment).toEqual(answer);
    expect(twice!.reused).toEqual(['a', 'b']);
  });

  it('keeps every key when a topic grows 8 -> 16: partition p goes to the owner of p mod 8', () => {
    const owners8 = ['a', 'a', 'b', 'b', 'c', 'c', 'd', 'd'];
    const three = ['x', 'y', 'z', 'x', 'y', 'z', 'x', 'y'];
    const cases: Case[] = [];
    for (const mode of ['kernel', 'interpreter'] as const) {
      for (const owners of [owners8, three]) {
        const ids = [...new Set(owners)];
        cases.push({
          mode,
          topics: [{ id: T1, partitions: 16 }, { id: T2, partitions: 5 }],
          members: ids.map((m) => ({ id: m, topics: [T1, T2], owned: { [T1]: owners.flatMap((o, p) => (o === m ? [p] : [])) } })),
        });
      }
    }
    const out = run(cases);
    out.forEach((a, i) => {
      expect(a.fallbacks).toBe(0);
      const owners = i % 2 === 0 ? owners8 : three;
      valid(cases[i]!, a.assignment!);
      for (let p = 0; p < 16; p++) expect(a.assignment![owners[p % 8]!]![T1]).toContain(p);
    });
    expect(out[2]!.assignment).toEqual(out[0]!.assignment);
    expect(out[3]!.assignment).toEqual(out[1]!.assignment);
  });

  it('on random groups (racks, mixed subscriptions, topics the metadata lacks): valid and balanced, from nothing and after a leave', () => {
    const firsts = Array.from({ length: 60 }, (_, i) => rounds(1 + i * 7919));
    const answers = run(firsts.map((x) => x.first));
    const seconds = firsts.map((x, i) => {
      expect(answers[i]!.fallbacks).toBe(0);
      valid(x.first, answers[i]!.assignment!);
      balanced(x.first, answers[i]!.assignment!);
      return x.second(answers[i]!.assignment!);
    });
    const again = run([...seconds, ...seconds.slice(0, 10).map((c) => ({ ...c, mode: 'interpreter' as const }))]);
    seconds.forEach((c, i) => {
      expect(again[i]!.fallbacks).toBe(0);
      valid(c, again[i]!.assignment!);
      if (!looksGrown(c)) balanced(c, again[i]!.assignment!);
    });
    // Chicory's interpreter and its compiler run the same module: the same answers.
    for (let i = 0; i < 10; i++) expect(again[seconds.length + i]!.assignment).toEqual(again[i]!.assignment);
  });

  it('members on disjoint topic sets (one subscriber list per set, shared by its topics) get what Node\'s preview gives', () => {
    // The plugin writes one list per subscription when no topic is in two of them: here three
    // lists, two of them of two members (each member has its own set; equal sets are shared).
    const group: GroupSpec = {
      topics: [
        { name: 'a-1', partitions: 5 }, { name: 'b-1', partitions: 3 }, { name: 'a-2', partitions: 4 },
        { name: 'c-1', partitions: 2 }, { name: 'b-2', partitions: 6 },
      ],
      members: [
        { id: 'm-b2', topics: ['b-2', 'b-1'] }, { id: 'm-a1', topics: ['a-1', 'a-2'] }, { id: 'm-c', topics: ['c-1'] },
        { id: 'm-b1', topics: ['b-1', 'b-2'] }, { id: 'm-a2', topics: ['a-2', 'a-1'] },
      ],
    };
    const [out] = run([caseOf(group, 'kernel')]);
    expect(out!.fallbacks).toBe(0);
    expect(nonEmpty(out!.assignment!)).toEqual(nodeSticky(group));
    for (const m of ['m-a1', 'm-a2']) expect(Object.keys(out!.assignment![m]!).sort()).toEqual([id('a-1'), id('a-2')].sort());
  });

  it('answers what Node\'s preview answers (assignGroup, protocol consumer, strategy sticky), from nothing and after a leave', () => {
    const groups = Array.from({ length: 60 }, (_, i) => randomGroup(random(424242 + i * 31)));
    const firsts = run(groups.map((g) => caseOf(g, 'kernel')));
    const names = new Map(groups.flatMap((g) => g.topics.map((t) => [id(t.name), t.name] as const)));
    const seconds = groups.map((g, i) => {
      const answer = firsts[i]!.assignment!;
      const r = random(i + 1);
      const members = g.members.map((m) => ({ ...m, owned: Object.fromEntries(Object.entries(answer[m.id]!).map(([t, ps]) => [names.get(t)!, ps])) }));
      if (members.length > 1) members.splice(r(members.length), 1);
      return { ...g, members };
    });
    const again = run(seconds.map((g) => caseOf(g, 'kernel')));
    groups.forEach((g, i) => {
      expect(firsts[i]!.fallbacks).toBe(0);
      expect(nonEmpty(firsts[i]!.assignment!)).toEqual(nodeSticky(g));
      expect(again[i]!.fallbacks).toBe(0);
      expect(nonEmpty(again[i]!.assignment!)).toEqual(nodeSticky(seconds[i]!));
    });
  });
});
