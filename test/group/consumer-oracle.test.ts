// The consumer protocol's `uniform` and `range` against the 4.4.0 broker's own UniformAssignor and
// RangeAssignor (kafka-group-coordinator from Maven Central, run by
// test/group/java/ConsumerProtocolOracle.java in one JVM through the GroupSpec classes the broker
// builds). Random groups first assigned from nothing, then again after a leave, a join, a growth,
// a shrink (claims of partitions that no longer exist) or a changed subscription, with the first
// answer as the members' current assignment. A missing JVM or Maven fails these tests, never skips.
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { compileJava, runJava } from '../kafka/jvm.js';
import { assignGroup, type GroupMemberSpec, type GroupSpec, type GroupTopicSpec } from '../../src/group/index.js';
import { topicIds } from '../../src/group/consumer/assign.js';
import { readGroup } from '../../src/group/input.js';
import { formatTopicId } from '../../src/group/topic-id.js';
import { random, randomGroup } from './random-groups.js';
import { cli } from '../helpers.js';

type Plain = Record<string, Record<string, number[]>>;
type Rand = (n: number) => number;
interface Answer {
  uniform: Plain;
  range: Plain;
  uniformOrderFree: boolean;
}

let oracleCp: string | undefined;
function broker(groups: readonly GroupSpec[]): Answer[] {
  oracleCp ??= compileJava('coordinator', [fileURLToPath(new URL('./java/ConsumerProtocolOracle.java', import.meta.url))], join(tmpdir(), 'assignor-consumer-oracle'));
  const withIds = groups.map((g) => {
    const group = readGroup(g);
    const ids: Record<string, string> = {};
    topicIds(group).forEach((id, t) => Object.defineProperty(ids, group.assigned[t]!, { value: formatTopicId(id), enumerable: true }));
    // Topics nobody subscribes still need an id for the metadata.
    for (const t of g.topics) if (!(t.name in ids)) Object.defineProperty(ids, t.name, { value: t.id ?? formatTopicId(Int32Array.of(1, 2, 3, g.topics.indexOf(t) + 7)), enumerable: true });
    return { ...g, ids };
  });
  return JSON.parse(runJava(oracleCp, 'ConsumerProtocolOracle', [], JSON.stringify(withIds), '2g').stdout);
}

function plain(assignment: Map<string, Map<string, number[]>>): Plain {
  const out: Plain = {};
  for (const [id, topics] of assignment) {
    const t: Record<string, number[]> = {};
    for (const [name, parts] of topics) Object.defineProperty(t, name, { value: parts, enumerable: true });
    Object.defineProperty(out, id, { value: t, enumerable: true });
  }
  return out;
}

const ours = (group: GroupSpec, strategy: 'uniform' | 'range'): Plain => plain(assignGroup(group, { protocol: 'consumer', strategy }).assignment);

/** A topic id as Kafka prints one, from random words: high bits set half the time, so signed order differs from unsigned. */
function randomId(r: Rand): string {
  return formatTopicId(Int32Array.from({ length: 4 }, () => (r(65536) << 16) | r(65536) | (r(2) << 31)));
}

/** A random group of 1-80 members and 1-15 topics: homogeneous a third of the time, some topics with ids. */
function consumerGroup(r: Rand): GroupSpec {
  const base = randomGroup(r);
  const topics: GroupTopicSpec[] = base.topics.map((t) => (r(2) === 0 ? { ...t, id: randomId(r) } : t));
  for (let extra = r(4); extra > 0 && topics.length < 15; extra--) topics.push({ name: `more-${topics.length}`, partitions: 1 + r(40) });
  let members: GroupMemberSpec[] = [...base.members];
  for (let extra = r(3) === 0 ? r(30) : 0; extra > 0 && members.length < 80; extra--) members.push({ ...members[r(members.length)]!, id: `joined-${members.length}`, instanceId: null });
  if (r(3) === 0) members = members.map((m) => ({ ...m, topics: topics.filter((_, i) => i % 2 === 0 || i === 0).map((t) => t.name) }));
  return { topics, members };
}

/** The group after one event, its members holding what `previous` gave them. */
function afterEvent(r: Rand, group: GroupSpec, previous: Plain): GroupSpec {
  let members = group.members.map((m) => ({ ...m, owned: previous[m.id] ?? {} }));
  let topics = [...group.topics];
  const event = r(5);
  if (event === 0 && members.length > 1) members.splice(r(members.length), 1);
  if (event === 1) members.push({ ...members[r(members.length)]!, id: `new-${r(1000)}`, instanceId: null, owned: {} });
  if (event === 2) topics = topics.map((t) => (r(2) === 0 ? { ...t, partitions: t.partitions * (1 + r(3)), racks: undefined } : t));
  if (event === 3) topics = topics.map((t) => (r(2) === 0 && t.partitions > 1 ? { ...t, partitions: 1 + r(t.partitions - 1), racks: undefined } : t));
  if (event === 4) {
    const k = r(members.length);
    members[k] = { ...members[k]!, topics: topics.filter(() => r(2) === 0).map((t) => t.name) };
  }
  if (r(6) === 0) members = members.map((m) => ({ ...m, owned: { ...m.owned, 'gone-topic': [0, 1] } }));
  return { topics, members };
}

const GROUPS = 300;

describe('the consumer protocol equals the 4.4.0 broker\'s assignors (the jar, one JVM for every group)', () => {
  it(`uniform and range on ${GROUPS} random groups and on each after a leave, join, growth, shrink or new subscription; the CLI on 40 of them`, () => {
    const r = random(0x848);
    const first = Array.from({ length: GROUPS }, () => consumerGroup(r));
    const firstAnswers = first.map((g) => ours(g, 'uniform'));
    const second = first.map((g, i) => afterEvent(r, g, firstAnswers[i]!));
    const groups = [...first, ...second];
    const answers = broker(groups);
    expect(answers).toHaveLength(groups.length);
    const homogeneous = groups.filter((g) => g.members.every((m) => JSON.stringify([...m.topics].sort()) === JSON.stringify([...g.members[0]!.topics].sort()))).length;
    expect(homogeneous).toBeGreaterThan(groups.length / 5);
    expect(groups.length - homogeneous).toBeGreaterThan(groups.length / 5);
    let orderFree = 0;
    groups.forEach((g, i) => {
      for (const strategy of ['uniform', 'range'] as const) {
        const mine = ours(g, strategy);
        if (JSON.stringify(mine) !== JSON.stringify(answers[i]![strategy])) {
          expect({ group: i, strategy, spec: g, assignment: mine }).toEqual({ group: i, strategy, spec: g, assignment: answers[i]![strategy] });
        }
      }
      if (answers[i]!.uniformOrderFree) orderFree++;
    });
    // Both kinds occur: groups the jar answers the same in any member order, and groups where the
    // broker's hash order decides (those are equal too, for the canonical order).
    expect(orderFree).toBeGreaterThan(50);
    expect(groups.length - orderFree).toBeGreaterThan(50);
    // The CLI, as a coordinator in another language calls it, on 40 of them (every fifteenth).
    for (let i = 0; i < groups.length; i += 15) {
      for (const strategy of ['uniform', 'range'] as const) {
        const r = cli(['group', '--input', '-', '--protocol', 'consumer', '--strategy', strategy], JSON.stringify(groups[i]));
        expect([r.status, r.stderr]).toEqual([0, '']);
        const printed = JSON.parse(r.stdout) as { protocol: string; strategy: string; assignment: Plain };
        expect({ group: i, protocol: printed.protocol, strategy: printed.strategy, assignment: JSON.stringify(printed.assignment) }).toEqual({ group: i, protocol: 'consumer', strategy, assignment: JSON.stringify(answers[i]![strategy]) });
      }
    }
  }, 300_000);
});
