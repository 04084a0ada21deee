// `assignor group --explain`: the assignment in words, what moved and why.
import { formatPercent } from '../basics.js';
import type { GroupAssignment } from './assign.js';
import { topicIds } from './consumer/assign.js';
import { isHomogeneous } from './consumer/uniform.js';
import { formatTopicId } from './topic-id.js';

/** How many moved or placed partitions the text lists one by one before it summarizes. */
const LISTED = 200;

/** Why a strategy moves an owned partition, in one phrase. */
function whyMoved(result: GroupAssignment, topic: string, from: number, to: number): string {
  if (result.strategy === 'range') return 'range ignores ownership: each member gets the next range of partitions in member order';
  if (result.strategy === 'uniform' && !isHomogeneous(result.group)) return "uniform keeps what it can, then moves partitions from the most- to the least-loaded subscribers (at most 16 passes)";
  if (result.strategy === 'round-robin') return 'round-robin ignores ownership: partitions are dealt in turn over the members';
  const prev = result.previous.get(topic)!;
  const owner = result.owners.get(topic)!;
  let held = 0;
  let subscribers = 0;
  for (let p = 0; p < prev.length; p++) if (prev[p] === from) held++;
  for (const m of result.group.members) if (m.topics.includes(topic)) subscribers++;
  const share = Math.ceil(owner.length / subscribers);
  if (held > share) return `${result.memberIds[from]} held ${held} partitions of ${topic}, more than its share of at most ${share}`;
  const rack = result.group.members[to]!.rack;
  const racks = result.group.topics.get(topic)!.racks;
  if (rack !== null && racks !== null) return `to even out the members' totals across topics (${result.memberIds[to]} is on rack ${rack})`;
  return "to even out the members' totals across topics";
}

/** The broker's topic ids, when the protocol's answer depends on them. */
function idLines(result: GroupAssignment): string[] {
  if (result.protocol !== 'consumer' || result.strategy !== 'uniform') return [];
  const ids = topicIds(result.group);
  return result.group.assigned.map((t, i) => `topic ${t}: id ${formatTopicId(ids[i]!)}${result.group.topics.get(t)!.id === null ? ' (derived from the name)' : ''}`);
}

/** Lines of text: a summary, then every moved and placed partition (up to LISTED), then the counts per member. */
export function explainGroup(result: GroupAssignment): string[] {
  const r = result.report;
  const ids = result.memberIds;
  const lines = [
    `${result.protocol === 'consumer' ? 'consumer protocol, ' : ''}strategy ${result.strategy}: ${r.partitions} partitions of ${r.topics} topics over ${r.members} members`,
    `kept ${r.kept}, moved ${r.moved} (taken from an owner still in the group), placed ${r.placed} (no owner in the group)`,
    `balance: ${r.balance.min} to ${r.balance.max} partitions per member (spread ${r.balance.spread})`,
  ];
  lines.push(...idLines(result));
  if (r.conflicts > 0) lines.push(`${r.conflicts} claims lost to a newer generation or to a member first by id`);
  if (r.rackMatched !== null) lines.push(`rack matches: ${r.rackMatched} of ${r.partitions} partitions are owned by a member on one of their replica racks`);
  for (const t of r.missingTopics) lines.push(`topic ${t} is subscribed but has no metadata: ignored, as Kafka does`);
  for (const g of r.growth) lines.push(`topic ${g.topic} grew ${g.from} -> ${g.to}: ${g.keysMovedShare === null ? 'too many residues to count the keys that moved' : `${formatPercent(g.keysMovedShare, { digits: 1 })} of its keys changed member`}`);
  let listed = 0;
  let unlisted = 0;
  for (const topic of result.group.assigned) {
    const owner = result.owners.get(topic)!;
    const prev = result.previous.get(topic)!;
    for (let p = 0; p < owner.length; p++) {
      if (prev[p] === owner[p]) continue;
      if (listed >= LISTED) {
        unlisted++;
        continue;
      }
      listed++;
      const to = owner[p]! < 0 ? 'nobody' : ids[owner[p]!]!;
      if (prev[p]! >= 0) lines.push(`moved ${topic}[${p}]: ${ids[prev[p]!]} -> ${to}: ${whyMoved(result, topic, prev[p]!, owner[p]!)}`);
      else lines.push(`placed ${topic}[${p}] on ${to}: no member of the group owned it`);
    }
  }
  if (unlisted > 0) lines.push(`... ${unlisted} more moved or placed partitions`);
  lines.push('per member:');
  for (const [id, topics] of result.assignment) {
    let n = 0;
    for (const ps of topics.values()) n += ps.length;
    lines.push(`  ${id}: ${n} partitions${topics.size === 0 ? '' : ` (${[...topics].map(([t, ps]) => `${t} ${ps.length}`).join(', ')})`}`);
  }
  return lines;
}
