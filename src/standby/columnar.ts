// The columnar input: a cluster as typed arrays, checked at the boundary in
// one pass per array and handed to the kernels without an object per task or
// client. Same placements as the JSON-shaped input for the same cluster
// (docs/standby.md, "Columnar input"). Errors name the array and the element.
import { loadKernels } from '../engine/kernels.js';
import { AssignorError, describe } from '../errors.js';
import { finishProblem, type Mode } from './problem.js';
import { runKernel, type AssignorName, type PlaceOptions } from './place.js';
import { isNormalized, MAX_CAPACITY, type Cluster, type ClusterSpec } from './input.js';
import { normalizeCluster } from './normalize.js';
import { clusterColumns, type ClusterColumns } from './input-columns.js';
import { INT32_MAX } from '../basics.js';

/**
 * A cluster as columns. Clients are numbered 0..C-1 in ProcessId order (Kafka's
 * tie-break: signed-UUID order, then plain ids; `columnarOf` or sorting with
 * `compareProcessKeys` gives it); tasks 0..T-1 are the stateful tasks in TaskId order.
 */
export interface ColumnarCluster {
  /** Configured tag keys, 0..5 (rack.aware.assignment.tags, in precedence order). */
  keys: number;
  /** C*K: client c's value for key k as an id >= 0 (any numbering, per key), -1 when the client lacks the key. */
  tags: Int32Array;
  /** C: stream threads per client, 1..2^20. Its length is the number of clients. */
  capacity: Int32Array;
  /** T: the tasks' subtopology and partition, strictly increasing (TaskId order), each >= 0. */
  subtopology: Int32Array;
  partition: Int32Array;
  /** T: the client running the task's active, or -1. */
  active: Int32Array;
  /** Standbys per task (num.standby.replicas), an integer >= 0. */
  numStandbys: number;
  /** C, optional: more tasks each client runs (stateless actives), counted in its load; 0..2^24. */
  otherLoad?: Int32Array;
  /**
   * Optional standbys the clients already hold: task t's are
   * standbyClients[standbyStart[t] .. standbyStart[t+1]), in ascending client order.
   */
  standbyStart?: Int32Array;
  standbyClients?: Int32Array;
}

/** The placement as columns: slot (t, j) is t * width + j. */
export interface ColumnarPlacement {
  readonly mode: Mode;
  readonly assignor: AssignorName;
  readonly engine: string;
  readonly clients: number;
  readonly tasks: number;
  readonly width: number;
  /** T*width: the client of each new standby, -1 for an empty slot. */
  readonly slots: Int32Array;
  /** T*width: bit k set = that standby differs on key k from every copy placed before it. */
  readonly masks: Int32Array;
  /** Kafka mode: false when the fallback's HashMap order could not be modelled exactly. */
  readonly orderExact: boolean;
}

const MAX_OTHER_LOAD = 1 << 24;

function fail(message: string, path: string): never {
  throw new AssignorError('E_INPUT', message, path);
}

/** What a wrong array is, without quoting its elements (a typed array of millions costs seconds to quote). */
function kindOf(v: unknown): string {
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name}(${(v as unknown as { length?: number }).length ?? v.byteLength})`;
  if (Array.isArray(v)) return `an Array(${v.length})`;
  return v === undefined ? 'nothing' : describe(v);
}

function int32s(v: unknown, name: string, length?: number): Int32Array {
  if (!(v instanceof Int32Array)) fail(`${name} must be an Int32Array, got ${kindOf(v)}`, name);
  if (length !== undefined && v.length !== length) fail(`${name} must have ${length} elements, got ${v.length}`, name);
  return v;
}

/** Places standbys for a columnar cluster; see ColumnarCluster. `options` as for placeStandbys. */
export function placeStandbysColumnar(input: ColumnarCluster, options: PlaceOptions = {}): ColumnarPlacement {
  const mode = checkMode(options);
  if (typeof input !== 'object' || input === null) fail(`the input must be an object of typed arrays, got ${describe(input)}`, '$');
  // Checked in this order, so the first error reported is always the same one.
  const { K, S } = checkScalars(input);
  const capacity = checkCapacity(input);
  const C = capacity.length;
  const tags = int32s(input.tags, 'tags', C * K);
  const { subs, parts } = checkTasks(input);
  const T = subs.length;
  const active = int32s(input.active, 'active', T);
  const load = activeLoad(active, C);
  addOtherLoad(input, load);
  const { holderStart, holders } = checkExisting(input, active, load);
  const { clientValues, values, distinct } = renumberTags(tags, C, K);
  const zeroGuard = options.zeroStandbyGuard ?? true;
  const p = finishProblem(mode, zeroGuard, S, { clients: C, keys: K, tasks: T, clientValues, values, distinct, load, capacity, active, holderStart, holders });
  const kernels = loadKernels(options.engine === undefined ? {} : { engine: options.engine });
  const { out, orderExact } = runKernel(kernels, p, { subtopologies: subs, partitions: parts }, { mode, tagAware: K > 0, keepKafka: false });
  const n = T * p.width;
  return {
    mode,
    assignor: mode === 'balanced' ? 'balanced' : K > 0 ? 'ClientTagAwareStandbyTaskAssignor' : 'DefaultStandbyTaskAssignor',
    engine: kernels.name,
    clients: C,
    tasks: T,
    width: p.width,
    slots: out.subarray(0, n),
    masks: out.subarray(n, 2 * n),
    orderExact,
  };
}

function checkMode(options: PlaceOptions): Mode {
  if (typeof options !== 'object' || options === null) throw new AssignorError('E_USAGE', `options must be an object, got ${describe(options)}`, 'options');
  const mode = options.mode ?? 'balanced';
  if (mode !== 'balanced' && mode !== 'kafka') throw new AssignorError('E_USAGE', `mode must be kafka or balanced, got ${JSON.stringify(mode)}`, 'mode');
  return mode;
}

function checkScalars(input: ColumnarCluster): { K: number; S: number } {
  const K = input.keys;
  if (typeof K !== 'number' || !Number.isInteger(K) || K < 0 || K > 5) fail(`keys must be an integer in [0, 5], got ${describe(K)}`, 'keys');
  const S = input.numStandbys;
  if (typeof S !== 'number' || !Number.isInteger(S) || S < 0 || S > INT32_MAX) fail(`numStandbys must be an integer in [0, 2147483647], got ${describe(S)}`, 'numStandbys');
  return { K, S };
}

function checkCapacity(input: ColumnarCluster): Int32Array {
  const capacity = int32s(input.capacity, 'capacity');
  for (let c = 0; c < capacity.length; c++) {
    const x = capacity[c]!;
    if (x < 1 || x > MAX_CAPACITY) fail(`capacity[${c}] must be in [1, ${MAX_CAPACITY}] (stream threads), got ${x}`, `capacity[${c}]`);
  }
  return capacity;
}

/** The tasks' ids: non-negative, distinct and in TaskId order. */
function checkTasks(input: ColumnarCluster): { subs: Int32Array; parts: Int32Array } {
  const subs = int32s(input.subtopology, 'subtopology');
  const T = subs.length;
  const parts = int32s(input.partition, 'partition', T);
  for (let t = 0; t < T; t++) {
    if (subs[t]! < 0) fail(`subtopology[${t}] must be >= 0, got ${subs[t]}`, `subtopology[${t}]`);
    if (parts[t]! < 0) fail(`partition[${t}] must be >= 0, got ${parts[t]}`, `partition[${t}]`);
    if (t > 0 && (subs[t - 1]! > subs[t]! || (subs[t - 1] === subs[t] && parts[t - 1]! >= parts[t]!))) {
      fail(`tasks must be distinct and in TaskId order: task ${t} (${subs[t]}_${parts[t]}) comes after ${subs[t - 1]}_${parts[t - 1]}`, `subtopology[${t}]`);
    }
  }
  return { subs, parts };
}

/** Each client's load from the actives it runs (after checking them). */
function activeLoad(active: Int32Array, C: number): Int32Array {
  const load = new Int32Array(C);
  for (let t = 0; t < active.length; t++) {
    const a = active[t]!;
    if (a < -1 || a >= C) fail(`active[${t}] must be a client index in [0, ${C}) or -1, got ${a}`, `active[${t}]`);
    if (a >= 0) load[a]!++;
  }
  return load;
}

function addOtherLoad(input: ColumnarCluster, load: Int32Array): void {
  if (input.otherLoad === undefined) return;
  const C = load.length;
  const other = int32s(input.otherLoad, 'otherLoad', C);
  for (let c = 0; c < C; c++) {
    if (other[c]! < 0 || other[c]! > MAX_OTHER_LOAD) fail(`otherLoad[${c}] must be in [0, ${MAX_OTHER_LOAD}], got ${other[c]}`, `otherLoad[${c}]`);
    load[c]! += other[c]!;
  }
}

/** The existing standbys (both arrays or neither), checked and counted in `load`. */
function checkExisting(input: ColumnarCluster, active: Int32Array, load: Int32Array): { holderStart: Int32Array; holders: Int32Array } {
  const T = active.length, C = load.length;
  if (input.standbyStart === undefined && input.standbyClients === undefined) return { holderStart: new Int32Array(T + 1), holders: new Int32Array(0) };
  if (input.standbyStart === undefined || input.standbyClients === undefined) {
    const given = input.standbyStart === undefined ? 'standbyClients' : 'standbyStart';
    fail(`existing standbys need both standbyStart and standbyClients (or neither); only ${given} was given`, given === 'standbyStart' ? 'standbyClients' : 'standbyStart');
  }
  const holderStart = int32s(input.standbyStart, 'standbyStart', T + 1);
  const holders = int32s(input.standbyClients, 'standbyClients');
  if (holderStart[0] !== 0) fail(`standbyStart[0] must be 0, got ${holderStart[0]}`, 'standbyStart[0]');
  if (holderStart[T] !== holders.length) fail(`standbyStart[${T}] must be standbyClients.length (${holders.length}), got ${holderStart[T]}`, `standbyStart[${T}]`);
  for (let t = 0; t < T; t++) {
    const h0 = holderStart[t]!, h1 = holderStart[t + 1]!;
    if (h1 < h0) fail(`standbyStart must not decrease: standbyStart[${t + 1}] = ${h1} < ${h0}`, `standbyStart[${t + 1}]`);
    for (let h = h0; h < h1; h++) {
      const c = holders[h]!;
      if (c < 0 || c >= C) fail(`standbyClients[${h}] must be a client index in [0, ${C}), got ${c}`, `standbyClients[${h}]`);
      if (h > h0 && holders[h - 1]! >= c) fail(`task ${t}'s standby clients must be distinct and ascending: ${holders[h - 1]} then ${c}`, `standbyClients[${h}]`);
      if (c === active[t]) fail(`client ${c} holds task ${t} both as active and as standby`, `standbyClients[${h}]`);
      load[c]!++;
    }
  }
  return { holderStart, holders };
}

/** Value ids are renumbered globally in order of first appearance, as flatten() numbers tag values. */
function renumberTags(tags: Int32Array, C: number, K: number): { clientValues: Int32Array; values: number; distinct: Int32Array } {
  const clientValues = new Int32Array(C * K);
  const ids = Array.from({ length: K }, () => new Map<number, number>());
  let values = 0;
  for (let i = 0; i < C * K; i++) {
    const v = tags[i]!;
    if (v < -1) fail(`tags[${i}] (client ${Math.floor(i / K)}, key ${i % K}) must be a value id >= 0 or -1, got ${v}`, `tags[${i}]`);
    if (v === -1) {
      clientValues[i] = -1;
      continue;
    }
    const m = ids[i % K]!;
    let g = m.get(v);
    if (g === undefined) {
      g = values++;
      m.set(v, g);
    }
    clientValues[i] = g;
  }
  return { clientValues, values, distinct: Int32Array.from(ids, (m) => m.size) };
}

/**
 * The columnar form of a cluster, normalized first when it is not (clients and tasks in its order, tag
 * values numbered per key by first appearance, stateless actives as otherLoad).
 */
export function columnarOf(input: ClusterSpec | Cluster): ColumnarCluster {
  const cluster = isNormalized(input) ? input : normalizeCluster(input);
  const { clients, tagKeys } = cluster;
  const C = clients.length, K = tagKeys.length;
  const tags = new Int32Array(C * K);
  const ids = tagKeys.map(() => new Map<string, number>());
  const capacity = new Int32Array(C);
  clients.forEach((cl, c) => {
    for (let k = 0; k < K; k++) {
      const v = cl.tags.get(tagKeys[k]!);
      if (v === undefined) tags[c * K + k] = -1;
      else {
        const m = ids[k]!;
        if (!m.has(v)) m.set(v, m.size);
        tags[c * K + k] = m.get(v)!;
      }
    }
    capacity[c] = cl.capacity;
  });
  const cols = clusterColumns(cluster);
  const tasks = cols !== undefined ? tasksOfColumns(cluster, cols) : tasksOfObjects(cluster);
  return { keys: K, tags, capacity, ...tasks, numStandbys: cluster.numStandbys };
}

type TaskColumns = Pick<ColumnarCluster, 'subtopology' | 'partition' | 'active' | 'otherLoad' | 'standbyStart' | 'standbyClients'>;

/** The task columns of a cluster from normalizeCluster's fast path (no TaskId objects). */
function tasksOfColumns(cluster: Cluster, cols: ClusterColumns): TaskColumns {
  const { clients } = cluster;
  const { lists, entryTask } = cols;
  const C = clients.length, T = cols.subs.length;
  const otherLoad = new Int32Array(C);
  const active = new Int32Array(T).fill(-1);
  const count = new Int32Array(T + 1);
  for (let c = 0; c < C; c++) {
    const i = clients[c]!.inputIndex;
    const a0 = lists[2 * i]!, a1 = lists[2 * i + 1]!, s1 = lists[2 * i + 2]!;
    for (let e = a0; e < a1; e++) {
      const k = entryTask[e]!;
      if (k >= 0) active[k] = c;
      else otherLoad[c]!++;
    }
    for (let e = a1; e < s1; e++) count[entryTask[e]! + 1]!++;
  }
  for (let t = 0; t < T; t++) count[t + 1]! += count[t]!;
  const standbyClients = new Int32Array(count[T]!);
  const cursor = count.slice(0, T);
  // Clients in order, so each task's list comes out ascending.
  for (let c = 0; c < C; c++) {
    const i = clients[c]!.inputIndex;
    for (let e = lists[2 * i + 1]!, s1 = lists[2 * i + 2]!; e < s1; e++) standbyClients[cursor[entryTask[e]!]!++] = c;
  }
  return { subtopology: cols.subs.slice(), partition: cols.parts.slice(), active, otherLoad, standbyStart: count, standbyClients };
}

/** The same from the clients' TaskId lists. */
function tasksOfObjects(cluster: Cluster): TaskColumns {
  const { clients, tasks } = cluster;
  const C = clients.length, T = tasks.length;
  const otherLoad = new Int32Array(C);
  const subtopology = new Int32Array(T);
  const partition = new Int32Array(T);
  const active = new Int32Array(T).fill(-1);
  // TaskId -> index by binary search on the sorted columns.
  for (let t = 0; t < T; t++) {
    subtopology[t] = tasks[t]!.subtopology;
    partition[t] = tasks[t]!.partition;
  }
  const indexOf = (s: number, q: number): number => {
    let lo = 0, hi = T - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const d = subtopology[mid]! - s || partition[mid]! - q;
      if (d === 0) return mid;
      if (d < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };
  const count = new Int32Array(T + 1);
  const held: [number, number][] = [];
  clients.forEach((cl, c) => {
    for (const t of cl.active) {
      const i = indexOf(t.subtopology, t.partition);
      if (i >= 0) active[i] = c;
      else otherLoad[c]!++;
    }
    for (const t of cl.standby) {
      const i = indexOf(t.subtopology, t.partition);
      held.push([i, c]);
      count[i + 1]!++;
    }
  });
  for (let t = 0; t < T; t++) count[t + 1]! += count[t]!;
  const standbyClients = new Int32Array(held.length);
  const cursor = count.slice(0, T);
  // Clients are visited in order, so each task's list comes out ascending.
  for (const [i, c] of held) standbyClients[cursor[i]!++] = c;
  return { subtopology, partition, active, otherLoad, standbyStart: count, standbyClients };
}
