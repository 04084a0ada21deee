// Kafka's own RangeAssignor and RoundRobinAssignor (kafka-clients 4.4.0 from Maven Central, run by
// test/group/java/GroupOracle.java in one JVM) against assignGroup on 600 random groups, and on
// hand-made groups that pin the rules down (co-partitioning with racks, racks on some members only,
// static members first). A missing JVM or Maven makes these tests fail, never skip.
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { compileJava, runJava } from '../kafka/jvm.js';
import { assignGroup, type GroupSpec, type GroupStrategy } from '../../src/group/index.js';
import { random, randomGroup } from './random-groups.js';

type Plain = Record<string, Record<string, number[]>>;

let oracleCp: string | undefined;
/** Kafka's answers for every group, from one JVM run. */
function kafka(groups: readonly GroupSpec[]): { range: Plain; 'round-robin': Plain }[] {
  oracleCp ??= compileJava('kafka', [fileURLToPath(new URL('./java/GroupOracle.java', import.meta.url))], join(tmpdir(), 'assignor-group-oracle'));
  return JSON.parse(runJava(oracleCp, 'GroupOracle', [], JSON.stringify(groups), '2g').stdout);
}

function ours(group: GroupSpec, strategy: GroupStrategy): Plain {
  const out: Plain = {};
  for (const [id, topics] of assignGroup(group, { strategy }).assignment) {
    const t: Record<string, number[]> = {};
    for (const [name, parts] of topics) Object.defineProperty(t, name, { value: parts, enumerable: true });
    Object.defineProperty(out, id, { value: t, enumerable: true });
  }
  return out;
}

const GROUPS = 600;

describe('range and round-robin equal Kafka 4.4.0 (the jar, one JVM for every group)', () => {
  it(`on ${GROUPS} random groups: 1-60 members, 1-12 topics, mixed subscriptions, odd ids, racks on a third`, () => {
    const r = random(0x5eed24);
    const groups = Array.from({ length: GROUPS }, () => randomGroup(r));
    // The generator does what the test claims: racks, statics, big groups and mixed subscriptions occur.
    expect(groups.filter((g) => g.members.some((m) => m.rack)).length).toBeGreaterThan(GROUPS / 5);
    expect(groups.filter((g) => g.members.length > 30).length).toBeGreaterThan(20);
    expect(groups.filter((g) => g.members.some((m) => m.instanceId)).length).toBeGreaterThan(50);
    const answers = kafka(groups);
    expect(answers).toHaveLength(GROUPS);
    let rackAware = 0;
    for (let i = 0; i < GROUPS; i++) {
      for (const strategy of ['range', 'round-robin'] as const) {
        const mine = ours(groups[i]!, strategy);
        if (JSON.stringify(mine) !== JSON.stringify(answers[i]![strategy])) {
          expect({ group: i, strategy, assignment: mine }).toEqual({ group: i, strategy, assignment: answers[i]![strategy] });
        }
      }
      // Count the groups where racks changed Kafka's range answer (the KIP-881 path really ran).
      const plain = { ...groups[i]!, members: groups[i]!.members.map((m) => ({ ...m, rack: null })) };
      if (JSON.stringify(ours(plain, 'range')) !== JSON.stringify(answers[i]!.range)) rackAware++;
    }
    expect(rackAware).toBeGreaterThan(30);
  }, 300_000);

  it('hand-made groups: co-partitioned topics with racks, racks on some members, static members, topics without metadata', () => {
    const groups: GroupSpec[] = [
      {
        topics: [
          { name: 'a', partitions: 6, racks: [['r1'], ['r2'], ['r1'], ['r2'], ['r1'], ['r2']] },
          { name: 'b', partitions: 6, racks: [['r1'], ['r2'], ['r2'], ['r2'], ['r1'], ['r1']] },
        ],
        members: [
          { id: 'm1', topics: ['a', 'b'], rack: 'r2' },
          { id: 'm2', topics: ['a', 'b'], rack: 'r1' },
          { id: 'm3', topics: ['a', 'b'] },
        ],
      },
      {
        topics: [{ name: 't', partitions: 7, racks: [['r1'], ['r1', 'r2'], ['r2'], [], ['r2'], ['r1'], ['r3']] }],
        members: [
          { id: 'z', topics: ['t'], rack: 'r1', instanceId: 'b' },
          { id: 'y', topics: ['t'], rack: 'r2', instanceId: 'a' },
          { id: 'a', topics: ['t', 'gone'], rack: '' },
        ],
      },
      { topics: [{ name: 'x', partitions: 5 }], members: [{ id: 'only', topics: ['nothing'] }, { id: 'b', topics: ['x'] }] },
    ];
    const answers = kafka(groups);
    groups.forEach((g, i) => {
      expect(ours(g, 'range')).toEqual(answers[i]!.range);
      expect(ours(g, 'round-robin')).toEqual(answers[i]!['round-robin']);
    });
    // Static members first, by instance id: y (instance a) takes the first range.
    expect(answers[1]!.range['y']!['t']![0]).toBeDefined();
  }, 120_000);
});
