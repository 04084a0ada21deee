// The sticky planner's options are checked one way at every entry point (src/group/sticky-options.ts):
// assignGroup, the KafkaJS StickyAssigner and the @platformatic/kafka assigner refuse the same bad
// option with the same code and path.
import { describe, expect, it } from 'vitest';
import { assignGroup } from '../../src/group/index.js';
import { createStickyAssigner as kafkajsAssigner } from '../../src/kafkajs/index.js';
import { createStickyAssigner as platformaticAssigner } from '../../src/platformatic/index.js';
import { caught } from '../helpers.js';

const group = { topics: [{ name: 'a', partitions: 4 }, { name: 'b', partitions: 4 }], members: [{ id: 'm', topics: ['a', 'b'] }] };
const BAD: Array<[string, Record<string, unknown>, string, string]> = [
  ['growthSkew below 1', { growthSkew: 0.5 }, 'E_RANGE', 'options.growthSkew'],
  ['growthSkew NaN', { growthSkew: Number.NaN }, 'E_RANGE', 'options.growthSkew'],
  ['coPartitioned not a list', { coPartitioned: 'a,b' }, 'E_INPUT', 'options.coPartitioned'],
  ['a co-partitioned set of one topic', { coPartitioned: [{ name: 'x', topics: ['a'] }] }, 'E_INPUT', 'options.coPartitioned[0].topics'],
  ['a topic in two sets', { coPartitioned: [{ name: 'x', topics: ['a', 'b'] }, { name: 'y', topics: ['b', 'c'] }] }, 'E_INPUT', 'options.coPartitioned[1].topics[0]'],
  ['a set name used twice', { coPartitioned: [{ name: 'x', topics: ['a', 'b'] }, { name: 'x', topics: ['c', 'd'] }] }, 'E_INPUT', 'options.coPartitioned[1].name'],
];

describe('bad sticky options: one error at every entry point', () => {
  for (const [what, options, code, path] of BAD) {
    it(what, () => {
      for (const e of [
        caught(() => assignGroup(group, { strategy: 'sticky', ...options })),
        caught(() => kafkajsAssigner(options)),
        caught(() => platformaticAssigner(options)),
      ]) {
        expect(e.code).toBe(code);
        expect(e.path).toBe(path);
      }
    });
  }

  it('a good co-partitioned set is taken by assignGroup: partition p of both topics goes to one member', () => {
    const two = { topics: group.topics, members: [{ id: 'm1', topics: ['a', 'b'] }, { id: 'm2', topics: ['a', 'b'] }] };
    const r = assignGroup(two, { coPartitioned: [{ name: 'ab', topics: ['a', 'b'] }] });
    for (const [, topics] of r.assignment) expect(topics.get('a')).toEqual(topics.get('b'));
  });
});
