// The standby engine's view of a streams group: one client per process, whose members are its
// threads; and the tag spread of each task over the processes holding its copies.
import type { ClusterSpec } from '../standby/input.js';
import { subtopologyOf, type StreamsGroup } from './input.js';

/** The standby engine's input: one client per process (capacity = its members), tasks as `<engineId>_<partition>`. */
/** kept: per flat task, the members keeping a standby of it (balanced mode's previous standbys). */
export function clusterOf(group: StreamsGroup, owner: Int32Array, kept: readonly (readonly number[])[]): ClusterSpec {
  const engineName = (t: number): string => {
    const s = subtopologyOf(group, t);
    return `${s.engineId}_${t - s.firstTask}`;
  };
  const active: string[][] = group.processes.map(() => []);
  owner.forEach((m, t) => active[group.members[m]!.process]!.push(engineName(t)));
  const standby: string[][] = group.processes.map(() => []);
  kept.forEach((ms, t) => ms.forEach((m) => standby[group.members[m]!.process]!.push(engineName(t))));
  const tasks: string[] = [];
  for (const s of group.subtopologies) if (s.stateful) for (let p = 0; p < s.partitions; p++) tasks.push(`${s.engineId}_${p}`);
  return {
    numStandbys: group.numStandbys,
    tagKeys: group.tagKeys,
    tasks,
    clients: group.processes.map((p, q) => ({ id: p.id, tags: p.tags, capacity: p.size, active: active[q]!, standby: standby[q]! })),
  };
}


/** Per flat task, the distinct values of each tag key (precedence order) over the processes holding its active and its standbys. */
export function tagSpreads(group: StreamsGroup, owner: Int32Array, standbys: readonly ArrayLike<number>[]): number[][] {
  const holders: number[][] = Array.from(owner, (m) => (m < 0 ? [] : [group.members[m]!.process]));
  standbys.forEach((tasks, m) => Array.from(tasks).forEach((t) => holders[t]!.push(group.members[m]!.process)));
  return holders.map((qs) => group.tagKeys.map((k) => new Set(qs.map((q) => group.processes[q]!.tags.get(k))).size));
}

/** Lexicographic, keys in precedence order: > 0 when a spreads more. */
export function compareSpreads(a: readonly number[], b: readonly number[]): number {
  const k = a.findIndex((v, i) => v !== b[i]);
  return k < 0 ? 0 : a[k]! - b[k]!;
}
