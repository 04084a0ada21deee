// A Kafka Streams group's assignment (issue 31): actives by the streams kernel (sticky, balanced,
// canonical), standbys by the KIP-708 placement (src/standby) over the processes, each process's
// standbys then spread over its members. What the broker plugin will answer, previewed from the
// same input.
import { AssignorError } from '../errors.js';
import { loadKernels, type StreamsActivesProblem } from '../engine/kernels.js';
import { placeStandbys, type StandbyPlacement } from '../standby/place.js';
import { processStarts, readStreamsGroup, subtopologyOf, taskName, type StreamsGroup, type StreamsGroupSpec } from './input.js';
import { clusterOf, compareSpreads, tagSpreads } from './cluster.js';
import { explainStreams, streamsHtml, streamsReport } from './report.js';
import { brokerSticky } from './broker-sticky.js';
import { spreadStandbys } from './spread.js';
import type { StreamsAssignment, StreamsMode, StreamsOptions, StreamsTotals } from './assignment.js';

export const STREAMS_MODES: readonly StreamsMode[] = ['balanced', 'kafka', 'broker', 'tag-aware'];

export function assignStreams(input: StreamsGroupSpec | StreamsGroup, options: StreamsOptions = {}): StreamsAssignment {
  const mode = options.mode ?? 'balanced';
  if (!STREAMS_MODES.includes(mode)) throw new AssignorError('E_USAGE', `mode must be one of ${STREAMS_MODES.join(', ')}, got ${JSON.stringify(mode)}`, 'mode');
  const group = isStreamsGroup(input) ? input : readStreamsGroup(input);
  if (group.members.length === 0 && group.tasks > 0) {
    throw new AssignorError('E_INPUT', `no member to run task ${taskName(group, 0)}: the group has no processes`, 'processes');
  }
  const { activeOwner, standbyTasks, placement } = mode === 'broker' || mode === 'tag-aware' ? brokerAnswer(group, mode, options) : assignorAnswer(group, mode, options);
  const result: StreamsAssignment = {
    mode, group, activeOwner, standbyTasks, placement,
    totals: () => totalsOf(group, activeOwner, standbyTasks),
    members: () => {
      const active = tasksByMember(group, activeOwner);
      return group.members.map((m, i) => ({
        id: m.id,
        process: group.processes[m.process]!.id,
        active: active[i]!.map((t) => taskName(group, t)),
        standby: Array.from(standbyTasks[i]!, (t) => taskName(group, t)),
      }));
    },
    report: () => streamsReport(result),
    explain: () => explainStreams(result),
    html: () => streamsHtml(result),
  };
  return result;
}

type Answer = Pick<StreamsAssignment, 'activeOwner' | 'standbyTasks' | 'placement'>;

/** assignor's own: actives by the streams kernel, standbys by the KIP-708 engine over the processes. */
function assignorAnswer(group: StreamsGroup, mode: 'balanced' | 'kafka', options: StreamsOptions): Answer {
  const activeOwner = loadKernels(options).streamsActives(activesProblem(group));
  if (group.numStandbys === 0 || !group.subtopologies.some((s) => s.stateful)) {
    return { activeOwner, standbyTasks: standbysOfMembers(group, activeOwner, [], null), placement: null };
  }
  const place = (m: 'balanced' | 'kafka', kept: number[][]): Answer => {
    const placement = placeStandbys(clusterOf(group, activeOwner, kept), { mode: m, engine: options.engine });
    return { activeOwner, standbyTasks: standbysOfMembers(group, activeOwner, kept, placement), placement };
  };
  if (mode === 'kafka') return place('kafka', []);
  // Balanced keeps previous standbys, but never at the price of a task's spread: a task that ends
  // narrower than kafka mode would place it keeps none, and the rest are placed again; when a task
  // that keeps none ends narrower (the kept ones took the room it needed), none are kept. Without
  // kept standbys balanced is never narrower than kafka mode (the standby engine's promise).
  const kept = keptStandbys(group, activeOwner);
  let answer = place('balanced', kept);
  if (kept.every((k) => k.length === 0)) return answer;
  const floor = tagSpreads(group, activeOwner, place('kafka', []).standbyTasks);
  for (;;) {
    const now = tagSpreads(group, activeOwner, answer.standbyTasks);
    const narrower = now.flatMap((s, t) => (compareSpreads(s, floor[t]!) < 0 ? [t] : []));
    if (narrower.length === 0) return answer;
    if (narrower.every((t) => kept[t]!.length === 0)) return place('balanced', []);
    for (const t of narrower) kept[t] = [];
    answer = place('balanced', kept);
  }
}

/** What the broker's own StickyTaskAssignor answers (./broker-sticky.ts); tag-aware, with its standbys then moved over the tags (./spread.ts). */
function brokerAnswer(group: StreamsGroup, mode: 'broker' | 'tag-aware', options: StreamsOptions): Answer {
  const b = brokerSticky(group);
  const standbyTasks = mode === 'broker' ? b.standbys.map((l) => Int32Array.from(l).sort()) : spreadStandbys(group, b.owner, b.standbys, options);
  return { activeOwner: b.owner, standbyTasks, placement: null };
}

function isStreamsGroup(v: StreamsGroupSpec | StreamsGroup): v is StreamsGroup {
  return (v as StreamsGroup).members !== undefined && typeof (v as StreamsGroup).tasks === 'number';
}

/** Each member's active tasks, ascending, in one pass over the owners. */
function tasksByMember(group: StreamsGroup, owner: Int32Array): number[][] {
  const out: number[][] = group.members.map(() => []);
  owner.forEach((m, t) => m >= 0 && out[m]!.push(t));
  return out;
}

/** The kernel's flat problem: claims per member, warm candidates (previous standbys, offset reporters) per task. */
export function activesProblem(group: StreamsGroup): StreamsActivesProblem {
  const M = group.members.length;
  const processStart = processStarts(group);
  const claimStart = new Int32Array(M + 1);
  group.members.forEach((m, i) => (claimStart[i + 1] = claimStart[i]! + m.active.length));
  const warm: [number, number, bigint][][] = Array.from({ length: group.tasks }, () => []);
  group.members.forEach((m, i) => {
    for (const t of m.standby) warm[t]!.push([i, 1, m.offsets.get(t) ?? 0n]);
    const standby = new Set(m.standby);
    for (const [t, offset] of m.offsets) if (!standby.has(t)) warm[t]!.push([i, 0, offset]);
  });
  const warmStart = new Int32Array(group.tasks + 1);
  warm.forEach((l, t) => (warmStart[t + 1] = warmStart[t]! + l.length));
  const flat = warm.flat();
  return {
    processStart, tasks: group.tasks, claimStart, claims: Int32Array.from(group.members.flatMap((m) => m.active)),
    warmStart, warmMember: Int32Array.from(flat, (w) => w[0]), warmStandby: Int32Array.from(flat, (w) => w[1]), warmOffset: BigInt64Array.from(flat, (w) => w[2]),
  };
}

/**
 * Balanced mode's kept standbys, per flat task the members keeping one: a stateful task's previous
 * standby stays when its process is not the new active's and differs from it on every tag key
 * (so keeping it costs no spread), at most numStandbys per task, first processes first.
 */
function keptStandbys(group: StreamsGroup, owner: Int32Array): number[][] {
  const kept: number[][] = Array.from({ length: group.tasks }, () => []);
  group.members.forEach((m, i) => {
    for (const t of m.standby) {
      if (!subtopologyOf(group, t).stateful || kept[t]!.length >= group.numStandbys) continue;
      const active = group.members[owner[t]!]!.process;
      // kept[t] holds at most numStandbys members: a scan finds a second member of this process.
      if (active === m.process || kept[t]!.some((k) => group.members[k]!.process === m.process) || !differsOnEveryKey(group, active, m.process)) continue;
      kept[t]!.push(i);
    }
  });
  return kept;
}

function differsOnEveryKey(group: StreamsGroup, a: number, b: number): boolean {
  const ta = group.processes[a]!.tags;
  const tb = group.processes[b]!.tags;
  return group.tagKeys.every((k) => ta.get(k) !== undefined && tb.get(k) !== undefined && ta.get(k) !== tb.get(k));
}

/**
 * Each process's standbys spread over its members: a kept standby stays with the member that held
 * it; a new one goes to the member with the fewest tasks (actives and standbys; lowest index on ties).
 */
function standbysOfMembers(group: StreamsGroup, owner: Int32Array, kept: number[][], placement: StandbyPlacement | null): Int32Array[] {
  const M = group.members.length;
  const load = new Int32Array(M);
  for (const m of owner) load[m]!++;
  const lists: number[][] = Array.from({ length: M }, () => []);
  kept.forEach((ms, t) => ms.forEach((m) => {
    lists[m]!.push(t);
    load[m]!++;
  }));
  if (placement !== null) {
    const statefulTasks = group.subtopologies.flatMap((s) => (s.stateful ? Array.from({ length: s.partitions }, (_, p) => s.firstTask + p) : []));
    const clients = placement.cluster.clients;
    statefulTasks.forEach((t, i) => {
      for (let j = 0; j < placement.width; j++) {
        const c = placement.slots[i * placement.width + j]!;
        if (c < 0) continue;
        const p = group.processes[clients[c]!.inputIndex]!;
        let best = p.firstMember;
        for (let m = p.firstMember + 1; m < p.firstMember + p.size; m++) if (load[m]! < load[best]!) best = m;
        lists[best]!.push(t);
        load[best]!++;
      }
    });
  }
  return lists.map((l) => Int32Array.from(l).sort());
}

function totalsOf(group: StreamsGroup, owner: Int32Array, standbys: readonly Int32Array[]): StreamsTotals {
  const prev = new Int32Array(group.tasks).fill(-1);
  group.members.forEach((m, i) => m.active.forEach((t) => prev[t]! < 0 && (prev[t] = i)));
  let previouslyOwned = 0;
  let keptOnMember = 0;
  let keptOnProcess = 0;
  prev.forEach((m, t) => {
    if (m < 0) return;
    previouslyOwned++;
    if (owner[t] === m) keptOnMember++;
    if (group.members[owner[t]!]!.process === group.members[m]!.process) keptOnProcess++;
  });
  const statefulTasks = group.subtopologies.reduce((s, x) => s + (x.stateful ? x.partitions : 0), 0);
  const standbyCount = standbys.reduce((s, l) => s + l.length, 0);
  const askedFor = statefulTasks * group.numStandbys;
  return {
    tasks: group.tasks, statefulTasks, previouslyOwned, keptOnMember, keptOnProcess,
    standbysAskedFor: askedFor, standbys: standbyCount, standbysKept: group.members.reduce((n, m, i) => n + m.standby.filter((t) => sortedHas(standbys[i]!, t)).length, 0),
    standbysUnplaced: Math.max(0, askedFor - standbyCount), staleTaskIds: group.stale,
  };
}

/** t is in the ascending list (binary search). */
function sortedHas(list: Int32Array, t: number): boolean {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] === t) return true;
    if (list[mid]! < t) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
