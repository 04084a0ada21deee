// Invariants of every strategy on random groups (fast-check), and the boundary: what assignGroup
// accepts, ignores (as Kafka does) and refuses.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { assignGroup, groupAssignmentJson, type AssignGroupOptions, type GroupSpec, type GroupStrategy } from '../../src/group/index.js';
import { caught } from '../helpers.js';
import { random, randomGroup, STRATEGIES } from './random-groups.js';

const seeds = fc.integer({ min: 1, max: 0x7fffffff });

/** Per topic, the owners' member ids (one per partition), from the result's per-member lists. */
function ownersOf(group: GroupSpec, strategy: GroupStrategy | AssignGroupOptions): Map<string, string[]> {
  const result = assignGroup(group, typeof strategy === 'string' ? { strategy } : strategy);
  const owners = new Map<string, string[]>();
  for (const [id, topics] of result.assignment) {
    for (const [t, ps] of topics) {
      const o = owners.get(t) ?? [];
      for (const p of ps) {
        expect(o[p]).toBeUndefined(); // one owner per partition
        o[p] = id;
      }
      owners.set(t, o);
      expect([...ps].sort((a, b) => a - b)).toEqual(ps); // ascending
    }
  }
  return owners;
}

describe('every strategy', () => {
  it('gives every partition of every subscribed topic to exactly one subscriber, and lists every member', () => {
    fc.assert(
      fc.property(seeds, fc.constantFrom(...STRATEGIES), (seed, strategy) => {
        const group = randomGroup(random(seed));
        const owners = ownersOf(group, strategy);
        const subscribed = new Set(group.members.flatMap((m) => m.topics));
        for (const t of group.topics) {
          if (!subscribed.has(t.name)) continue;
          const o = owners.get(t.name)!;
          expect(o.filter((x) => x !== undefined)).toHaveLength(t.partitions);
          for (const id of o) expect(group.members.find((m) => m.id === id)!.topics).toContain(t.name);
        }
        expect([...assignGroup(group, strategy).assignment.keys()]).toHaveLength(group.members.length);
      }),
      { numRuns: 150 },
    );
  });
  it('does not depend on the order of members, topics or subscriptions in the input', () => {
    fc.assert(
      fc.property(seeds, fc.constantFrom(...STRATEGIES), (seed, strategy) => {
        const group = randomGroup(random(seed));
        const shuffled: GroupSpec = { topics: [...group.topics].reverse(), members: [...group.members].reverse().map((m) => ({ ...m, topics: [...m.topics].reverse() })) };
        expect(groupAssignmentJson(assignGroup(shuffled, strategy))).toBe(groupAssignmentJson(assignGroup(group, strategy)));
      }),
      { numRuns: 100 },
    );
  });
});

describe('range', () => {
  it('without racks: per topic, consecutive ranges in member order, the first P mod S members one larger', () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const g = randomGroup(random(seed));
        const group: GroupSpec = { topics: g.topics, members: g.members.map((m) => ({ id: m.id, topics: m.topics })) };
        const owners = ownersOf(group, 'range');
        for (const t of group.topics) {
          const subs = group.members.filter((m) => m.topics.includes(t.name)).map((m) => m.id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          if (subs.length === 0) continue;
          const q = Math.floor(t.partitions / subs.length);
          const expected: string[] = [];
          subs.forEach((id, i) => {
            for (let k = 0; k < q + (i < t.partitions % subs.length ? 1 : 0); k++) expected.push(id);
          });
          expect(owners.get(t.name)).toEqual(expected);
        }
      }),
      { numRuns: 150 },
    );
  });
  it('with racks: per topic, counts still differ by at most one', () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const group = randomGroup(random(seed));
        for (const [t, o] of ownersOf(group, 'range')) {
          const n = new Map<string, number>();
          for (const m of group.members) if (m.topics.includes(t)) n.set(m.id, 0);
          for (const id of o) n.set(id, n.get(id)! + 1);
          expect(Math.max(...n.values()) - Math.min(...n.values())).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('round-robin', () => {
  it('with one subscription for all: member totals differ by at most one, dealt in id order', () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const g = randomGroup(random(seed));
        const names = g.topics.map((t) => t.name);
        const group: GroupSpec = { topics: g.topics, members: g.members.map((m) => ({ id: m.id, topics: names })) };
        const result = assignGroup(group, { strategy: 'round-robin' });
        const r = result.report;
        expect(r.balance.spread).toBeLessThanOrEqual(1);
        // The first partition of the first topic (by name) goes to the first member by id.
        const first = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[0]!;
        expect(result.assignment.get(result.memberIds[0]!)!.get(first)![0]).toBe(0);
      }),
      { numRuns: 100 },
    );
  });
});

describe('sticky', () => {
  it('keeps every owned partition when the owners still form a balanced assignment', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 5 }), (members, partitions, topics) => {
        const names = Array.from({ length: topics }, (_, i) => `t${i}`);
        const first = assignGroup({ topics: names.map((name) => ({ name, partitions })), members: Array.from({ length: members }, (_, i) => ({ id: `m${i}`, topics: names })) }, { strategy: 'round-robin' });
        const again = assignGroup(
          { topics: names.map((name) => ({ name, partitions })), members: [...first.assignment].map(([id, owned]) => ({ id, topics: names, owned: Object.fromEntries(owned), generation: 1 })) },
          { strategy: 'sticky' },
        );
        expect(again.report.kept).toBe(partitions * topics);
        expect(again.report.moved + again.report.placed).toBe(0);
      }),
      { numRuns: 60 },
    );
  });
});

describe('the consumer protocol', () => {
  const plain = (g: GroupSpec): GroupSpec => ({ topics: g.topics.map(({ racks: _, ...t }) => t), members: g.members.map((m) => ({ id: m.id, topics: m.topics, instanceId: m.instanceId })) });
  it('range gives the classic range without racks: the broker\'s and the leader\'s RangeAssignor agree', () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const group = plain(randomGroup(random(seed)));
        const classic = assignGroup(group, { strategy: 'range' });
        expect(groupAssignmentJson(assignGroup(group, { protocol: 'consumer', strategy: 'range' })).replace('"consumer"', '"classic"')).toBe(groupAssignmentJson(classic));
      }),
      { numRuns: 100 },
    );
  });
  it('uniform, one subscription for all: member totals differ by at most one, and a balanced current assignment stays', () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const g = randomGroup(random(seed));
        const names = g.topics.map((t) => t.name);
        const group: GroupSpec = { topics: g.topics, members: g.members.map((m) => ({ id: m.id, topics: names })) };
        const first = assignGroup(group, { protocol: 'consumer' });
        expect(first.report.balance.spread).toBeLessThanOrEqual(1);
        const again = assignGroup({ ...group, members: group.members.map((m) => ({ ...m, owned: Object.fromEntries(first.assignment.get(m.id)!) })) }, { protocol: 'consumer' });
        expect(again.report).toMatchObject({ kept: first.report.partitions, moved: 0, placed: 0 });
      }),
      { numRuns: 100 },
    );
  });
  it('uniform takes topic ids as given, and refuses one id on two topics', () => {
    const topics = [
      { name: 'a', partitions: 3, id: 'AAAAAAAAAAAAAAAAAAAAAg' },
      { name: 'b', partitions: 3, id: '_____________________w' },
    ];
    const members = [
      { id: 'm1', topics: ['a', 'b'] },
      { id: 'm2', topics: ['a', 'b'] },
    ];
    const r = assignGroup({ topics, members }, { protocol: 'consumer' });
    expect(r.report.balance.spread).toBe(0);
    expect(caught(() => assignGroup({ topics: [topics[0]!, { ...topics[1]!, id: topics[0]!.id }], members }, { protocol: 'consumer' }))).toMatchObject({ code: 'E_INPUT', path: 'topics[1].id' });
  });
  it('sticky (the broker plugin): valid, balanced for one subscription, whatever the member order; a balanced assignment stays', () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const g = randomGroup(random(seed));
        const names = g.topics.map((t) => t.name);
        const group: GroupSpec = { topics: g.topics, members: g.members.map((m) => ({ id: m.id, topics: names, rack: m.rack })) };
        const json = groupAssignmentJson(assignGroup(group, { protocol: 'consumer', strategy: 'sticky' }));
        const reversed = { ...group, members: [...group.members].reverse() };
        expect(groupAssignmentJson(assignGroup(reversed, { protocol: 'consumer', strategy: 'sticky' }))).toBe(json);
        ownersOf(group, { protocol: 'consumer', strategy: 'sticky' });
        const first = assignGroup(group, { protocol: 'consumer', strategy: 'sticky' });
        expect(first.report.balance.spread).toBeLessThanOrEqual(1);
        const again = assignGroup({ ...group, members: group.members.map((m) => ({ ...m, owned: Object.fromEntries(first.assignment.get(m.id)!) })) }, { protocol: 'consumer', strategy: 'sticky' });
        expect(again.report).toMatchObject({ kept: first.report.partitions, moved: 0, placed: 0 });
      }),
      { numRuns: 100 },
    );
  });
  it('sticky (the broker plugin): a topic whose owners cover exactly 0..7 of 16 grew from 8, and keeps every key', () => {
    const members = ['m1', 'm2', 'm3', 'm4'].map((id, i) => ({ id, topics: ['t'], owned: { t: [i, i + 4] } }));
    const r = assignGroup({ topics: [{ name: 't', partitions: 16 }], members }, { protocol: 'consumer', strategy: 'sticky' });
    members.forEach((m, i) => expect(r.assignment.get(m.id)!.get('t')).toEqual([i, i + 4, i + 8, i + 12]));
  });
  it.each([
    [{ protocol: 'kip-848' }, 'options.protocol'],
    [{ protocol: 'consumer', strategy: 'round-robin' }, 'options.strategy'],
    [{ strategy: 'uniform' }, 'options.strategy'],
  ])('refuses %j with E_CHOICES', (options, path) => {
    expect(caught(() => assignGroup({ topics: [], members: [] }, options as AssignGroupOptions))).toMatchObject({ code: 'E_CHOICES', path });
  });
});

describe('the boundary', () => {
  const topics = [{ name: 'a', partitions: 4 }];
  it('ignores subscribed topics without metadata and claims of partitions that no longer exist, as Kafka does', () => {
    const r = assignGroup({ topics, members: [{ id: 'x', topics: ['a', 'gone'], owned: { a: [0, 9], gone: [1] } }] }, { strategy: 'range' });
    expect(r.report).toMatchObject({ missingTopics: ['gone'], kept: 1, placed: 3, partitions: 4 });
    expect(groupAssignmentJson(r)).toContain('"assignment":{"x":{"a":[0,1,2,3]}}');
  });
  it('reads owned lists in any order, with repeats, and ignores claims of topics the member does not subscribe', () => {
    const two = [...topics, { name: 'b', partitions: 2 }];
    const r = assignGroup({ topics: two, members: [{ id: 'x', topics: ['a'], owned: { a: [3, 1, 1], b: [0] } }, { id: 'y', topics: ['a', 'b'] }] });
    expect(r.report).toMatchObject({ kept: 2, moved: 0, placed: 4, conflicts: 0 });
    expect(r.assignment.get('x')!.get('a')).toEqual([1, 3]);
  });
  it('lists a member with nothing as {}', () => {
    expect(groupAssignmentJson(assignGroup({ topics, members: [{ id: 'b', topics: ['a'] }, { id: 'a', topics: [] }] }, { strategy: 'round-robin' }))).toContain('"assignment":{"a":{},"b":{"a":[0,1,2,3]}}');
  });
  it('treats ids and topics such as __proto__ as data', () => {
    const json = groupAssignmentJson(assignGroup(JSON.parse('{"topics":[{"name":"__proto__","partitions":2}],"members":[{"id":"__proto__","topics":["__proto__"],"owned":{"__proto__":[1]}},{"id":"constructor","topics":["__proto__"]}]}'), { strategy: 'sticky' }));
    expect(JSON.parse(json).assignment).toEqual(JSON.parse('{"__proto__":{"__proto__":[1]},"constructor":{"__proto__":[0]}}'));
  });
  it('a newer generation wins a partition two members claim', () => {
    const r = assignGroup({ topics, members: [{ id: 'a', topics: ['a'], owned: { a: [0, 1] }, generation: 1 }, { id: 'b', topics: ['a'], owned: { a: [1, 2, 3] }, generation: 2 }] });
    expect(r.report.conflicts).toBe(1);
    expect(r.assignment.get('b')!.get('a')).toContain(1);
    expect(r.report).toMatchObject({ kept: 3, moved: 1 });
  });
  it.each([
    ['not an object', [], 'E_INPUT', ''],
    ['members not a list', { topics, members: { a: 1 } }, 'E_INPUT', 'members'],
    ['topics not a list', { topics: 'a', members: [] }, 'E_INPUT', 'topics'],
    ['a duplicate member id', { topics, members: [{ id: 'm', topics: [] }, { id: 'm', topics: [] }] }, 'E_INPUT', 'members[1].id'],
    ['a duplicate instance id', { topics, members: [{ id: 'm', topics: [], instanceId: 'i' }, { id: 'n', topics: [], instanceId: 'i' }] }, 'E_INPUT', 'members[1].instanceId'],
    ['a duplicate topic', { topics: [...topics, ...topics], members: [] }, 'E_INPUT', 'topics[1].name'],
    ['0 partitions', { topics: [{ name: 'a', partitions: 0 }], members: [] }, 'E_RANGE', 'topics[0].partitions'],
    ['2^31 partitions', { topics: [{ name: 'a', partitions: 2 ** 31 }], members: [] }, 'E_RANGE', 'topics[0].partitions'],
    ['racks not one per partition', { topics: [{ name: 'a', partitions: 2, racks: [['r']] }], members: [] }, 'E_INPUT', 'topics[0].racks'],
    ['a negative owned partition', { topics, members: [{ id: 'm', topics: ['a'], owned: { a: [-1] } }] }, 'E_RANGE', 'members[0].owned["a"][0]'],
    ['an unknown field', { topics, members: [{ id: 'm', topics: [], rakc: 'r' }] }, 'E_INPUT', 'members[0].rakc'],
    ['a subscription that is not a list', { topics, members: [{ id: 'm', topics: 'a' }] }, 'E_INPUT', 'members[0].topics'],
  ])('refuses %s', (_, spec, code, path) => {
    const e = caught(() => assignGroup(spec));
    expect([e.code, e.path]).toEqual([code, path]);
  });
  it('refuses an unknown strategy', () => {
    expect(caught(() => assignGroup({ topics, members: [] }, { strategy: 'cooperative' as GroupStrategy })).code).toBe('E_CHOICES');
  });
});
