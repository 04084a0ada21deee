// StickyAssigner as KafkaJS sees it: the wire format is KafkaJS's own (byte for byte), the group
// survives members of other versions and damaged userData, stale generations lose, growth keeps
// keys within the documented bound, co-partitioned topics move together, racks are preferred,
// options are checked, and the same input always gives the same bytes.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AssignerProtocol, type Cluster, type Logger } from 'kafkajs';
import { createStickyAssigner, StickyAssigner, STICKY_ASSIGNER_NAME, STICKY_ASSIGNER_VERSION, type StickyAssignmentReport } from '../../src/kafkajs/index.js';
import { AssignorError } from '../../src/errors.js';
import { decodeAssignment, decodeAssignmentNote, decodeClaims, decodeSubscription, encodeAssignment, encodeAssignmentNote, encodeAssignments, encodeClaims, encodeSubscription } from '../../src/group/protocol.js';
import { GROUP, leave, rebalance, SimMember, World } from './group-sim.js';
import { judge, type Assignment } from '../group/sticky-oracle.js';
import { caught } from '../helpers.js';

const topicName = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).filter((s) => !/^\d+$/.test(s));

describe('wire format: KafkaJS AssignerProtocol, byte for byte', () => {
  it('MemberMetadata', () => {
    fc.assert(
      fc.property(fc.array(topicName, { maxLength: 12 }), fc.uint8Array({ maxLength: 64 }), fc.integer({ min: -32768, max: 32767 }), (topics, userData, version) => {
        const ours = encodeSubscription(version, topics, userData);
        expect(Buffer.from(ours).equals(AssignerProtocol.MemberMetadata.encode({ version, topics, userData: Buffer.from(userData) }))).toBe(true);
        const back = decodeSubscription(ours)!;
        expect({ ...back, userData: Buffer.from(back.userData) }).toEqual({ version, topics, userData: Buffer.from(userData) });
      }),
    );
  });

  it('MemberAssignment (KafkaJS decodes ours, we decode KafkaJS)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(topicName, { maxLength: 8 }), fc.array(fc.array(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { maxLength: 20 }), { minLength: 8, maxLength: 8 }), fc.uint8Array({ maxLength: 32 }), (topics, parts, userData) => {
        const partitions = topics.map((_, i) => parts[i]!);
        const ours = encodeAssignment(STICKY_ASSIGNER_VERSION, topics, partitions, userData);
        const assignment = Object.fromEntries(topics.map((t, i) => [t, partitions[i]!]));
        expect(Buffer.from(ours).equals(AssignerProtocol.MemberAssignment.encode({ version: STICKY_ASSIGNER_VERSION, assignment, userData: Buffer.from(userData) }))).toBe(true);
        // KafkaJS's decoder assigns topics into a plain object, so a topic named `__proto__` (a legal
        // Kafka name) becomes that object's prototype there; ours keeps it as a name (checked below).
        if (!topics.includes('__proto__')) expect(AssignerProtocol.MemberAssignment.decode(Buffer.from(ours))).toEqual({ version: STICKY_ASSIGNER_VERSION, assignment, userData: Buffer.from(userData) });
        const back = decodeAssignment(ours)!;
        expect(back.topics).toEqual(topics);
        expect(back.partitions.map((p) => Array.from(p))).toEqual(partitions);
      }),
    );
  });

  it('a topic named __proto__ is a name like any other, on both ends of the wire', () => {
    const ours = encodeAssignment(STICKY_ASSIGNER_VERSION, ['__proto__', 'constructor'], [[3, 1], [0]], new Uint8Array(0));
    const back = decodeAssignment(ours)!;
    expect(back.topics).toEqual(['__proto__', 'constructor']);
    expect(back.partitions.map((p) => Array.from(p))).toEqual([[3, 1], [0]]);
    const sub = decodeSubscription(encodeSubscription(0, ['__proto__'], new Uint8Array(0)))!;
    expect(sub.topics).toEqual(['__proto__']);
  });

  it('encodeAssignments (the leader\'s flat, word-at-a-time encoder) writes what encodeAssignment and encodeAssignmentNote write', () => {
    const hex = fc.stringMatching(/^[0-9a-f]{16}$/);
    fc.assert(
      fc.property(
        fc.uniqueArray(topicName, { minLength: 1, maxLength: 8 }),
        fc.array(fc.array(fc.array(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { maxLength: 6 }), { minLength: 8, maxLength: 8 }), { maxLength: 5 }),
        fc.array(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { minLength: 8, maxLength: 8 }),
        hex,
        fc.integer({ min: -32768, max: 32767 }),
        (topics, members, countList, fingerprint, version) => {
          // Member m is given topic t's list members[m][t] when it is not empty, topics ascending.
          const T = topics.length;
          const counts = Int32Array.from(countList.slice(0, T));
          const source: Int32Array[] = topics.map(() => new Int32Array(0));
          const flat: number[][] = topics.map(() => []);
          const entryStart = [0];
          const entryTopic: number[] = [];
          const entryFrom: number[] = [];
          const entryTo: number[] = [];
          members.forEach((lists) => {
            for (let t = 0; t < T; t++) {
              if (lists[t]!.length === 0) continue;
              entryTopic.push(t);
              entryFrom.push(flat[t]!.length);
              flat[t]!.push(...lists[t]!);
              entryTo.push(flat[t]!.length);
            }
            entryStart.push(entryTopic.length);
          });
          topics.forEach((_, t) => (source[t] = Int32Array.from(flat[t]!)));
          const out = encodeAssignments(version, { topics, counts, fingerprint, partitionsByOwner: source, entryStart: Int32Array.from(entryStart), entryTopic: Int32Array.from(entryTopic), entryFrom: Int32Array.from(entryFrom), entryTo: Int32Array.from(entryTo) });
          expect(out.length).toBe(members.length);
          members.forEach((lists, m) => {
            const mine = topics.map((_, t) => t).filter((t) => lists[t]!.length > 0);
            const note = encodeAssignmentNote({ fingerprint, counts: Int32Array.from(mine, (t) => counts[t]!) });
            const expected = encodeAssignment(version, mine.map((t) => topics[t]!), mine.map((t) => lists[t]!), note);
            expect(Buffer.from(out[m]!).equals(expected)).toBe(true);
            expect(decodeAssignmentNote(decodeAssignment(out[m]!)!.userData)!.fingerprint).toBe(fingerprint);
          });
        },
      ),
    );
  });

  it('any bytes decode to a value or null, never an exception', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(20), (bytes, topics) => {
        decodeSubscription(bytes);
        decodeAssignment(bytes);
        decodeClaims(bytes, topics);
        // Our header followed by garbage too.
        decodeClaims(Uint8Array.from([0x41, 0x53, 1, 0, ...bytes]), topics);
      }),
      { numRuns: 2000 },
    );
  });

  it('claims round-trip; damaged or foreign claims read as none', () => {
    const claims = { generation: 41, rack: 'eu-1ä', fingerprint: '0123456789abcdef', topic: Int32Array.from([1, 0]), count: Int32Array.from([16, 8]), start: Int32Array.from([0, 3, 4]), partitions: Int32Array.from([0, 5, 2 ** 31 - 1, 7]) };
    const bytes = encodeClaims(claims);
    expect(decodeClaims(bytes, 2)).toEqual(claims);
    expect(decodeClaims(bytes, 1)).toBeNull(); // topic index out of range
    for (let cut = 0; cut < bytes.length; cut++) expect(decodeClaims(bytes.subarray(0, cut), 2)).toBeNull();
    const newerMajor = Uint8Array.from(bytes);
    newerMajor[2] = 2;
    expect(decodeClaims(newerMajor, 2)).toBeNull();
    const newerMinor = Uint8Array.from([...bytes, 9, 9, 9]);
    newerMinor[3] = 7;
    expect(decodeClaims(newerMinor, 2)).toEqual(claims); // minors only append
  });
});

describe('StickyAssigner in a group', () => {
  it('is named and versioned for KafkaJS, and protocol() is KafkaJS MemberMetadata', () => {
    const world = new World();
    world.addTopic('t', 3);
    const m = new SimMember('a', ['t', 'u'], world, StickyAssigner);
    expect(m.assigner.name).toBe(STICKY_ASSIGNER_NAME);
    expect(m.assigner.version).toBe(0);
    const state = m.assigner.protocol({ topics: ['t', 'u'] });
    expect(state.name).toBe(STICKY_ASSIGNER_NAME);
    const decoded = AssignerProtocol.MemberMetadata.decode(state.metadata)!;
    expect(decoded.version).toBe(0);
    expect(decoded.topics).toEqual(['t', 'u']);
  });

  it('members of other versions, garbage userData and unreadable metadata do not break the group', async () => {
    const world = new World();
    world.addTopic('t', 6);
    const reports: StickyAssignmentReport[] = [];
    const leader = new SimMember('leader', ['t'], world, createStickyAssigner({ onAssignment: (r) => reports.push(r) }));
    const claimsV2 = Uint8Array.from([0x41, 0x53, 2, 0, 5, 1, 2, 3]);
    const members = [
      { memberId: 'a-leader', memberMetadata: leader.assigner.protocol({ topics: ['t'] }).metadata },
      { memberId: 'b-newer', memberMetadata: Buffer.from(encodeSubscription(0, ['t'], claimsV2)) },
      { memberId: 'c-garbage-userdata', memberMetadata: Buffer.from(encodeSubscription(0, ['t'], Uint8Array.from([1, 2, 3]))) },
      { memberId: 'd-roundrobin-style', memberMetadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics: ['t'], userData: Buffer.alloc(0) }) },
      { memberId: 'e-not-metadata', memberMetadata: Buffer.from([0xff]) },
    ];
    const out = await leader.assigner.assign({ members, topics: ['t'] });
    const got = new Map(out.map((o) => [o.memberId, AssignerProtocol.MemberAssignment.decode(o.memberAssignment)?.assignment.t ?? []]));
    expect(out.map((o) => o.memberId)).toEqual(members.map((m) => m.memberId));
    expect([...got.values()].flat().sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(got.get('e-not-metadata')).toEqual([]); // subscribes nothing we can read
    for (const id of ['a-leader', 'b-newer', 'c-garbage-userdata', 'd-roundrobin-style']) expect(got.get(id)!.length).toBeGreaterThanOrEqual(1);
    expect(reports[0]!.unreadableMembers).toEqual(['b-newer', 'c-garbage-userdata', 'e-not-metadata']);
  });

  it('the same input gives the same bytes, whatever the order of members', async () => {
    const world = new World();
    world.addTopic('x', 7);
    world.addTopic('y', 5);
    const ms = ['c', 'a', 'b', '__proto__', 'constructor'].map((n) => new SimMember(n, ['x', 'y'], world, StickyAssigner));
    const members = ms.map((m, i) => ({ memberId: `${m.name}-${i}`, memberMetadata: m.assigner.protocol({ topics: m.topics }).metadata }));
    const a = await ms[0]!.assigner.assign({ members, topics: ['x', 'y'] });
    const b = await ms[3]!.assigner.assign({ members: [...members].reverse(), topics: ['y'] });
    const bytes = (r: typeof a): string[] => [...r].sort((x, y) => (x.memberId < y.memberId ? -1 : 1)).map((o) => o.memberId + ':' + o.memberAssignment.toString('hex'));
    expect(bytes(a)).toEqual(bytes(b));
  });

  it('a stale generation loses: a member the broker dropped comes back and gets nothing it used to own', async () => {
    const world = new World();
    world.addTopic('t', 4);
    const reports: StickyAssignmentReport[] = [];
    const f = createStickyAssigner({ onAssignment: (r) => reports.push(r) });
    const a = new SimMember('a', ['t'], world, f);
    const b = new SimMember('b', ['t'], world, f);
    const z = new SimMember('z', ['t'], world, f);
    await rebalance(world, [a, b, z], a, reports);
    const zOwned = z.owned.get('t') ?? [];
    expect(zOwned.length).toBeGreaterThan(0);
    const second = await rebalance(world, [a, b], a, reports); // z timed out
    z.memberId = '';
    const third = await rebalance(world, [a, b, z], b, reports); // z returns with its old claims
    expect(third.report.conflicts).toBeGreaterThan(0);
    // Whatever z gets now comes from the partitions that balance frees, never by winning its old claims.
    const v = judge(second.assignment, [a, b, z].map((m) => ({ name: m.name, topics: m.topics })), new Map([['t', 4]]), third.assignment);
    expect(v.violations).toEqual([]);
    expect(v.moved).toBe(v.minimum);
  });

  it('a clean leave forgets what the member owned', async () => {
    const world = new World();
    world.addTopic('t', 2);
    const reports: StickyAssignmentReport[] = [];
    const a = new SimMember('a', ['t'], world, createStickyAssigner({ onAssignment: (r) => reports.push(r) }));
    await rebalance(world, [a], a, reports);
    expect(a.owned.get('t')).toEqual([0, 1]);
    await leave(a);
    const claims = decodeClaims(decodeSubscription(a.assigner.protocol({ topics: ['t'] }).metadata)!.userData, 1)!;
    expect(claims.generation).toBe(-1);
    expect(claims.topic.length).toBe(0);
  });

  it('without a coordinator to observe (not KafkaJS 2.x) it warns, and still balances', async () => {
    const warnings: string[] = [];
    const logger = { info: () => undefined, debug: () => undefined, error: () => undefined, warn: (m: string) => warnings.push(m), namespace: () => logger, setLogLevel: () => undefined } as unknown as Logger;
    const world = new World();
    world.addTopic('t', 5);
    const cluster = { metadata: async ({ topics }: { topics: string[] }) => world.metadata(topics) } as unknown as Cluster;
    const assigner = StickyAssigner({ cluster, groupId: GROUP, logger });
    expect(warnings.some((w) => w.includes('not sticky'))).toBe(true);
    const members = ['a', 'b'].map((memberId) => ({ memberId, memberMetadata: assigner.protocol({ topics: ['t'] }).metadata }));
    const out = await assigner.assign({ members, topics: ['t'] });
    expect(out.map((o) => AssignerProtocol.MemberAssignment.decode(o.memberAssignment)!.assignment.t!.length).sort()).toEqual([2, 3]);
  });
});

describe('growth', () => {
  async function grown(members: number, from: number, to: number, growthSkew?: number) {
    const world = new World();
    world.addTopic('t', from);
    const reports: StickyAssignmentReport[] = [];
    const f = createStickyAssigner({ onAssignment: (r) => reports.push(r), ...(growthSkew === undefined ? {} : { growthSkew }) });
    const ms = Array.from({ length: members }, (_, i) => new SimMember(`m${i}`, ['t'], world, f));
    const before = await rebalance(world, ms, ms[0]!, reports);
    world.grow('t', to);
    const after = await rebalance(world, ms, ms[1 % members]!, reports);
    const ownerBefore = new Map<number, string>();
    for (const [m, ts] of before.assignment) for (const p of ts.get('t') ?? []) ownerBefore.set(p, m);
    const follows = Array.from({ length: to }, (_, q) => [...after.assignment].find(([, ts]) => ts.get('t')?.includes(q))![0] === ownerBefore.get(q % from));
    return { report: after.report, after: after.assignment, follows };
  }

  it('8 -> 16 with 5 members: every new partition joins the owner of p mod 8 (counts 4,4,4,2,2)', async () => {
    const { report, after, follows } = await grown(5, 8, 16);
    expect(follows.every(Boolean)).toBe(true);
    expect(report.growth).toEqual([expect.objectContaining({ topic: 't', from: 8, to: 16, keysKept: true, movedShare: 0 })]);
    expect([...after.values()].map((ts) => ts.get('t')?.length ?? 0).sort()).toEqual([2, 2, 4, 4, 4]);
    expect(report.moved).toBe(0);
  });

  it('8 -> 12 (not a multiple): reports that 1 - gcd(8,12)/8 = 1/2 of keys move, and stays strictly balanced', async () => {
    const { report, after } = await grown(3, 8, 12);
    expect(report.growth[0]).toMatchObject({ from: 8, to: 12, keysKept: false, movedShare: 0.5 });
    expect(report.growth[0]!.summary).toContain('1 - gcd(8, 12)/8');
    expect([...after.values()].map((ts) => ts.get('t')!.length)).toEqual([4, 4, 4]);
  });

  it('1 -> 4 with 4 members: keeping keys would give one member everything (over growthSkew 2); balanced instead, with the share of keys that moved', async () => {
    const { report, after } = await grown(4, 1, 4);
    expect(report.growth[0]).toMatchObject({ from: 1, to: 4, keysKept: false, movedShare: 0.75 });
    expect([...after.values()].map((ts) => ts.get('t')!.length)).toEqual([1, 1, 1, 1]);
  });

  it('growthSkew: Infinity keeps keys whatever the skew', async () => {
    const { report, follows } = await grown(4, 1, 4, Infinity);
    expect(report.growth[0]!.keysKept).toBe(true);
    expect(follows.every(Boolean)).toBe(true);
  });

  it('a rebalance that changes nothing keeps the relaxed balance of a growth (KafkaJS rejoins when a member sees new metadata late)', async () => {
    const world = new World();
    world.addTopic('t', 8);
    const reports: StickyAssignmentReport[] = [];
    const f = createStickyAssigner({ onAssignment: (r) => reports.push(r) });
    const ms = Array.from({ length: 5 }, (_, i) => new SimMember(`m${i}`, ['t'], world, f));
    await rebalance(world, ms, ms[0]!, reports);
    world.grow('t', 16);
    const grownRb = await rebalance(world, ms, ms[0]!, reports);
    const again = await rebalance(world, ms, ms[3]!, reports);
    expect(again.report.unchanged).toBe(true);
    expect(again.assignment).toEqual(grownRb.assignment);
    // A real change (a member joins) restores strict balance with the fewest moves.
    const joiner = new SimMember('m5', ['t'], world, f);
    const joined = await rebalance(world, [...ms, joiner], ms[2]!, reports);
    const v = judge(again.assignment, [...ms, joiner].map((m) => ({ name: m.name, topics: m.topics })), new Map([['t', 16]]), joined.assignment);
    expect(v.violations).toEqual([]);
    expect(v.moved).toBe(v.minimum);
  });
});

describe('co-partitioned topics', () => {
  const groups = [{ name: 'orders', topics: ['orders', 'payments', 'refunds'] }];

  function sameOwner(a: Assignment, topics: string[], count: number): boolean {
    const ownerOf = (t: string, p: number): string | undefined => [...a].find(([, ts]) => ts.get(t)?.includes(p))?.[0];
    for (let p = 0; p < count; p++) if (new Set(topics.map((t) => ownerOf(t, p))).size !== 1) return false;
    return true;
  }

  it('partition p of every topic in the group goes to one member, through joins and leaves', async () => {
    const world = new World();
    for (const t of ['orders', 'payments', 'refunds', 'other']) world.addTopic(t, 10);
    const reports: StickyAssignmentReport[] = [];
    const f = createStickyAssigner({ coPartitioned: groups, onAssignment: (r) => reports.push(r) });
    let ms = Array.from({ length: 3 }, (_, i) => new SimMember(`m${i}`, ['orders', 'payments', 'refunds', 'other'], world, f));
    for (let round = 0; round < 4; round++) {
      const rb = await rebalance(world, ms, ms[0]!, reports);
      expect(sameOwner(rb.assignment, ['orders', 'payments', 'refunds'], 10)).toBe(true);
      expect(rb.report.coPartitioned).toEqual([{ name: 'orders', topics: groups[0]!.topics, honored: true }]);
      const counts = [...rb.assignment.values()].map((ts) => ts.get('orders')?.length ?? 0);
      expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
      ms = round % 2 === 0 ? [...ms, new SimMember(`j${round}`, ms[0]!.topics, world, f)] : ms.slice(1);
    }
  });

  it('is not honored, and says why, when the partition counts differ; the assignment stays balanced', async () => {
    const world = new World();
    world.addTopic('orders', 6);
    world.addTopic('payments', 4);
    const reports: StickyAssignmentReport[] = [];
    const f = createStickyAssigner({ coPartitioned: [{ name: 'op', topics: ['orders', 'payments'] }], onAssignment: (r) => reports.push(r) });
    const ms = [0, 1].map((i) => new SimMember(`m${i}`, ['orders', 'payments'], world, f));
    const rb = await rebalance(world, ms, ms[0]!, reports);
    expect(rb.report.coPartitioned[0]).toMatchObject({ honored: false, reason: 'partition counts differ (orders has 6, payments has 4)' });
    expect(judge(null, ms, new Map([['orders', 6], ['payments', 4]]), rb.assignment).violations).toEqual([]);
  });
});

describe('racks (KIP-881 style preference, never at the cost of balance)', () => {
  it('each partition goes to the member in its replica rack when the counts allow', async () => {
    const world = new World();
    world.brokerRacks = ['a', 'b', 'c'];
    world.addTopic('t', 9, (p) => [p % 3]); // partition p lives in rack p % 3 only
    const reports: StickyAssignmentReport[] = [];
    const ms = ['a', 'b', 'c'].map((rack) => new SimMember(`in-${rack}`, ['t'], world, createStickyAssigner({ rackId: rack, onAssignment: (r) => reports.push(r) })));
    const rb = await rebalance(world, ms, ms[1]!, reports);
    expect(rb.assignment.get('in-a')!.get('t')).toEqual([0, 3, 6]);
    expect(rb.assignment.get('in-b')!.get('t')).toEqual([1, 4, 7]);
    expect(rb.assignment.get('in-c')!.get('t')).toEqual([2, 5, 8]);
    expect(rb.report).toMatchObject({ rackAware: true, rackMatched: 9 });
  });

  it('balance wins over racks: all replicas in one rack still spread evenly', async () => {
    const world = new World();
    world.brokerRacks = ['a', 'b'];
    world.addTopic('t', 6, () => [0]);
    const reports: StickyAssignmentReport[] = [];
    const ms = ['a', 'b'].map((rack) => new SimMember(`in-${rack}`, ['t'], world, createStickyAssigner({ rackId: rack, onAssignment: (r) => reports.push(r) })));
    const rb = await rebalance(world, ms, ms[0]!, reports);
    expect([...rb.assignment.values()].map((ts) => ts.get('t')!.length)).toEqual([3, 3]);
    expect(rb.report.rackMatched).toBe(3);
  });
});

describe('options are checked when the assigner is created', () => {
  it.each([
    [{ growthSkew: 0.5 }, 'E_RANGE', 'options.growthSkew'],
    [{ growthSkew: Number.NaN }, 'E_RANGE', 'options.growthSkew'],
    [{ rackId: 3 }, 'E_INPUT', 'options.rackId'],
    [{ coPartitioned: 'orders' }, 'E_INPUT', 'options.coPartitioned'],
    [{ coPartitioned: [{ name: 'a', topics: ['x'] }] }, 'E_INPUT', 'options.coPartitioned[0].topics'],
    [{ coPartitioned: [{ name: '', topics: ['x', 'y'] }] }, 'E_INPUT', 'options.coPartitioned[0].name'],
    [{ coPartitioned: [{ name: 'a', topics: ['x', 'y'] }, { name: 'a', topics: ['z', 'w'] }] }, 'E_INPUT', 'options.coPartitioned[1].name'],
    [{ coPartitioned: [{ name: 'a', topics: ['x', 'y'] }, { name: 'b', topics: ['y', 'z'] }] }, 'E_INPUT', 'options.coPartitioned[1].topics[0]'],
  ])('%j -> %s at %s', (options, code, path) => {
    const e = caught(() => createStickyAssigner(options as never));
    expect(e).toBeInstanceOf(AssignorError);
    expect([e.code, e.path]).toEqual([code, path]);
  });
});
