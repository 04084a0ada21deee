// Kafka 4.4's broker-side streams assignor, StickyTaskAssignor, rebuilt from its rules (issue 31),
// so assignor can say exactly what the broker's own assignor gives a group: the baseline that
// assignor's placement is compared with, task by task. Its answer depends on the order of
// GroupSpec.memberIds() and on Java's HashMap and PriorityQueue orders (./java-collections.ts);
// this takes the members in the group's canonical order (processes in ProcessId order, members by
// id), which is the order assignor's plugin hands the class. Checked for equality against the
// class itself (test/streams/broker-sticky.test.ts).
import { JavaPriorityQueue, javaHashMapOrder } from './java-collections.js';
import { subtopologyOf, taskName, type StreamsGroup } from './input.js';

/** One process as the class keeps it (its ProcessState). */
interface ProcessState {
  capacity: number;
  taskCount: number;
  load: number;
  /** Per member (group index): tasks given so far, active and standby. */
  counts: Map<number, number>;
  /** Its members in the iteration order of its HashMap<String, Integer> of counts. */
  memberOrder: number[];
  tasks: Set<number>;
  /** The cached heap of [member, count] entries, null after a targeted add. */
  byLoad: JavaPriorityQueue<[number, number]> | null;
}

interface State {
  group: StreamsGroup;
  processes: ProcessState[];
  /** Processes in the iteration order of the class's HashMap<String, ProcessState>. */
  processOrder: number[];
  /** Per flat task: the member that claimed it last in member order, -1. */
  prevActive: Int32Array;
  /** Per flat task: members with its state, ranked (previous standbys, then larger offset sums). */
  candidates: Map<number, number[]>;
  activeQuota: number;
  activeMembers: number;
  activeTotal: number;
  totalQuota: number;
  totalMembers: number;
  total: number;
  /** The answer: per flat task its active member, per member its standbys. */
  owner: Int32Array;
  standbys: number[][];
}

/** What the broker's StickyTaskAssignor answers: the active member per flat task (-1: none) and each member's standbys. */
export function brokerSticky(group: StreamsGroup): { owner: Int32Array; standbys: number[][] } {
  const s = initialize(group);
  assignActive(s);
  if (group.numStandbys > 0) assignStandby(s);
  return { owner: s.owner, standbys: s.standbys };
}

const ceilDiv = (tasks: number, members: number): number => (members === 0 ? 0 : Math.trunc(tasks / members) + (tasks % members > 0 ? 1 : 0));

function initialize(group: StreamsGroup): State {
  const M = group.members.length;
  let activeTotal = 0;
  let total = 0;
  for (const sub of group.subtopologies) {
    activeTotal += sub.partitions;
    total += sub.partitions * (sub.stateful ? 1 + group.numStandbys : 1);
  }
  const processes = group.processes.map((p): ProcessState => {
    const ids = group.members.slice(p.firstMember, p.firstMember + p.size).map((m) => m.id);
    const order = javaHashMapOrder(ids, 16, false).order.map((i) => p.firstMember + i);
    return { capacity: p.size, taskCount: 0, load: 0, counts: new Map(order.map((m) => [m, 0])), memberOrder: order, tasks: new Set(), byLoad: null };
  });
  // Processes enter the map as their first member comes, in member order.
  const processOrder = javaHashMapOrder(group.processes.map((p) => p.id), M, true).order;
  const prevActive = new Int32Array(group.tasks).fill(-1);
  group.members.forEach((m, i) => m.active.forEach((t) => (prevActive[t] = i)));
  return {
    group, processes, processOrder, prevActive, candidates: rankedCandidates(group),
    activeQuota: ceilDiv(activeTotal, M), activeMembers: M, activeTotal,
    totalQuota: ceilDiv(total, M), totalMembers: M, total,
    owner: new Int32Array(group.tasks).fill(-1), standbys: group.members.map(() => []),
  };
}

/** Per task, the members with its state: previous standbys first, then by offset sum, largest first; ties in member order. */
function rankedCandidates(group: StreamsGroup): Map<number, number[]> {
  const lists = new Map<number, { m: number; standby: boolean; offset: bigint }[]>();
  const add = (t: number, c: { m: number; standby: boolean; offset: bigint }): void => {
    const l = lists.get(t);
    if (l === undefined) lists.set(t, [c]);
    else l.push(c);
  };
  group.members.forEach((m, i) => {
    for (const t of m.standby) add(t, { m: i, standby: true, offset: m.offsets.get(t) ?? 0n });
    const standby = new Set(m.standby);
    for (const [t, offset] of m.offsets) if (!standby.has(t)) add(t, { m: i, standby: false, offset });
  });
  const out = new Map<number, number[]>();
  for (const [t, l] of lists) {
    l.sort((a, b) => (a.standby !== b.standby ? (a.standby ? -1 : 1) : a.offset > b.offset ? -1 : a.offset < b.offset ? 1 : 0));
    out.set(t, l.map((c) => c.m));
  }
  return out;
}

const processOf = (s: State, m: number): ProcessState => s.processes[s.group.members[m]!.process]!;
const countOf = (s: State, m: number): number => processOf(s, m).counts.get(m)!;

function give(s: State, m: number, t: number, active: boolean): number {
  const p = processOf(s, m);
  p.taskCount++;
  p.tasks.add(t);
  if (active) s.owner[t] = m;
  else s.standbys[m]!.push(t);
  const n = p.counts.get(m)! + 1;
  p.counts.set(m, n);
  p.load = p.taskCount / p.capacity;
  return n;
}

/** A targeted add (ProcessState.addTask): forgets the process's heap of members. */
function giveTo(s: State, m: number, t: number, active: boolean): number {
  processOf(s, m).byLoad = null;
  return give(s, m, t, active);
}

/** ProcessState.addTaskToLeastLoadedMember: the member with the fewest tasks, by the process's persistent heap. */
function giveToLeastLoaded(s: State, q: number, t: number, active: boolean): number {
  const p = s.processes[q]!;
  if (p.memberOrder.length === 1) return give(s, p.memberOrder[0]!, t, active);
  if (p.byLoad === null) {
    p.byLoad = new JavaPriorityQueue<[number, number]>((a, b) => a[1] - b[1]);
    for (const m of p.memberOrder) p.byLoad.add([m, p.counts.get(m)!]);
  }
  const entry = p.byLoad.poll()!;
  entry[1] = give(s, entry[0], t, active);
  p.byLoad.add(entry);
  return entry[1];
}

function updateActiveQuota(s: State, n: number): void {
  if (n !== s.activeQuota) return;
  s.activeMembers--;
  s.activeTotal -= n;
  s.activeQuota = ceilDiv(s.activeTotal, s.activeMembers);
}

function updateTotalQuota(s: State, n: number): void {
  if (n !== s.totalQuota) return;
  s.totalMembers--;
  s.total -= n;
  s.totalQuota = ceilDiv(s.total, s.totalMembers);
}

/** The first candidate, replaced only by one whose process load and own count are both lower; skips processes holding `skip`. */
function leastLoadedCandidate(s: State, list: readonly number[] | undefined, skip: number): number {
  let best = -1;
  let bestLoad = 0;
  let bestCount = 0;
  for (const m of list ?? []) {
    const p = processOf(s, m);
    if (skip >= 0 && p.tasks.has(skip)) continue;
    if (best < 0 || (p.load < bestLoad && countOf(s, m) < bestCount)) {
      best = m;
      bestLoad = p.load;
      bestCount = countOf(s, m);
    }
  }
  return best;
}

/** Task order by (partition, subtopology id as text), or its reverse. */
function byPartition(s: State, reverse: boolean): (a: number, b: number) => number {
  return (a, b) => {
    const sa = subtopologyOf(s.group, a);
    const sb = subtopologyOf(s.group, b);
    const d = a - sa.firstTask - (b - sb.firstTask) || (sa.id < sb.id ? -1 : sa.id > sb.id ? 1 : 0);
    return reverse ? -d : d;
  };
}

/** Task order by (subtopology id as text, partition), or its reverse. */
function bySubtopology(s: State, reverse: boolean): (a: number, b: number) => number {
  return (a, b) => {
    const sa = subtopologyOf(s.group, a);
    const sb = subtopologyOf(s.group, b);
    const d = (sa.id < sb.id ? -1 : sa.id > sb.id ? 1 : 0) || a - sa.firstTask - (b - sb.firstTask);
    return reverse ? -d : d;
  };
}

function processQueue(s: State): JavaPriorityQueue<number> {
  const pq = new JavaPriorityQueue<number>((a, b) => s.processes[a]!.load - s.processes[b]!.load);
  for (const q of s.processOrder) pq.add(q);
  return pq;
}

function assignActive(s: State): void {
  let rest = Array.from({ length: s.group.tasks }, (_, t) => t).sort(byPartition(s, false));
  const keep = (t: number, m: number): boolean => {
    if (m < 0 || countOf(s, m) >= s.activeQuota) return false;
    const n = giveTo(s, m, t, true);
    updateActiveQuota(s, n);
    updateTotalQuota(s, n);
    return true;
  };
  rest = rest.filter((t) => !keep(t, s.prevActive[t]!));
  rest = rest.filter((t) => !keep(t, leastLoadedCandidate(s, s.candidates.get(t), -1)));
  rest.sort(bySubtopology(s, false));
  const pq = processQueue(s);
  for (const t of rest) {
    const q = pq.poll();
    if (q === undefined) throw new Error(`No process available to assign active task ${taskName(s.group, t)}.`);
    const n = giveToLeastLoaded(s, q, t, true);
    updateActiveQuota(s, n);
    updateTotalQuota(s, n);
    pq.add(q);
  }
}

function assignStandby(s: State): void {
  const S = s.group.numStandbys;
  const stateful: number[] = [];
  for (const sub of s.group.subtopologies) if (sub.stateful) for (let p = 0; p < sub.partitions; p++) stateful.push(sub.firstTask + p);
  stateful.sort(byPartition(s, true));
  const left: { t: number; n: number }[] = [];
  for (const t of stateful) {
    for (let i = 0; i < S; i++) {
      const prev = s.prevActive[t]!;
      let m = prev >= 0 && !processOf(s, prev).tasks.has(t) && countOf(s, prev) < s.totalQuota ? prev : -1;
      if (m < 0) {
        const c = leastLoadedCandidate(s, s.candidates.get(t), t);
        m = c >= 0 && countOf(s, c) < s.totalQuota ? c : -1;
      }
      if (m < 0) {
        left.push({ t, n: S - i });
        break;
      }
      updateTotalQuota(s, giveTo(s, m, t, false));
    }
  }
  const order = bySubtopology(s, true);
  left.sort((a, b) => order(a.t, b.t));
  const pq = processQueue(s);
  for (const { t, n } of left) for (let i = 0; i < n && standbyToLeastLoaded(s, pq, t); i++);
}

/** Polls processes until one lacks the task and gives it there; re-adds them innermost first. False when none lacks it. */
function standbyToLeastLoaded(s: State, pq: JavaPriorityQueue<number>, t: number): boolean {
  const q = pq.poll();
  if (q === undefined) return false;
  let found = false;
  if (!s.processes[q]!.tasks.has(t)) {
    updateTotalQuota(s, giveToLeastLoaded(s, q, t, false));
    found = true;
  } else if (pq.size > 0) found = standbyToLeastLoaded(s, pq, t);
  pq.add(q);
  return found;
}
