// tag-aware mode (issue 31): the broker's own answer, then its standbys moved over the tags by the
// streamsSpread kernel, never making a task's spread worse than the broker's and keeping every
// process inside the broker's range of loads (src/engine/reference/streams-spread.ts says how).
import { loadKernels, type EngineOptions, type StreamsSpreadProblem } from '../engine/kernels.js';
import { processStarts, type StreamsGroup } from './input.js';

/** The spread problem of a placement: owner per flat task, standbys per member (flat task indices). */
export function spreadProblem(group: StreamsGroup, owner: Int32Array, standbys: readonly ArrayLike<number>[]): { problem: StreamsSpreadProblem; stateful: number[] } {
  const K = group.tagKeys.length;
  const ids = group.tagKeys.map(() => new Map<string, number>());
  const processValues = new Int32Array(group.processes.length * K);
  group.processes.forEach((p, q) => group.tagKeys.forEach((k, i) => {
    const v = p.tags.get(k);
    if (v !== undefined && !ids[i]!.has(v)) ids[i]!.set(v, ids[i]!.size);
    processValues[q * K + i] = v === undefined ? -1 : ids[i]!.get(v)!;
  }));
  const memberLoad = new Int32Array(group.members.length);
  for (const m of owner) if (m >= 0) memberLoad[m]!++;
  const holders: number[][] = Array.from({ length: group.tasks }, () => []);
  standbys.forEach((tasks, m) => Array.from(tasks).forEach((t) => {
    holders[t]!.push(m);
    memberLoad[m]!++;
  }));
  const stateful = group.subtopologies.flatMap((s) => (s.stateful ? Array.from({ length: s.partitions }, (_, p) => s.firstTask + p) : []));
  const W = group.numStandbys;
  const standbyMember = new Int32Array(stateful.length * W).fill(-1);
  stateful.forEach((t, i) => holders[t]!.slice(0, W).forEach((m, j) => (standbyMember[i * W + j] = m)));
  return {
    problem: { processStart: processStarts(group), keys: K, processValues, memberLoad, tasks: stateful.length, width: W, activeMember: Int32Array.from(stateful, (t) => owner[t]!), standbyMember },
    stateful,
  };
}

/** The standbys per member after the kernel's moves. */
export function spreadStandbys(group: StreamsGroup, owner: Int32Array, standbys: readonly ArrayLike<number>[], options: EngineOptions): Int32Array[] {
  const { problem, stateful } = spreadProblem(group, owner, standbys);
  const moved = problem.keys === 0 || problem.width === 0 ? problem.standbyMember : loadKernels(options).streamsSpread(problem);
  const lists: number[][] = group.members.map(() => []);
  const W = problem.width;
  stateful.forEach((t, i) => {
    for (let j = 0; j < W; j++) if (moved[i * W + j]! >= 0) lists[moved[i * W + j]!]!.push(t);
  });
  return lists.map((l) => Int32Array.from(l).sort());
}
