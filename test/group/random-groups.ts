// Random consumer groups for the oracle and property tests, from a seed: 1-60 members, 1-12
// topics, mixed subscriptions, member ids and topic names that sort unusually (case, digits
// against letters, prefixes, accents, astral characters whose UTF-16 order differs from their
// code-point order), static members now and then, racks on about a third of the groups.
import type { AssignGroupOptions, GroupMemberSpec, GroupSpec, GroupTopicSpec } from '../../src/group/index.js';

/** xorshift32 from a seed: the same groups every run. */
export function random(seed: number): (n: number) => number {
  let s = seed | 0 || 1;
  return (n) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

const ID_PARTS = ['consumer-', 'Consumer-', 'c', 'C', '', '-', '_', '0', '9', '10', 'a', 'Z', 'é', 'e\u0301', 'ß', '\uffff', '\u{1f600}', '\u{10000}', 'ü', ' ', 'member', 'm'];
const TOPIC_PARTS = ['orders', 'Orders', 't', 'T', '1', '10', '2', '_', '-', 'ä', '\u{1f4e6}', '\uff5e', 'x'];
const RACKS = ['r0', 'r1', 'r2', 'R3'];

function pick<T>(r: (n: number) => number, list: readonly T[]): T {
  return list[r(list.length)]!;
}

function name(r: (n: number) => number, parts: readonly string[], taken: Set<string>): string {
  for (;;) {
    let s = '';
    const n = 1 + r(3);
    for (let i = 0; i < n; i++) s += pick(r, parts);
    if (r(3) === 0) s += String(r(120));
    if (s !== '' && !taken.has(s)) {
      taken.add(s);
      return s;
    }
  }
}

/** Replica racks of one partition: usually 1-3 distinct racks, sometimes none. */
function replicaRacks(r: (n: number) => number, everywhere: boolean): string[] {
  if (everywhere) return [...RACKS];
  if (r(12) === 0) return [];
  const out = new Set<string>();
  const n = 1 + r(3);
  for (let i = 0; i < n; i++) out.add(pick(r, RACKS));
  return [...out];
}

function topicsOf(r: (n: number) => number, withRacks: boolean): GroupTopicSpec[] {
  const taken = new Set<string>();
  const T = 1 + r(12);
  // Few distinct counts, so that topics with equal counts (co-partitioned in range) are common.
  const counts = Array.from({ length: 1 + r(4) }, () => 1 + r(r(4) === 0 ? 100 : 24));
  const everywhere = withRacks && r(5) === 0; // every partition on every rack: range stays plain
  return Array.from({ length: T }, () => {
    const partitions = pick(r, counts);
    const topic: GroupTopicSpec = { name: name(r, TOPIC_PARTS, taken), partitions };
    if (withRacks && r(4) !== 0) return { ...topic, racks: Array.from({ length: partitions }, () => replicaRacks(r, everywhere)) };
    return topic;
  });
}

function subscription(r: (n: number) => number, names: string[], mode: number, m: number): string[] {
  if (mode === 0) return names; // everyone subscribes to everything
  if (mode === 1) return names.filter((_, i) => (i + m) % 2 === 0 || i === 0); // two shapes
  const out = names.filter(() => r(2) === 0);
  if (r(8) === 0) out.push('not-in-metadata');
  return out.length > 0 ? out : [pick(r, names)];
}

/** One random group. */
export function randomGroup(r: (n: number) => number): GroupSpec {
  const withRacks = r(3) === 0;
  const topics = topicsOf(r, withRacks);
  const names = topics.map((t) => t.name);
  const M = 1 + r(r(3) === 0 ? 60 : 12);
  const mode = r(3);
  const statics = r(4) === 0;
  const ids = new Set<string>();
  const instances = new Set<string>();
  const members: GroupMemberSpec[] = Array.from({ length: M }, (_, m) => {
    const member: { -readonly [K in keyof GroupMemberSpec]: GroupMemberSpec[K] } = { id: name(r, ID_PARTS, ids), topics: subscription(r, names, mode, m) };
    if (withRacks && r(5) !== 0) member.rack = r(10) === 0 ? '' : pick(r, RACKS);
    if (statics && r(2) === 0) member.instanceId = name(r, ID_PARTS, instances);
    return member;
  });
  return { topics, members };
}

/** Every strategy of both protocols, as assignGroup's options: the property tests and the fuzz run each. */
export const STRATEGIES: AssignGroupOptions[] = [
  { strategy: 'sticky' },
  { strategy: 'range' },
  { strategy: 'round-robin' },
  { protocol: 'consumer', strategy: 'uniform' },
  { protocol: 'consumer', strategy: 'range' },
];
