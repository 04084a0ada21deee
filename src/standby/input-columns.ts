// normalizeCluster's fast path: the same checks and the same Cluster as the
// object path (input.ts), but every task-id string is read once into integer
// columns and looked up by number, and the TaskId objects of `tasks` and of
// the clients' lists are made only when someone reads them (a report does;
// placing does not: flatten() reads the columns). Input it does not accept
// (anything that is an error, or too odd to pack) returns undefined, and the
// object path then reports the exact first error.
import { PACKED_SUBTOPOLOGY_LIMIT, packTaskId, scanTaskId, scanned, type TaskId } from './task-id.js';
import type { ProcessKey } from './process-id.js';
import { isRecord, markNormalized, readClient, readSettings, sortClients, type Client, type Cluster, type IndexedTask } from './input.js';
import { TaskIndex, sortedDistinct } from './task-columns.js';

/** The task lists of a cluster from the fast path, as columns. */
export interface ClusterColumns {
  /** The stateful tasks in TaskId order (Cluster.tasks as numbers). */
  readonly subs: Int32Array;
  readonly parts: Int32Array;
  /** Input client i's active entries are [lists[2i], lists[2i+1]), its standbys [lists[2i+1], lists[2i+2]). */
  readonly lists: Int32Array;
  /** Per entry: the task's index in subs/parts, or -1 for a stateless active (not in `tasks`). */
  readonly entryTask: Int32Array;
  /** The stateless actives: entry -> its task id packed (subtopology * 2^32 + partition). */
  readonly stateless: Map<number, number>;
}

const columnsOf = new WeakMap<Cluster, ClusterColumns>();

// Read once: some loaders (tsx) turn every use of an imported binding into an export getter
// call, and these run for every task id of the input.
const pack = packTaskId;
const scan = scanTaskId;
const read = scanned;
const LIMIT = PACKED_SUBTOPOLOGY_LIMIT;

/**
 * packTaskId's test without packing: true when `text` is a task id the fast path takes
 * (packTaskId(text) >= 0), its numbers then in `read`.
 */
function readTaskId(text: unknown): boolean {
  return typeof text === 'string' && scan(text) && read.subtopology < LIMIT;
}

/** The columns behind a cluster from the fast path; undefined for one from the object path. */
export function clusterColumns(cluster: Cluster): ClusterColumns | undefined {
  return columnsOf.get(cluster);
}

/** Materializes TaskId objects on first use; equal ids share one object, as on the object path. */
class TaskObjects {
  private tasks: TaskId[] | undefined;
  constructor(private readonly cols: ClusterColumns) {}

  all(): TaskId[] {
    if (this.tasks === undefined) {
      const { subs, parts } = this.cols;
      const out: TaskId[] = new Array(subs.length);
      for (let t = 0; t < subs.length; t++) out[t] = { subtopology: subs[t]!, partition: parts[t]!, index: t } as IndexedTask;
      this.tasks = out;
    }
    return this.tasks;
  }

  /** Entries [from, to) as TaskIds (a stateless active gets its own object, index -1). */
  list(from: number, to: number): TaskId[] {
    const { entryTask, stateless } = this.cols;
    const out: TaskId[] = new Array(to - from);
    const tasks = to > from ? this.all() : [];
    for (let e = from; e < to; e++) {
      const k = entryTask[e]!;
      if (k >= 0) out[e - from] = tasks[k]!;
      else {
        const key = stateless.get(e)!;
        const s = Math.floor(key / 4294967296);
        out[e - from] = { subtopology: s, partition: key - s * 4294967296, index: -1 } as IndexedTask;
      }
    }
    return out;
  }
}

/** A client's own fields, as readClient gives them. */
interface OwnFields {
  id: string;
  key: ProcessKey;
  tags: Map<string, string>;
  capacity: number;
}

class ColumnClient implements Client {
  // Private fields: the client's own (enumerable) fields are exactly a Client's.
  #active: TaskId[] | undefined;
  #standby: TaskId[] | undefined;
  readonly #objects: TaskObjects;
  readonly #lists: Int32Array;
  readonly id: string;
  readonly key: ProcessKey;
  readonly tags: Map<string, string>;
  readonly capacity: number;
  readonly inputIndex: number;
  /** `own`: the client's own fields; its task lists are read from `cols` (entry inputIndex) when first asked for. */
  constructor(own: OwnFields, inputIndex: number, objects: TaskObjects, cols: ClusterColumns) {
    this.id = own.id;
    this.key = own.key;
    this.tags = own.tags;
    this.capacity = own.capacity;
    this.inputIndex = inputIndex;
    this.#objects = objects;
    this.#lists = cols.lists;
  }

  get active(): TaskId[] {
    const i = this.inputIndex;
    return (this.#active ??= this.#objects.list(this.#lists[2 * i]!, this.#lists[2 * i + 1]!));
  }

  get standby(): TaskId[] {
    const i = this.inputIndex;
    return (this.#standby ??= this.#objects.list(this.#lists[2 * i + 1]!, this.#lists[2 * i + 2]!));
  }
}

class ColumnCluster implements Cluster {
  constructor(
    readonly clients: Client[],
    readonly numStandbys: number,
    readonly tagKeys: string[],
    objects: TaskObjects,
  ) {
    this.#objects = objects;
  }

  readonly #objects: TaskObjects;

  get tasks(): TaskId[] {
    return this.#objects.all();
  }
}

/** Active entries in all lists (standby entries are the rest). */
function countActives(lists: Int32Array, N: number): number {
  let n = 0;
  for (let i = 0; i < N; i++) n += lists[2 * i + 1]! - lists[2 * i]!;
  return n;
}

/** The fast path; undefined (or a throw, which the caller treats alike) sends the input to the object path. */
export function normalizeColumns(input: unknown): Cluster | undefined {
  const { spec, shared, numStandbys, tagKeys } = readSettings(input);
  const rawClients = spec.clients;
  if (!Array.isArray(rawClients)) return undefined;
  const shape = listShape(rawClients);
  if (shape === undefined) return undefined;
  const byId = new Map<string, number>();
  const own: ReturnType<typeof readClient>[] = new Array(rawClients.length);
  const readOwn = (i: number): void => {
    own[i] = readClient(rawClients[i], i, shared, tagKeys, byId);
  };
  const tasks = spec.tasks !== undefined ? givenTasks(spec.tasks, shape, readOwn) : listedTasks(shape, readOwn);
  if (tasks === undefined) return undefined;
  const cols: ClusterColumns = { subs: tasks.subs, parts: tasks.parts, lists: shape.lists, entryTask: tasks.entryTask, stateless: tasks.stateless };
  if (!listsAreValid(cols, rawClients.length)) return undefined;
  return clusterOfColumns(own, cols, numStandbys, tagKeys);
}

/** The clients' lists, each read once (a getter is not asked twice), and where each one's entries go. */
interface ListShape {
  activeLists: unknown[][];
  standbyLists: unknown[][];
  /** As ClusterColumns.lists. */
  lists: Int32Array;
  total: number;
}

function listShape(rawClients: unknown[]): ListShape | undefined {
  const N = rawClients.length;
  const activeLists: unknown[][] = new Array(N);
  const standbyLists: unknown[][] = new Array(N);
  const lists = new Int32Array(2 * N + 1);
  let total = 0;
  for (let i = 0; i < N; i++) {
    const raw = rawClients[i];
    if (!isRecord(raw)) return undefined;
    // Only a missing list is empty (null is an error, which the object path reports).
    const a = raw.active === undefined ? [] : raw.active;
    const s = raw.standby === undefined ? [] : raw.standby;
    if (!Array.isArray(a) || !Array.isArray(s)) return undefined;
    activeLists[i] = a;
    standbyLists[i] = s;
    lists[2 * i] = total;
    total += a.length;
    lists[2 * i + 1] = total;
    total += s.length;
  }
  lists[2 * N] = total;
  return { activeLists, standbyLists, lists, total };
}

/** The stateful tasks as columns, and each list entry's task among them. */
type TaskLists = Pick<ClusterColumns, 'subs' | 'parts' | 'entryTask' | 'stateless'>;

/** With "tasks": the stateful tasks first; then each list entry is looked up as it is read. */
function givenTasks(list: unknown, shape: ListShape, readOwn: (i: number) => void): TaskLists | undefined {
  if (!Array.isArray(list)) return undefined;
  const sorted = sortedTasks(list);
  if (sorted === undefined) return undefined;
  const { subs, parts } = sorted;
  const { activeLists, standbyLists, lists, total } = shape;
  const entryTask = new Int32Array(total);
  const stateless = new Map<number, number>();
  const index = new TaskIndex(subs, parts);
  for (let i = 0; i < activeLists.length; i++) {
    readOwn(i);
    for (const [from, ids] of [[lists[2 * i]!, activeLists[i]!], [lists[2 * i + 1]!, standbyLists[i]!]] as const) {
      for (let j = 0; j < ids.length; j++) {
        if (!readTaskId(ids[j])) return undefined;
        const k = index.indexOf(read.subtopology, read.partition);
        entryTask[from + j] = k;
        if (k < 0) stateless.set(from + j, read.subtopology * 4294967296 + read.partition);
      }
    }
  }
  return { subs, parts, entryTask, stateless };
}

/**
 * "tasks" as columns in TaskId order. Usually given in that order: read straight into the columns,
 * and only when a task comes out of order collect the packed keys to sort them.
 */
function sortedTasks(list: unknown[]): { subs: Int32Array; parts: Int32Array } | undefined {
  const n = list.length;
  const subs = new Int32Array(n);
  const parts = new Int32Array(n);
  let ps = -1;
  let pp = -1;
  let i = 0;
  for (; i < n; i++) {
    if (!readTaskId(list[i])) return undefined;
    const s = read.subtopology, q = read.partition;
    if (s < ps || (s === ps && q <= pp)) break;
    subs[i] = ps = s;
    parts[i] = pp = q;
  }
  if (i === n) return { subs, parts };
  const keys = new Float64Array(n);
  for (let j = 0; j < n; j++) if ((keys[j] = pack(list[j])) < 0) return undefined;
  return sortedDistinct(keys, true);
}

/** Without "tasks": every task named in some list is stateful; read all entries, then sort out the distinct ones. */
function listedTasks(shape: ListShape, readOwn: (i: number) => void): TaskLists | undefined {
  const { activeLists, standbyLists, lists, total } = shape;
  const keys = new Float64Array(total);
  for (let i = 0; i < activeLists.length; i++) {
    readOwn(i);
    for (const [from, ids] of [[lists[2 * i]!, activeLists[i]!], [lists[2 * i + 1]!, standbyLists[i]!]] as const) {
      for (let j = 0; j < ids.length; j++) if ((keys[from + j] = pack(ids[j])) < 0) return undefined;
    }
  }
  const index0 = keys.slice();
  const { subs, parts } = sortedDistinct(keys, false)!;
  const index = new TaskIndex(subs, parts);
  const entryTask = new Int32Array(total);
  for (let e = 0; e < total; e++) entryTask[e] = index.indexOfKey(index0[e]!);
  return { subs, parts, entryTask, stateless: new Map<number, number>() };
}

/** The object path's checks on the lists (any failure: false, and the object path reports it). */
function listsAreValid(cols: ClusterColumns, N: number): boolean {
  const { lists, entryTask, stateless } = cols;
  const T = cols.subs.length;
  // 1 + input index of the client running the task as active; when nobody holds standbys,
  // only whether it runs anywhere matters, and a byte says that.
  const owner = lists[2 * N]! === countActives(lists, N) ? new Uint8Array(T) : new Int32Array(T);
  const stamp = owner instanceof Int32Array ? new Int32Array(T) : undefined;
  let serial = 0;
  const statelessSeen = new Set<number>();
  for (let i = 0; i < N; i++) {
    const a0 = lists[2 * i]!, a1 = lists[2 * i + 1]!, s1 = lists[2 * i + 2]!;
    for (let e = a0; e < a1; e++) {
      const k = entryTask[e]!;
      if (k >= 0) {
        // Listed twice, or active on two clients.
        if (owner[k] !== 0) return false;
        owner[k] = stamp === undefined ? 1 : i + 1;
      } else {
        const key = stateless.get(e)!;
        if (statelessSeen.has(key)) return false;
        statelessSeen.add(key);
      }
    }
    serial++;
    for (let e = a1; e < s1; e++) {
      const k = entryTask[e]!;
      // Not stateful, listed twice, or also active here.
      if (k < 0 || stamp![k] === serial || owner[k] === i + 1) return false;
      stamp![k] = serial;
    }
  }
  return true;
}

/** A Cluster over checked columns, registered for clusterColumns. `own`: the clients' own fields, in input order. */
function clusterOfColumns(own: readonly OwnFields[], cols: ClusterColumns, numStandbys: number, tagKeys: string[]): Cluster {
  const objects = new TaskObjects(cols);
  const clients: Client[] = own.map((c, i) => new ColumnClient(c, i, objects, cols));
  const cluster = new ColumnCluster(sortClients(clients), numStandbys, tagKeys, objects);
  columnsOf.set(cluster, cols);
  return markNormalized(cluster);
}
