// The @platformatic/kafka adapter without a broker: what the partitioner returns for each kind of
// message, and how the sticky assigner translates @platformatic/kafka's join and assign callbacks
// (the subscription bytes are the KafkaJS assigner's, the plan is the planner's, claims survive).
import './node-guard.js';
import { channel } from 'node:diagnostics_channel';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeConsumerProtocolSubscription, encodeConsumerProtocolSubscription, defaultPartitioner, type ClusterMetadata, type ExtendedGroupProtocolSubscription, type GroupPartitionsAssignments, type MessageToProduce } from '@platformatic/kafka';
import { createJavaCompatiblePartitioner, createStickyAssigner, STICKY_ASSIGNER_NAME, STICKY_ASSIGNER_VERSION, type StickyAssignmentReport } from '../../src/platformatic/index.js';
import { API_CHANNEL, planMembers, planTopics, subscriptionTopics } from '../../src/platformatic/assigner.js';
import { claimsOf, completeClaims } from '../../src/group/claims.js';
import { ClaimArena, decodeClaims, encodeClaims, planGroup } from '../../src/platformatic/group-core.js';
import { encodeAssignment, encodeAssignmentNote, encodeSubscription } from '../../src/group/protocol.js';
import { STICKY_ASSIGNER_NAME as KAFKAJS_NAME } from '../../src/kafkajs/index.js';
import { javaUtf8Bytes, partitionForKey, toPositive } from '../../src/hashing/index.js';
import { AssignorError } from '../../src/errors.js';
import { ROOT } from '../helpers.js';

interface Vector {
  units: number[];
  murmur2: number;
}
const vectors = JSON.parse(readFileSync(`${ROOT}/test/fixtures/java-vectors.json`, 'utf8')) as Vector[];

function metadata(topics: Record<string, number>, options: { leaderless?: number[]; racks?: string[] } = {}): ClusterMetadata {
  const racks = options.racks ?? [];
  const brokers = new Map(Array.from({ length: Math.max(1, racks.length) }, (_, id) => [id, { host: '127.0.0.1', port: 9092 + id, rack: racks[id] ?? null }] as const));
  return {
    id: 'cluster',
    controllerId: 0,
    lastUpdate: 0,
    brokers,
    topics: new Map(
      Object.entries(topics).map(([name, n]) => [
        name,
        {
          id: name,
          partitionsCount: n,
          lastUpdate: 0,
          partitions: Array.from({ length: n }, (_, p) => ({ leader: options.leaderless?.includes(p) ? -1 : 0, leaderEpoch: 0, replicas: [p % brokers.size], isr: [p % brokers.size], offlineReplicas: [] })),
        },
      ]),
    ),
  };
}

const message = (key: unknown, value: unknown = 'v', topic = 't') => ({ topic, key, value }) as MessageToProduce<unknown, unknown, unknown, unknown>;

describe('createJavaCompatiblePartitioner', () => {
  const partition = (key: string | Buffer, n: number): number => {
    const bytes = typeof key === 'string' ? Buffer.from(key) : key;
    return createJavaCompatiblePartitioner()(message(key), bytes, { metadata: metadata({ t: n }) }) % n;
  };

  it("puts every published Java vector where Java's producer does, at counts that are not powers of two", () => {
    for (const v of vectors) {
      const key = String.fromCharCode(...v.units);
      const hash = createJavaCompatiblePartitioner()(message(key), Buffer.from(key), { metadata: undefined });
      expect(hash, JSON.stringify(key)).toBe(toPositive(v.murmur2));
      for (const n of [3, 5, 6, 12, 15, 37]) expect(partition(key, n), `${JSON.stringify(key)} of ${n}`).toBe(toPositive(v.murmur2) % n);
    }
  });

  it("differs from @platformatic/kafka's default partitioner for negative hashes (murmur2 >>> 0 is not toPositive)", () => {
    const negative = vectors.filter((v) => v.murmur2 < 0);
    expect(negative.length).toBeGreaterThan(0);
    let differ = 0;
    for (const v of negative) {
      const key = Buffer.from(String.fromCharCode(...v.units));
      if (defaultPartitioner(message(key), key) % 12 !== partition(key, 12)) differ++;
    }
    expect(differ).toBeGreaterThan(0);
  });

  it("hashes a string key from Java's bytes by default and from the serialized bytes with keyEncoding 'serialized'", () => {
    const key = 'order-\ud83d';
    const java = partitionForKey(javaUtf8Bytes(key), 12);
    const node = partitionForKey(Buffer.from(key), 12);
    expect(java).not.toBe(node);
    expect(partition(key, 12)).toBe(java);
    expect(createJavaCompatiblePartitioner({ keyEncoding: 'serialized' })(message(key), Buffer.from(key), { metadata: undefined }) % 12).toBe(node);
  });

  it('hashes Buffer keys (an empty one too) as they are, unreduced and never negative', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.integer({ min: 1, max: 100_000 }), (bytes, n) => {
        const key = Buffer.from(bytes);
        const h = createJavaCompatiblePartitioner()(message(key), key, { metadata: undefined });
        expect(h).toBeGreaterThanOrEqual(0);
        expect(h % n).toBe(partitionForKey(bytes, n));
      }),
      { numRuns: 300 },
    );
  });

  it('keyless: one sticky partition per topic, changed after batchSize bytes, only partitions with a leader, spread over many', () => {
    const next = createJavaCompatiblePartitioner({ batchSize: 1000 });
    const meta = { metadata: metadata({ t: 12, u: 3 }, { leaderless: [0, 5] }) };
    const value = 'x'.repeat(92); // 100 bytes as Java counts a record: 10 per sticky partition
    const seen: number[] = [];
    for (let i = 0; i < 2000; i++) seen.push(next(message(undefined, value), undefined, meta));
    for (let i = 0; i < seen.length; i += 10) expect(new Set(seen.slice(i, i + 10)).size, `messages ${i}..${i + 9}`).toBe(1);
    expect(seen.every((p) => p !== 0 && p !== 5 && p < 12)).toBe(true);
    expect(new Set(seen).size).toBe(10);
    // Another topic has its own sticky partition.
    expect(next(message(undefined, value, 'u'), undefined, meta)).toBeLessThan(3);
  });

  it('keyless before any metadata: a random non-negative int the producer reduces, not partition 0 for everyone', () => {
    const picks = new Set<number>();
    for (let i = 0; i < 40; i++) picks.add(createJavaCompatiblePartitioner()(message(null), undefined, { metadata: undefined }) % 8);
    expect(picks.size).toBeGreaterThan(1);
  });

  it('refuses bad options with a path', () => {
    expect(() => createJavaCompatiblePartitioner({ keyEncoding: 'utf16' as never })).toThrowError(expect.objectContaining({ code: 'E_CHOICES', path: 'options.keyEncoding' }));
    expect(() => createJavaCompatiblePartitioner({ batchSize: 0 })).toThrowError(expect.objectContaining({ code: 'E_RANGE', path: 'options.batchSize' }));
  });
});

/** A stand-in for the Consumer: the fields and events the assigner reads. */
let instances = 1000;
class FakeConsumer extends EventEmitter {
  readonly instanceId = instances++;
  generationId = 0;
  join(generation: number, assignments: { topic: string; partitions: number[] }[]): void {
    this.generationId = generation;
    this.emit('consumer:group:join', { groupId: 'g', memberId: 'x', generationId: generation, isLeader: false, assignments });
  }
}

/** What the leader's consumer hands partitionAssigner: each member's subscription as it decodes it from the wire. */
function decoded(subscriptions: [string, Buffer][]): Map<string, ExtendedGroupProtocolSubscription> {
  return new Map(
    subscriptions.map(([memberId, bytes]) => {
      const s = decodeConsumerProtocolSubscription(bytes);
      return [memberId, { memberId, version: s.version, topics: s.topics, metadata: s.userData, ownedPartitions: s.ownedPartitions, generationId: s.generationId, rackId: s.rackId }];
    }),
  );
}

function owners(out: GroupPartitionsAssignments[]): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const { memberId, assignments } of out) for (const [t, a] of assignments) for (const p of a.partitions) by.set(`${t}-${p}`, [...(by.get(`${t}-${p}`) ?? []), memberId]);
  return by;
}

function asHeld(out: GroupPartitionsAssignments[], memberId: string): { topic: string; partitions: number[] }[] {
  return [...(out.find((a) => a.memberId === memberId)?.assignments.values() ?? [])];
}

describe('createStickyAssigner: translation', () => {
  it('uses the KafkaJS assigner protocol name and version', () => {
    const sticky = createStickyAssigner();
    expect(STICKY_ASSIGNER_NAME).toBe(KAFKAJS_NAME);
    expect(sticky.options.protocols).toEqual([{ name: KAFKAJS_NAME, version: STICKY_ASSIGNER_VERSION }]);
  });

  it("@platformatic/kafka writes the subscription sorted, byte for byte as the KafkaJS assigner's encoder does", () => {
    const topics = ['orders', 'Zeta', 'alpha', '__proto__', 'é'];
    const userData = Buffer.from([1, 2, 3]);
    const theirs = encodeConsumerProtocolSubscription({ version: 0, topics, userData });
    expect(theirs.equals(encodeSubscription(0, subscriptionTopics(topics), userData))).toBe(true);
    expect(decodeConsumerProtocolSubscription(theirs).topics).toEqual(subscriptionTopics(topics));
  });

  it("a member's join metadata claims what it holds, with its generation, rack and the counts it saw at its join", () => {
    const sticky = createStickyAssigner({ rackId: 'r1' });
    const consumer = new FakeConsumer();
    sticky.attach(consumer);
    const meta = metadata({ b: 4, a: 6 });
    const fresh = decodeClaims(sticky.options.protocolsMetadata([], ['b', 'a'], meta), 2)!;
    expect(fresh.generation).toBe(-1);
    consumer.join(7, [{ topic: 'b', partitions: [3, 1] }, { topic: 'a', partitions: [0] }, { topic: 'gone', partitions: [2] }]);
    const c = decodeClaims(sticky.options.protocolsMetadata([], ['b', 'a'], meta), 2)!;
    expect({ generation: c.generation, rack: c.rack, fingerprint: c.fingerprint }).toEqual({ generation: 7, rack: 'r1', fingerprint: '' });
    // Topics index the sorted subscription ['a', 'b']; partitions ascending.
    expect([Array.from(c.topic), Array.from(c.count), Array.from(c.start), Array.from(c.partitions)]).toEqual([[0, 1], [6, 4], [0, 1, 3], [0, 1, 3]]);
    consumer.emit('consumer:group:leave', { groupId: 'g', memberId: 'x' });
    expect(decodeClaims(sticky.options.protocolsMetadata([], ['b', 'a'], meta), 2)!.generation).toBe(-1);
  });

  it("a KafkaJS leader's note, read from this consumer's own SyncGroup answer, is echoed: its fingerprint and counts", () => {
    const sticky = createStickyAssigner();
    const consumer = new FakeConsumer();
    sticky.attach(consumer);
    const meta = metadata({ a: 16, b: 4 });
    sticky.options.protocolsMetadata([], ['a', 'b'], meta); // joined seeing 16 partitions of a
    const answer = encodeAssignment(0, ['b', 'a'], [[2], [1, 3]], encodeAssignmentNote({ fingerprint: '00000000000000ff', counts: Int32Array.from([4, 8]) }));
    const publish = (ownerId: number, assignment: Uint8Array) => channel(API_CHANNEL).publish({ apiKey: 14, connection: { ownerId }, result: { assignment } });
    publish(consumer.instanceId + 1, encodeAssignment(0, ['a'], [[0]], encodeAssignmentNote({ fingerprint: '0000000000000001', counts: Int32Array.from([99]) }))); // another consumer's
    publish(consumer.instanceId, answer);
    consumer.join(9, [{ topic: 'a', partitions: [1, 3] }, { topic: 'b', partitions: [2] }]);
    const c = decodeClaims(sticky.options.protocolsMetadata([], ['a', 'b'], meta), 2)!;
    expect({ generation: c.generation, fingerprint: c.fingerprint, count: Array.from(c.count) }).toEqual({ generation: 9, fingerprint: '00000000000000ff', count: [8, 4] });
    // A @platformatic/kafka leader's answer has no note: the counts seen at the join are claimed.
    publish(consumer.instanceId, encodeAssignment(0, ['a'], [[1, 3]], new Uint8Array(0)));
    consumer.join(10, [{ topic: 'a', partitions: [1, 3] }]);
    const d = decodeClaims(sticky.options.protocolsMetadata([], ['a', 'b'], meta), 2)!;
    expect({ fingerprint: d.fingerprint, count: Array.from(d.count) }).toEqual({ fingerprint: '', count: [16] });
    consumer.emit('client:close');
  });

  it('join metadata stays byte for byte the same across generations that change nothing for the member, so a redundant rejoin starts no rebalance', () => {
    const sticky = createStickyAssigner();
    const consumer = new FakeConsumer();
    sticky.attach(consumer);
    const meta = metadata({ a: 8, b: 4 });
    const join = () => Buffer.from(sticky.options.protocolsMetadata([], ['a', 'b'], meta));
    join();
    consumer.join(5, [{ topic: 'a', partitions: [1, 3] }, { topic: 'b', partitions: [2] }]);
    const at5 = join();
    expect(decodeClaims(at5, 2)!.generation).toBe(5);
    // Generations 6 and 7 give the same partitions (listed in another order): the claims still name 5.
    consumer.join(6, [{ topic: 'b', partitions: [2] }, { topic: 'a', partitions: [3, 1] }]);
    expect(join().equals(at5)).toBe(true);
    consumer.join(7, [{ topic: 'a', partitions: [1, 3] }, { topic: 'b', partitions: [2] }]);
    expect(join().equals(at5)).toBe(true);
    // A generation missed (9 after 7: the member was not given 8) ends the run, so does a change.
    consumer.join(9, [{ topic: 'a', partitions: [1, 3] }, { topic: 'b', partitions: [2] }]);
    expect(decodeClaims(join(), 2)!.generation).toBe(9);
    consumer.join(10, [{ topic: 'a', partitions: [1] }, { topic: 'b', partitions: [2] }]);
    expect(decodeClaims(join(), 2)!.generation).toBe(10);
    consumer.join(11, [{ topic: 'a', partitions: [1] }, { topic: 'b', partitions: [2] }]);
    expect(decodeClaims(join(), 2)!.generation).toBe(10);
    // New counts at the join (a topic grew) end it too, even with the same partitions.
    sticky.options.protocolsMetadata([], ['a', 'b'], metadata({ a: 16, b: 4 }));
    consumer.join(12, [{ topic: 'a', partitions: [1] }, { topic: 'b', partitions: [2] }]);
    expect(decodeClaims(join(), 2)!.generation).toBe(12);
  });

  it('claims of one group from different generations that cover every partition once keep the assignment as it is', () => {
    const topics = { a: 8, b: 6 };
    const meta = metadata(topics);
    const ids = ['p1', 'p2', 'p3'];
    const reports: StickyAssignmentReport[] = [];
    const assigners = ids.map(() => createStickyAssigner({ onAssignment: (r) => reports.push(r) }));
    const consumers = ids.map(() => new FakeConsumer());
    assigners.forEach((s, i) => s.attach(consumers[i]!));
    const round = (generation: number, synced: string[]): GroupPartitionsAssignments[] => {
      const subs = ids.map((id) => [id, encodeConsumerProtocolSubscription({ version: 0, topics: Object.keys(topics), userData: assigners[ids.indexOf(id)]!.options.protocolsMetadata([], Object.keys(topics), meta) })] as [string, Buffer]);
      consumers[0]!.generationId = generation;
      const out = assigners[0]!.options.partitionAssigner('p1', decoded(subs), new Set(), meta);
      for (const id of synced) consumers[ids.indexOf(id)]!.join(generation, asHeld(out, id));
      return out;
    };
    const first = round(1, ids);
    round(2, ['p1', 'p2']); // p3's SyncGroup failed: it still names generation 1, the others 1 too (unchanged run)
    round(3, ids); // p3 now names 3, p1 and p2 still 1
    const fourth = round(4, ids);
    expect(reports.slice(1).map((r) => r.unchanged)).toEqual([true, true, true]);
    expect([...owners(fourth)]).toEqual([...owners(first)]);
  });

  it('the leader plans exactly what the planner plans from the same members, and every partition has one owner', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 4 }), (M, counts) => {
        const topics = Object.fromEntries(counts.map((n, i) => [`t${i}`, n]));
        const names = Object.keys(topics);
        const subs: [string, Buffer][] = Array.from({ length: M }, (_, m) => [`m${m}`, encodeConsumerProtocolSubscription({ version: 0, topics: names.filter((_, i) => (i + m) % 3 !== 2 || names.length === 1), userData: Buffer.from(encodeClaims(claimsOf(null, [], null))) })]);
        const sticky = createStickyAssigner();
        sticky.attach(new FakeConsumer());
        const meta = metadata(topics);
        const members = decoded(subs);
        const out = sticky.options.partitionAssigner('m0', members, new Set(), meta);
        const plan = planGroup(planMembers(members, new ClaimArena()), planTopics(meta, names), { growthSkew: 2, coPartitioned: [] });
        expect(out.map((a) => a.memberId)).toEqual(plan.memberIds);
        out.forEach(({ memberId, assignments }, m) => {
          const expected: [string, number[]][] = [];
          for (let e = plan.entryStart[m]!; e < plan.entryStart[m + 1]!; e++) expected.push([plan.topics[plan.entryTopic[e]!]!, Array.from(plan.partitionsByOwner[plan.entryTopic[e]!]!.subarray(plan.entryFrom[e]!, plan.entryTo[e]!))]);
          expect([...assignments].map(([t, a]) => [t, a.partitions]), memberId).toEqual(expected);
          for (const [t, a] of assignments) expect(a.topic).toBe(t);
        });
        // Deterministic: the order in which the client lists members does not matter.
        const reversed = new Map([...members].reverse());
        const again = createStickyAssigner();
        again.attach(new FakeConsumer());
        expect(again.options.partitionAssigner('m0', reversed, new Set(), meta)).toEqual(out);
        const own = owners(out);
        for (const [t, n] of Object.entries(topics)) {
          const subscribed = [...members.values()].some((s) => s.topics!.includes(t));
          for (let p = 0; p < n; p++) expect(own.get(`${t}-${p}`)?.length ?? 0, `${t}-${p}`).toBe(subscribed ? 1 : 0);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("sticky across rounds: a member's claims keep its partitions; the leader's own generations are kept unchanged", () => {
    const topics = { a: 8, b: 6, c: 5 };
    const meta = metadata(topics);
    const ids = ['p1', 'p2', 'p3', 'p4'];
    const assigners = ids.map(() => createStickyAssigner({ onAssignment: (r) => reports.push(r) }));
    const consumers = ids.map(() => new FakeConsumer());
    assigners.forEach((s, i) => s.attach(consumers[i]!));
    const reports: StickyAssignmentReport[] = [];
    const round = (generation: number, present: string[], synced = true): GroupPartitionsAssignments[] => {
      const subs = present.map((id) => [id, encodeConsumerProtocolSubscription({ version: 0, topics: Object.keys(topics), userData: assigners[ids.indexOf(id)]!.options.protocolsMetadata([], Object.keys(topics), meta) })] as [string, Buffer]);
      consumers[0]!.generationId = generation;
      const out = assigners[0]!.options.partitionAssigner(present[0]!, decoded(subs), new Set(), meta);
      if (synced) for (const id of present) consumers[ids.indexOf(id)]!.join(generation, asHeld(out, id));
      return out;
    };
    const first = round(1, ['p1', 'p2', 'p3']);
    const second = round(2, ['p1', 'p2', 'p3']);
    expect(reports[1]!.unchanged, 'the leader remembered generation 1: the same group is kept as it is').toBe(true);
    expect([...owners(second)]).toEqual([...owners(first)]);
    // Generation 3 is planned but its SyncGroup fails (a member rejoined meanwhile): everyone still
    // holds generation 2 at generation 4, and the leader still knows that generation's note.
    round(3, ['p1', 'p2', 'p3'], false);
    const fourth = round(4, ['p1', 'p2', 'p3']);
    expect(reports[3]!.unchanged).toBe(true);
    expect([...owners(fourth)]).toEqual([...owners(first)]);
    round(5, ['p1', 'p2', 'p3', 'p4']);
    expect(reports[4]!.placed).toBe(0);
    expect(reports[4]!.kept + reports[4]!.moved).toBe(19);
    expect(reports[4]!.moved).toBeLessThanOrEqual(5); // the newcomer's share, no more
  });

  it('completeClaims: a KafkaJS member after a @platformatic/kafka leader claims count 0; the leader fills the count, so growth keeps keys', () => {
    const arena = new ClaimArena();
    // Generation 4 was assigned by a leader that is gone; p1 recorded counts at its join, k1 (KafkaJS, no note) could not.
    const p1 = claimsOf({ generation: 4, fingerprint: '', topics: [{ topic: 'a', partitions: [0, 1, 2, 3] }], counts: new Map([['a', 8]]) }, ['a'], null);
    const k1 = claimsOf({ generation: 4, fingerprint: '', topics: [{ topic: 'a', partitions: [4, 5, 6, 7] }], counts: new Map() }, ['a'], null);
    const members = decoded([
      ['k1', Buffer.from(encodeSubscription(0, ['a'], encodeClaims(k1)))],
      ['p1', encodeConsumerProtocolSubscription({ version: 0, topics: ['a'], userData: Buffer.from(encodeClaims(p1)) })],
    ]);
    const pm = planMembers(members, arena);
    expect(Array.from(pm[0]!.claims!.count)).toEqual([0]);
    completeClaims(pm, new Map());
    expect(Array.from(pm[0]!.claims!.count)).toEqual([8]);
    const plan = planGroup(pm, planTopics(metadata({ a: 16 }), ['a']), { growthSkew: 2, coPartitioned: [] });
    expect(plan.report.growth).toEqual([expect.objectContaining({ topic: 'a', from: 8, to: 16, keysKept: true })]);
  });

  it("racks come from the brokers' racks of each partition's replicas", () => {
    const [t] = planTopics(metadata({ a: 4 }, { racks: ['r0', 'r1'] }), ['a']);
    expect([0, 1, 2, 3].map((p) => t!.racksOf!(p))).toEqual([['r0'], ['r1'], ['r0'], ['r1']]);
    expect(planTopics(metadata({ a: 4 }), ['a', 'missing'])).toEqual([{ name: 'a', partitions: 4 }, { name: 'missing', partitions: 0 }]);
  });

  it('unreadable userData counts as owning nothing, not as an error', () => {
    const members = decoded([
      ['m1', encodeConsumerProtocolSubscription({ version: 0, topics: ['a'], userData: Buffer.from('not ours') })],
      ['m2', encodeConsumerProtocolSubscription({ version: 0, topics: ['a'] })],
    ]);
    const reports: StickyAssignmentReport[] = [];
    const sticky = createStickyAssigner({ onAssignment: (r) => reports.push(r) });
    sticky.attach(new FakeConsumer());
    const out = sticky.options.partitionAssigner('m1', members, new Set(['a']), metadata({ a: 4 }));
    expect([...owners(out).values()].every((o) => o.length === 1)).toBe(true);
    expect(reports[0]!.unreadableMembers).toEqual(['m1']);
  });

  it('refuses a join before attach(), a second attach, and bad options, each with a code and a path', () => {
    const sticky = createStickyAssigner();
    expect(() => sticky.options.protocolsMetadata([], ['a'], metadata({ a: 1 }))).toThrowError(expect.objectContaining({ code: 'E_INPUT', path: 'attach' }));
    sticky.attach(new FakeConsumer());
    expect(() => sticky.attach(new FakeConsumer())).toThrowError(AssignorError);
    expect(() => sticky.attach(null as never)).toThrowError(AssignorError);
    expect(() => createStickyAssigner({ growthSkew: 0.5 })).toThrowError(expect.objectContaining({ code: 'E_RANGE', path: 'options.growthSkew' }));
    expect(() => createStickyAssigner({ rackId: 5 as never })).toThrowError(expect.objectContaining({ code: 'E_INPUT', path: 'options.rackId' }));
    expect(() => createStickyAssigner({ coPartitioned: [{ name: 'x', topics: ['a'] }] })).toThrowError(expect.objectContaining({ path: 'options.coPartitioned[0].topics' }));
    expect(() => createStickyAssigner({ growthCheckMs: -1 })).toThrowError(expect.objectContaining({ code: 'E_RANGE', path: 'options.growthCheckMs' }));
  });

  it('joins again when a topic it joined with gained partitions, once per growth, and stops at close', async () => {
    const sticky = createStickyAssigner({ growthCheckMs: 10 });
    let partitions = 4;
    let joins = 0;
    const consumer = Object.assign(new FakeConsumer(), {
      metadata: async () => metadata({ a: partitions }),
      joinGroup: async () => {
        joins++;
        sticky.options.protocolsMetadata([], ['a'], metadata({ a: partitions })); // what a join does
      },
    });
    sticky.attach(consumer);
    sticky.options.protocolsMetadata([], ['a'], metadata({ a: 4 }));
    const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
    await wait(60);
    expect(joins, 'not in a group yet, and nothing grew').toBe(0);
    consumer.join(1, [{ topic: 'a', partitions: [0, 1, 2, 3] }]);
    partitions = 8;
    await wait(80);
    expect(joins).toBe(1);
    consumer.emit('client:close');
    partitions = 16;
    await wait(60);
    expect(joins, 'no check after close').toBe(1);
  });
});
