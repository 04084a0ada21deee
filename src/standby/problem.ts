// Objects -> the flat arrays the kernels take. Clients are numbered in
// ProcessId order, tasks in TaskId order, tag values get global ids, and
// clients with the same tuple of configured-key values form one group.
import { AssignorError } from '../errors.js';
import type { StandbyProblem } from '../engine/abi.js';
import type { TaskId } from './task-id.js';
import type { Cluster, IndexedTask } from './input.js';
import { clusterColumns, type ClusterColumns } from './input-columns.js';

export type Mode = 'kafka' | 'balanced';

export interface FlatCluster {
  problem: StandbyProblem;
  /** Task t's TaskId as numbers (the fallback HashMap order hashes them). */
  subtopologies: Int32Array;
  partitions: Int32Array;
  /** Tag value of each global value id, and the key index it belongs to. */
  valueNames: string[];
  valueKeys: Int32Array;
}

/** Most standby slots one call may produce: the WASM kernel needs about 16 bytes per slot, and one module has at most 4 GiB. */
const MAX_SLOTS = 1 << 25;

/**
 * Builds the kernel input. `width` is the number of slots per task:
 * min(numStandbys, clients - 1) (clients when some task has no active), or 1 in kafka mode when the X04 do-while
 * (numStandbys = 0 without the guard) places one standby anyway.
 */
export function flatten(cluster: Cluster, mode: Mode, zeroGuard: boolean): FlatCluster {
  const { clients, tagKeys } = cluster;
  const C = clients.length;
  const K = tagKeys.length;
  // A cluster from normalizeCluster's fast path has its tasks as columns; reading
  // `cluster.tasks` would make a TaskId object per task.
  const cols = clusterColumns(cluster);
  let subs: Int32Array;
  let parts: Int32Array;
  if (cols !== undefined) {
    subs = cols.subs;
    parts = cols.parts;
  } else {
    const tasks = cluster.tasks;
    subs = new Int32Array(tasks.length);
    parts = new Int32Array(tasks.length);
    for (let i = 0; i < tasks.length; i++) {
      subs[i] = tasks[i]!.subtopology;
      parts[i] = tasks[i]!.partition;
    }
  }
  const valueIds = tagKeys.map(() => new Map<string, number>());
  const valueNames: string[] = [];
  const valueKeyList: number[] = [];
  const clientValues = new Int32Array(C * K);
  const capacity = new Int32Array(C);
  for (let c = 0; c < C; c++) {
    const cl = clients[c]!;
    for (let k = 0; k < K; k++) {
      const value = cl.tags.get(tagKeys[k]!);
      if (value === undefined) {
        clientValues[c * K + k] = -1;
        continue;
      }
      let id = valueIds[k]!.get(value);
      if (id === undefined) {
        id = valueNames.length;
        valueNames.push(value);
        valueKeyList.push(k);
        valueIds[k]!.set(value, id);
      }
      clientValues[c * K + k] = id;
    }
    capacity[c] = cl.capacity;
  }
  const { load, active, holderStart, holders } = cols !== undefined ? taskColumns(cluster, cols) : taskObjects(cluster, subs, parts);
  // Kafka's distinct-value counts include every client (tagKeyToValues).
  const distinct = new Int32Array(K);
  for (let k = 0; k < K; k++) distinct[k] = valueIds[k]!.size;
  return {
    problem: finishProblem(mode, zeroGuard, cluster.numStandbys, { clients: C, keys: K, tasks: subs.length, clientValues, values: valueNames.length, distinct, load, capacity, active, holderStart, holders }),
    subtopologies: subs,
    partitions: parts,
    valueNames,
    valueKeys: Int32Array.from(valueKeyList),
  };
}

interface TaskParts {
  load: Int32Array;
  active: Int32Array;
  holderStart: Int32Array;
  holders: Int32Array;
}

/** Per-client load, each task's active client and existing holders, from the fast path's columns. */
function taskColumns(cluster: Cluster, cols: ClusterColumns): TaskParts {
  const { clients } = cluster;
  const { lists, entryTask } = cols;
  const C = clients.length;
  const T = cols.subs.length;
  const load = new Int32Array(C);
  const active = new Int32Array(T).fill(-1);
  const holderStart = new Int32Array(T + 1);
  for (let c = 0; c < C; c++) {
    const i = clients[c]!.inputIndex;
    const a0 = lists[2 * i]!, a1 = lists[2 * i + 1]!, s1 = lists[2 * i + 2]!;
    load[c] = s1 - a0;
    for (let e = a0; e < a1; e++) {
      const k = entryTask[e]!;
      if (k >= 0) active[k] = c;
    }
    // Standby entries are all stateful (normalizeCluster checked).
    for (let e = a1; e < s1; e++) holderStart[entryTask[e]! + 1]!++;
  }
  for (let t = 0; t < T; t++) holderStart[t + 1]! += holderStart[t]!;
  const holders = new Int32Array(holderStart[T]!);
  if (holders.length === 0) return { load, active, holderStart, holders };
  const cursor = holderStart.slice(0, T);
  // Clients in order, so each task's holders come out ascending.
  for (let c = 0; c < C; c++) {
    const i = clients[c]!.inputIndex;
    for (let e = lists[2 * i + 1]!, s1 = lists[2 * i + 2]!; e < s1; e++) holders[cursor[entryTask[e]!]!++] = c;
  }
  return { load, active, holderStart, holders };
}

/** The same from the clients' TaskId lists (a cluster from the object path). */
function taskObjects(cluster: Cluster, subs: Int32Array, parts: Int32Array): TaskParts {
  const { clients, tasks } = cluster;
  const C = clients.length;
  const T = tasks.length;
  // normalizeCluster interns task ids and records their index; binary search is the fallback.
  const indexOf = (t: TaskId): number => {
    const i = (t as Partial<IndexedTask>).index;
    if (i !== undefined && (i === -1 || tasks[i] === t)) return i;
    let lo = 0;
    let hi = T - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const d = subs[mid]! - t.subtopology || parts[mid]! - t.partition;
      if (d === 0) return mid;
      if (d < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };
  const load = new Int32Array(C);
  const active = new Int32Array(T).fill(-1);
  const existing = new Int32Array(T);
  for (let c = 0; c < C; c++) {
    const cl = clients[c]!;
    load[c] = cl.active.length + cl.standby.length;
    for (const t of cl.active) {
      const i = indexOf(t);
      if (i >= 0) active[i] = c;
    }
    for (const t of cl.standby) {
      const i = indexOf(t);
      if (i >= 0) existing[i]!++;
    }
  }
  const holderStart = new Int32Array(T + 1);
  for (let t = 0; t < T; t++) holderStart[t + 1] = holderStart[t]! + existing[t]!;
  const holders = new Int32Array(holderStart[T]!);
  const cursor = holderStart.slice(0, T);
  for (let c = 0; c < C; c++) {
    for (const t of clients[c]!.standby) {
      const i = indexOf(t);
      if (i >= 0) holders[cursor[i]!++] = c;
    }
  }
  return { load, active, holderStart, holders };
}

/** What flatten knows before the kernel's sizes are worked out. */
type ProblemParts = Omit<StandbyProblem, 'groups' | 'groupOf' | 'groupValues' | 'width' | 'need'>;

/**
 * Adds the tag groups (clients with the same tuple of value ids, numbered by
 * first appearance), the slots per task and each task's count of standbys to place.
 */
function finishProblem(mode: Mode, zeroGuard: boolean, S: number, parts: ProblemParts): StandbyProblem {
  const { clients: C, keys: K, tasks: T, clientValues, active, holderStart } = parts;
  const groupOf = new Int32Array(C);
  const groupIds = new Map<string, number>();
  const groupValues: number[] = [];
  for (let c = 0; c < C; c++) {
    const tuple = K === 1 ? String(clientValues[c]) : Array.from(clientValues.subarray(c * K, c * K + K)).join(',');
    let g = groupIds.get(tuple);
    if (g === undefined) {
      g = groupIds.size;
      groupIds.set(tuple, g);
      for (let k = 0; k < K; k++) groupValues.push(clientValues[c * K + k]!);
    }
    groupOf[c] = g;
  }
  const kafkaZero = mode === 'kafka' && S === 0 && !zeroGuard && K > 0;
  const perTask = mode === 'kafka' && S === 0 && zeroGuard ? 0 : kafkaZero ? 1 : S;
  // A task nobody runs can have a standby on every client; otherwise the active's client is out.
  let unowned = false;
  for (let t = 0; t < T && !unowned; t++) unowned = active[t]! < 0;
  const width = Math.max(0, Math.min(perTask, unowned ? C : C - 1));
  if (T * width > MAX_SLOTS) {
    throw new AssignorError('E_TOO_LARGE', `${T} tasks x ${width} standbys is more than the ${MAX_SLOTS} standby slots one call supports; split the input`, 'tasks');
  }
  const need = new Int32Array(T);
  for (let t = 0; t < T; t++) {
    const existing = holderStart[t + 1]! - holderStart[t]!;
    // Balanced mode counts existing standbys toward the target; Kafka's counters ignore them.
    need[t] = mode === 'balanced' ? Math.max(0, Math.min(S - existing, width)) : perTask === 0 ? 0 : kafkaZero ? 0 : Math.min(S, width);
  }
  return { ...parts, groups: groupIds.size, groupOf, groupValues: Int32Array.from(groupValues), width, need };
}
