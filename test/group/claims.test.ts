// The sticky group's rules both client adapters follow (src/group/claims.ts), without a client:
// what a member claims, how a leader completes the counts members could not echo, when a member's
// claims keep naming the first generation of an unchanged run, and which notes a leader keeps.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { claimsOf, completeClaims, nextHolding, planMember, rememberPlan, type Holding, type Note } from '../../src/group/claims.js';
import { ClaimArena, encodeClaims } from '../../src/group/protocol.js';
import { planGroup, type PlanMember } from '../../src/group/sticky/plan.js';

const holding = (generation: number, topics: Record<string, number[]>, counts: Record<string, number> = {}): Holding => ({
  generation,
  fingerprint: '',
  topics: Object.entries(topics).map(([topic, partitions]) => ({ topic, partitions })),
  counts: new Map(Object.entries(counts)),
});

/** The members a leader reads: each one's claims through the wire format and back. */
function members(list: [string, string[], Holding | null][]): PlanMember[] {
  const arena = new ClaimArena();
  return list.map(([id, topics, held]) => planMember(id, topics, encodeClaims(claimsOf(held, topics, null)), arena));
}

describe('claimsOf: what a member claims', () => {
  it('its partitions per subscribed topic, in the subscription order, ascending and distinct; nothing of a topic it left', () => {
    const c = claimsOf(holding(7, { b: [3, 1, 3, -1], gone: [0], a: [2] }, { a: 4, b: 4, gone: 1 }), ['a', 'b'], 'r1');
    expect({ ...c, topic: [...c.topic], count: [...c.count], start: [...c.start], partitions: [...c.partitions] }).toEqual({
      generation: 7,
      rack: 'r1',
      fingerprint: '',
      topic: [0, 1],
      count: [4, 4],
      start: [0, 1, 3],
      partitions: [2, 1, 3],
    });
  });

  it('a count it does not know, or one its partitions do not fit (the topic grew before the leader assigned), is sent as unknown (0)', () => {
    expect([...claimsOf(holding(3, { a: [9] }, { a: 8 }), ['a'], null).count]).toEqual([0]);
    expect([...claimsOf(holding(3, { a: [7] }, { a: 8 }), ['a'], null).count]).toEqual([8]);
    expect([...claimsOf(holding(3, { a: [1] }), ['a'], null).count]).toEqual([0]);
  });

  it('a member that holds nothing claims generation -1 and no topic', () => {
    const c = claimsOf(null, ['a'], null);
    expect([c.generation, c.topic.length, c.partitions.length]).toEqual([-1, 0, 0]);
  });
});

describe('completeClaims: the counts members could not echo', () => {
  it('a count unknown at a generation no one else recorded takes the newest earlier count that covers its partitions', () => {
    const pm = members([
      ['k1', ['a'], holding(6, { a: [4, 5, 6, 7] })],
      ['p1', ['a'], holding(4, { a: [0, 1, 2, 3] }, { a: 8 })],
    ]);
    completeClaims(pm, new Map());
    expect([...pm[0]!.claims!.count]).toEqual([8]);
    // Not when that count would not cover what the claim names: it stays unknown.
    const pm2 = members([
      ['k1', ['a'], holding(6, { a: [4, 12] })],
      ['p1', ['a'], holding(4, { a: [0, 1, 2, 3] }, { a: 8 })],
    ]);
    completeClaims(pm2, new Map());
    expect([...pm2[0]!.claims!.count]).toEqual([0]);
  });

  it('a member of the same generation takes the count another recorded, so growth to a multiple keeps keys', () => {
    const pm = members([
      ['k1', ['a'], holding(4, { a: [4, 5, 6, 7] })],
      ['p1', ['a'], holding(4, { a: [0, 1, 2, 3] }, { a: 8 })],
    ]);
    completeClaims(pm, new Map());
    expect([...pm[0]!.claims!.count]).toEqual([8]);
    const plan = planGroup(pm, [{ name: 'a', partitions: 16 }], { growthSkew: 2, coPartitioned: [] });
    expect(plan.report.growth).toEqual([expect.objectContaining({ topic: 'a', from: 8, to: 16, keysKept: true })]);
  });

  it("claims of a generation the leader assigned get that note's fingerprint and counts; others are left alone", () => {
    const pm = members([
      ['x', ['a'], holding(5, { a: [1] })],
      ['y', ['a'], holding(4, { a: [1] })],
    ]);
    completeClaims(pm, new Map([[5, { generation: 5, fingerprint: '0123456789abcdef', counts: new Map([['a', 3]]) }]]));
    expect([pm[0]!.claims!.fingerprint, [...pm[0]!.claims!.count]]).toEqual(['0123456789abcdef', [3]]);
    expect([pm[1]!.claims!.fingerprint, [...pm[1]!.claims!.count]]).toEqual(['', [0]]);
  });
});

describe('nextHolding: claims name the first generation of an unchanged run', () => {
  it('the generation right after, with the same partitions, counts and fingerprint, continues the run; any change starts a new one', () => {
    const g4 = nextHolding(null, holding(4, { a: [0, 1] }, { a: 4 }));
    expect([g4.generation, g4.latest]).toEqual([4, 4]);
    const g5 = nextHolding(g4, holding(5, { a: [1, 0] }, { a: 4 }));
    expect([g5.generation, g5.latest]).toEqual([4, 5]);
    expect(nextHolding(g5, holding(7, { a: [0, 1] }, { a: 4 })).generation).toBe(7); // a generation skipped
    expect(nextHolding(g5, holding(6, { a: [0] }, { a: 4 })).generation).toBe(6); // other partitions
    expect(nextHolding(g5, holding(6, { a: [0, 1] }, { a: 8 })).generation).toBe(6); // another count
    expect(nextHolding(g5, { ...holding(6, { a: [0, 1] }, { a: 4 }), fingerprint: 'f' }).generation).toBe(6);
  });

  it('the claims of a continued run are byte for byte the claims of its first generation', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 8 }), fc.integer({ min: 0, max: 100 }), (parts, g) => {
        const first = nextHolding(null, holding(g, { a: parts }, { a: 21 }));
        const later = nextHolding(first, holding(g + 1, { a: [...parts].reverse() }, { a: 21 }));
        expect(encodeClaims(claimsOf(later, ['a'], null))).toEqual(encodeClaims(claimsOf(first, ['a'], null)));
      }),
    );
  });
});

describe('rememberPlan: the notes a leader keeps', () => {
  it('keeps the newest eight, each with the plan fingerprint and counts', () => {
    const notes = new Map<number, Note>();
    const plan = planGroup([{ memberId: 'm', topics: ['a'], claims: null, readable: true }], [{ name: 'a', partitions: 3 }], { growthSkew: 2, coPartitioned: [] });
    for (let g = 1; g <= 10; g++) rememberPlan(notes, plan, g);
    expect([...notes.keys()].sort((a, b) => a - b)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    expect(notes.get(10)).toEqual({ generation: 10, fingerprint: plan.fingerprint, counts: new Map([['a', 3]]) });
  });
});
