// brokerSticky, Kafka 4.4's broker-side StickyTaskAssignor rebuilt from its rules, against the class
// itself (group-coordinator 4.4.0, members handed over in the group's canonical order): the same
// active member and the same standby members for every task, on random groups. And tag-aware mode
// against the class's answers: the same actives, and no stateful task with a worse tag spread.
import { beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { compileJava, runJava } from '../kafka/jvm.js';
import { oracleRecords, parseOracle } from './kafka-oracle.js';
import { brokerSticky } from '../../src/streams/broker-sticky.js';
import { assignStreams } from '../../src/streams/assign.js';
import { readStreamsGroup, taskName, type StreamsGroup, type StreamsGroupSpec } from '../../src/streams/input.js';
import { rng, randomStreamsGroup } from './generators.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const GROUPS = 400;

/** The group in canonical order (processes in ProcessId order, members by id), as brokerSticky reads it. */
function canonical(g: StreamsGroup, spec: StreamsGroupSpec): StreamsGroupSpec {
  const byId = new Map(spec.processes.flatMap((p) => p.members.map((m) => [m.id, m] as const)));
  return {
    ...spec,
    processes: g.processes.map((p) => ({ id: p.id, members: g.members.slice(p.firstMember, p.firstMember + p.size).map((m) => byId.get(m.id)!) })),
  };
}

describe("brokerSticky equals Kafka 4.4.0's StickyTaskAssignor", () => {
  let cp = '';
  beforeAll(() => {
    cp = compileJava('coordinator', [`${HERE}java/StreamsStickyOracle.java`], `${HERE}../kafka/target/streams-oracle`);
  }, 300_000);

  it(`gives every task the same active and standby members, on ${GROUPS} random groups`, () => {
    const rand = rng(44);
    // A quarter of them larger (up to 32 processes of up to 12 members): fuller hash tables and member heaps.
    const specs = Array.from({ length: GROUPS }, (_, i) => randomStreamsGroup(rand, i, false, i % 4 === 0 ? 4 : 1));
    const groups = specs.map((s) => readStreamsGroup(s));
    const input = `order linked\n${groups.map((g, i) => oracleRecords(`g${i}`, canonical(g, specs[i]!))).join('')}`;
    const kafka = parseOracle(runJava(cp, 'StreamsStickyOracle', [], input).stdout);
    let compared = 0;
    groups.forEach((g, i) => {
      const ours = brokerSticky(g);
      compared += g.tasks;
      const want = kafka.get(`g${i}`)!;
      for (const [mi, m] of g.members.entries()) {
        const active = [...ours.owner.keys()].filter((t) => ours.owner[t] === mi).map((t) => taskName(g, t)).sort();
        expect(active, `group ${i} member ${m.id} actives`).toEqual([...(want.active.get(m.id) ?? [])].sort());
        expect(ours.standbys[mi]!.map((t) => taskName(g, t)).sort(), `group ${i} member ${m.id} standbys`).toEqual([...(want.standby.get(m.id) ?? [])].sort());
      }
    });
    expect(compared).toBeGreaterThan(GROUPS * 10);
  }, 300_000);

  it(`tag-aware keeps the class's actives and never spreads a task less than the class, on ${GROUPS} random groups`, () => {
    const rand = rng(45);
    const specs = Array.from({ length: GROUPS }, (_, i) => randomStreamsGroup(rand, i, false, i % 4 === 0 ? 4 : 1));
    const groups = specs.map((s) => readStreamsGroup(s));
    const kafka = parseOracle(runJava(cp, 'StreamsStickyOracle', [], `order linked\n${groups.map((g, i) => oracleRecords(`g${i}`, canonical(g, specs[i]!))).join('')}`).stdout);
    let better = 0;
    groups.forEach((g, i) => {
      const want = kafka.get(`g${i}`)!;
      const ours = assignStreams(g, { mode: 'tag-aware' }).members();
      const processOf = new Map(ours.map((m) => [m.id, m.process]));
      const tags = new Map(g.processes.map((p) => [p.id, p.tags]));
      const spreads = (active: Map<string, string[]>, standby: Map<string, string[]>): Map<string, number[]> => {
        const holders = new Map<string, string[]>();
        for (const list of [active, standby]) for (const [m, ts] of list) for (const t of ts) holders.set(t, [...(holders.get(t) ?? []), processOf.get(m)!]);
        return new Map([...holders].map(([t, ps]) => [t, g.tagKeys.map((k) => new Set(ps.map((p) => tags.get(p)!.get(k))).size)]));
      };
      for (const m of ours) expect([...m.active].sort(), `group ${i} member ${m.id}`).toEqual([...(want.active.get(m.id) ?? [])].sort());
      const theirs = spreads(want.active, want.standby);
      const mine = spreads(new Map(ours.map((m) => [m.id, m.active])), new Map(ours.map((m) => [m.id, m.standby])));
      for (const [t, v] of theirs) {
        const w = mine.get(t)!;
        const k = w.findIndex((x, j) => x !== v[j]);
        if (k >= 0) expect(w[k], `group ${i} task ${t}: spread ${w} against the class's ${v}`).toBeGreaterThan(v[k]!);
        if (k >= 0) better++;
      }
    });
    expect(better).toBeGreaterThan(GROUPS / 4);
    console.log(`tag-aware: a wider tag spread than the broker's on ${better} tasks of ${GROUPS} groups, narrower on none`);
  }, 300_000);

  it('breaks ties as the class does when ids share a hash code (a HashMap bin holds several)', () => {
    // "Aa" and "BB" have one String.hashCode, so ids made of as many of them collide. Up to 7
    // process ids and 8 member ids of a process collide: one more and the bin becomes a tree.
    const blocks = (n: number): string[] => (n === 0 ? [''] : blocks(n - 1).flatMap((b) => [`${b}Aa`, `${b}BB`]));
    const ids = blocks(3);
    const rand = rng(7);
    const specs = Array.from({ length: 60 }, (_, n): StreamsGroupSpec => {
      const spec = randomStreamsGroup(rand, n, false, 2);
      return { ...spec, processes: spec.processes.map((p, q) => ({ ...p, id: q < 7 ? `p${ids[q]}` : `q${q}`, members: p.members.map((m, i) => ({ ...m, id: i < 8 ? `m${ids[i]}` + (q < 7 ? ids[q] : `x${q}`) : `${m.id}` })) })) };
    });
    const groups = specs.map((s) => readStreamsGroup(s));
    const kafka = parseOracle(runJava(cp, 'StreamsStickyOracle', [], `order linked\n${groups.map((g, i) => oracleRecords(`h${i}`, canonical(g, specs[i]!))).join('')}`).stdout);
    groups.forEach((g, i) => {
      const ours = brokerSticky(g);
      const want = kafka.get(`h${i}`)!;
      for (const [mi, m] of g.members.entries()) {
        const active = [...ours.owner.keys()].filter((t) => ours.owner[t] === mi).map((t) => taskName(g, t)).sort();
        expect(active, `group ${i} member ${m.id}`).toEqual([...(want.active.get(m.id) ?? [])].sort());
        expect(ours.standbys[mi]!.map((t) => taskName(g, t)).sort()).toEqual([...(want.standby.get(m.id) ?? [])].sort());
      }
    });
  }, 300_000);
});
