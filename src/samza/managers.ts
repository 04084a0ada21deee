// Samza's coordinator-stream managers over the generic store: message types,
// keys and `values` maps exactly as Samza writes them. The store value of a
// record is Samza's `values` map (host/username/timestamp are not kept: they
// would make two identical plans write different bytes).
import { AssignorError, describe } from '../errors.js';
import { SamzaError, MSG } from './errors.js';
import { ssp, systemStreamId, systemStreamName, type SSP, type SystemStream, type TaskMode } from './model.js';
import type { PreviousRows } from './previous.js';
import type { CoordinatorStoreReader, StoreRecord } from './store-types.js';
import { SspTable } from '../coordinator-stream/ssp-table.js';
import { canonicalSspKey, parseCanonical } from '../coordinator-stream/ssp-key.js';
import { MessageType } from '../coordinator-stream/messages.js';
import type { SspAssignment } from '../coordinator-stream/columns.js';
import { ArrayTexts, type Texts } from '../columns/texts.js';
import { ColumnMap } from './task-columns.js';
import { byCodeUnits, INT32_MAX } from '../basics.js';

/** The coordinator-stream message types the planner reads and writes (Samza's, from the one table, and one of ours). */
export const TYPES = {
  taskPartition: MessageType.TaskPartitionAssignment,
  changelog: MessageType.Changelog,
  taskContainer: MessageType.TaskContainerAssignment,
  taskMode: MessageType.TaskModeAssignment,
  containerHost: MessageType.ContainerHostAssignment,
  config: MessageType.Config,
  /** Ours (not Samza's): the base partition count of a stream, key `system.stream`. */
  baseCount: 'set-stream-base-partition-count',
} as const;

/** The SSP key Samza writes today (see coordinator-stream/ssp-key.ts). */
export function sspKeyJson(s: SSP): string {
  return canonicalSspKey(s.system, s.stream, s.partition, s.keyBucket);
}

/** The SSP of a key in the canonical form (what we write), or undefined for any other form. */
export function parseCanonicalSspKey(key: string): SSP | undefined {
  const c = parseCanonical(key);
  return c === undefined ? undefined : ssp(c.system, c.stream, c.partition, c.bucket);
}

/** Parses both key forms: with keyBucket (2022+) and without (older Samza; keyBucket -1). Any field order. */
export function parseSspKey(key: string): SSP {
  const o: unknown = JSON.parse(key);
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new Error(`SSP key is not a JSON object: ${key}`);
  const r = o as Record<string, unknown>;
  const system = Object.hasOwn(r, 'system') ? r.system : undefined;
  const stream = Object.hasOwn(r, 'stream') ? r.stream : undefined;
  const partition = Object.hasOwn(r, 'partition') ? r.partition : undefined;
  const bucket = Object.hasOwn(r, 'keyBucket') ? r.keyBucket : -1;
  if (typeof system !== 'string' || typeof stream !== 'string' || !Number.isInteger(partition) || !Number.isInteger(bucket)) {
    throw new Error(`SSP key lacks system/stream/partition: ${key}`);
  }
  // Java ints: a partition in 0..2^31-1, a key bucket in -1..2^31-1 (-1: none).
  if ((partition as number) < 0 || (partition as number) > INT32_MAX || (bucket as number) < -1 || (bucket as number) > INT32_MAX) {
    throw new Error(`SSP key has a partition or keyBucket out of range: ${key}`);
  }
  return ssp(system, stream, partition as number, bucket as number);
}


/** An integer stored as a string (Samza writes `String.valueOf(int)`); anything else is a damaged record, named in the error. */
export function storedInt(raw: unknown, type: string, key: string, min: number): number {
  const t = typeof raw === 'string' ? raw.trim() : typeof raw === 'number' ? String(raw) : '';
  const n = Number(t);
  if (!/^\d+$/.test(t) || n < min || n > INT32_MAX) {
    throw new AssignorError('E_SAMZA_STORE_READ', `the store's ${type} record for ${JSON.stringify(key)} holds ${describe(raw)}, not an integer in [${min}, ${INT32_MAX}]`, `${type} ${key}`);
  }
  return n;
}

function values(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** A member of a record's `values` map (own members only: user strings such as `__proto__` are keys). */
export function field(v: unknown, name: string): unknown {
  const o = values(v);
  return o !== undefined && Object.hasOwn(o, name) ? o[name] : undefined;
}

/** What the per-type readers below read: a type's records, or its single-field values as a one-type task table. */
export type TypeReads = Pick<CoordinatorStoreReader, 'entries' | 'taskTable'>;

/** key -> the field's string when every record of the type is exactly { [field]: "<string>" } (Samza's usual shape), else undefined. */
export function singleFields(store: TypeReads, type: string, field: string): Map<string, string> | undefined {
  const t = store.taskTable([[type, field]]);
  if (t === undefined) return undefined;
  const keys = t.keys;
  const vals = t.values[0]!;
  const out = new Map<string, string>();
  for (let r = 0; r < t.n; r++) out.set(keys.at(r), vals.at(r));
  return out;
}

/**
 * readChangelogMapping over a column of stored strings (row -> partition; undefined where the value
 * is blank, which Samza skips). Same checks and errors; plain digit strings are read without a regex.
 */
export function changelogColumn(keys: Texts, strings: Texts): Array<number | undefined> {
  const out = new Array<number | undefined>(strings.length);
  for (let r = 0; r < strings.length; r++) {
    // Samza writes String.valueOf(int): read in place; anything else (leading zeros, spaces, a bad value) the Map way does.
    const fast = strings.plainInt(r);
    if (fast >= 0) {
      out[r] = fast;
      continue;
    }
    const p = strings.at(r);
    out[r] = p.trim() === '' ? undefined : storedInt(p, TYPES.changelog, keys.at(r), 0);
  }
  return out;
}

export function readContainerHosts(store: TypeReads): Map<string, string> {
  const out = new Map<string, string>();
  for (const [id, v] of store.entries(TYPES.containerHost)) {
    const h = field(v, 'host');
    if (typeof h === 'string') out.set(id, h);
  }
  return out;
}

export function readConfig(store: TypeReads): Map<string, string> {
  const fast = singleFields(store, TYPES.config, 'value');
  if (fast !== undefined) return fast;
  const out = new Map<string, string>();
  for (const [k, v] of store.entries(TYPES.config)) {
    const val = field(v, 'value');
    if (typeof val === 'string') out.set(k, val);
  }
  return out;
}

export function configRecord(key: string, value: string | null): StoreRecord {
  return { type: TYPES.config, key, value: value === null ? null : { value } };
}

export function readBaseCounts(store: TypeReads): Map<string, number> {
  const out = new Map<string, number>();
  const fast = singleFields(store, TYPES.baseCount, 'basePartitionCount');
  if (fast !== undefined) {
    for (const [name, v] of fast) out.set(name, storedInt(v, TYPES.baseCount, name, 1));
    return out;
  }
  for (const [name, v] of store.entries(TYPES.baseCount)) {
    out.set(name, storedInt(field(v, 'basePartitionCount'), TYPES.baseCount, name, 1));
  }
  return out;
}

export function baseCountRecord(name: string, base: number | null): StoreRecord {
  return { type: TYPES.baseCount, key: name, value: base === null ? null : { basePartitionCount: String(base) } };
}

// ---- the stored SSP assignment in columns -----------------------------------------------------
// The same reading as readTaskPartitionAssignments (Samza's manager), without one key string and
// one object per SSP: canonical records come as the store's columns (SspTable), each distinct
// taskNames text is parsed once, and every other record (older key forms, other value shapes) is
// read the Map way. The cycle works on this; readTaskPartitionAssignments (test/support) stays the reference.

export interface PreviousAssignment {
  /** Canonical rows: the store's columns (live rows have list >= 0). */
  table: SspAssignment;
  /** Task names per list id of the table (checked once per distinct list, parsed on first use). */
  listTasks: TaskLists;
  /** The table's list texts, read in place where the store holds them as bytes. */
  listTexts: Texts;
  /** Records outside the table, by canonical key (an older form is only used when no canonical record exists). */
  extra: Map<string, { ssp: SSP; tasks: string[] }>;
  /** Canonical key -> older-form keys stored for the same SSP. */
  oldKeys: Map<string, string[]>;
}

/**
 * Whether text l is a one-name list `["name"]` whose name needs no unescaping: no control
 * character, quote or backslash (JSON.parse reads any other text). Read in place (bytes or string).
 */
function plainOneName(t: Texts, l: number): boolean {
  const n = t.lengthOf(l);
  return n >= 4 && t.codeAt(l, 0) === 91 && t.codeAt(l, 1) === 34 && t.codeAt(l, n - 2) === 34 && t.codeAt(l, n - 1) === 93 && t.plainJsonAt(l, 2, n - 2);
}

function singleName(s: string): string | undefined {
  return plainOneName(new ArrayTexts([s]), 0) ? s.slice(2, s.length - 2) : undefined;
}

/**
 * The task names of each list id of a stored SSP table. Every list a live row uses is checked when
 * the store is read (Samza fails there on a bad one); a one-name list (a million of them under
 * GroupByPartition on a big stream) is only sliced into a name, and an array, when someone asks.
 * An unchanged re-plan compares list texts and never asks.
 */
export class TaskLists {
  private readonly tasks: Array<readonly string[] | undefined>;
  private readonly plain: Uint8Array;

  /** `used[l]` 1: a live row uses list l (checked now); unused lists read as empty. */
  constructor(
    private readonly texts: Texts,
    used: Uint8Array,
  ) {
    this.tasks = new Array(texts.length);
    this.plain = new Uint8Array(texts.length);
    for (let l = 0; l < texts.length; l++) {
      if (used[l] !== 1) this.tasks[l] = [];
      else if (plainOneName(texts, l)) this.plain[l] = 1;
      else this.tasks[l] = taskList(texts.at(l), `list ${l}`);
    }
  }

  get length(): number {
    return this.tasks.length;
  }

  /** List l's task names. */
  at(l: number): readonly string[] {
    let t = this.tasks[l];
    if (t === undefined) this.tasks[l] = t = [this.texts.at(l).slice(2, -2)];
    return t;
  }

  /** Whether list l is `["name"]` with a name that needs no escaping (no quote, backslash or control character). */
  isPlainOne(l: number): boolean {
    return this.plain[l] === 1;
  }

  /** Whether list l is the plain one-name list of `names` row j (isPlainOne, and that name), both read in place. */
  isOneName(l: number, names: Texts, j: number): boolean {
    return this.plain[l] === 1 && this.texts.lengthOf(l) === names.lengthOf(j) + 4 && this.texts.holdsAt(l, 2, names, j);
  }

  /** How many names list l holds, without slicing one-name lists. */
  count(l: number): number {
    return this.tasks[l]?.length ?? 1;
  }
}

function taskList(raw: unknown, key: string): string[] {
  // A list per task (a million of them with GroupByPartition on a big stream) is mostly `["Partition 7"]`.
  const one = typeof raw === 'string' ? singleName(raw) : undefined;
  if (one !== undefined) return [one];
  const tasks: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw;
  if (!Array.isArray(tasks) || !tasks.every((x) => typeof x === 'string')) throw new Error(`taskNames of ${key} is not a list of strings`);
  return tasks as string[];
}

/** TaskPartitionAssignmentManager.readTaskPartitionAssignments over columns; same checks, same Samza exception. */
export function readStoredAssignment(store: Pick<CoordinatorStoreReader, 'sspAssignment'>): PreviousAssignment {
  const table = store.sspAssignment();
  let listTasks: TaskLists;
  let listTexts: Texts;
  const extra = new Map<string, { ssp: SSP; tasks: string[] }>();
  const oldKeys = new Map<string, string[]>();
  try {
    // Only lists some live row uses are parsed (a table may keep unused ones until it is compacted).
    listTexts = typeof table.listTexts === 'function' ? table.listTexts() : new ArrayTexts(table.lists);
    const used = new Uint8Array(listTexts.length);
    for (let r = 0; r < table.rows; r++) if (table.list[r]! >= 0) used[table.list[r]!] = 1;
    listTasks = new TaskLists(listTexts, used);
    for (const [key, v] of table.others()) {
      const fast = parseCanonicalSspKey(key);
      const s = fast ?? parseSspKey(key);
      const tasks = taskList(field(v, 'taskNames'), key);
      const canonical = fast !== undefined ? key : sspKeyJson(s);
      if (canonical !== key) {
        const ks = oldKeys.get(canonical) ?? [];
        ks.push(key);
        oldKeys.set(canonical, ks);
        if (extra.has(canonical) || table.find(s.system, s.stream, s.partition, s.keyBucket) >= 0) continue;
      }
      extra.set(canonical, { ssp: s, tasks });
    }
  } catch (e) {
    throw new SamzaError('E_SAMZA_STORE_READ', 'SamzaException', MSG.readAssignments, TYPES.taskPartition, e as Error);
  }
  return { table, listTasks, listTexts, extra, oldKeys };
}

const isActive = (modes: ReadonlyMap<string, TaskMode>, t: string): boolean => (modes.get(t) ?? 'Active') === 'Active';

/** previousTaskToSSPAssignment (active tasks only, sorted by task name), built on first use. */
export class LazyTaskToSsps implements ReadonlyMap<string, readonly SSP[]> {
  private built: Map<string, SSP[]> | undefined;

  constructor(
    private readonly a: PreviousAssignment,
    private readonly modes: ReadonlyMap<string, TaskMode>,
  ) {}

  private get map(): Map<string, SSP[]> {
    if (this.built !== undefined) return this.built;
    const out = new Map<string, SSP[]>();
    const add = (t: string, s: SSP): void => {
      if (!isActive(this.modes, t)) return;
      let l = out.get(t);
      if (l === undefined) out.set(t, (l = []));
      l.push(s);
    };
    const { table, listTasks } = this.a;
    for (let r = 0; r < table.rows; r++) {
      const l = table.list[r]!;
      if (l < 0) continue;
      const st = table.streams[table.stream[r]!]!;
      const s = ssp(st.system, st.stream, table.partition[r]!, table.bucket[r]!);
      for (const t of listTasks.at(l)) add(t, s);
    }
    for (const { ssp: s, tasks } of this.a.extra.values()) for (const t of tasks) add(t, s);
    return (this.built = new Map([...out].sort((x, y) => byCodeUnits(x[0], y[0]))));
  }

  get size(): number {
    return this.map.size;
  }
  get(k: string): readonly SSP[] | undefined {
    return this.map.get(k);
  }
  has(k: string): boolean {
    return this.map.has(k);
  }
  forEach(cb: (value: readonly SSP[], key: string, map: ReadonlyMap<string, readonly SSP[]>) => void, thisArg?: unknown): void {
    this.map.forEach((v, k) => cb.call(thisArg, v, k, this));
  }
  entries(): MapIterator<[string, readonly SSP[]]> {
    return this.map.entries();
  }
  keys(): MapIterator<string> {
    return this.map.keys();
  }
  values(): MapIterator<readonly SSP[]> {
    return this.map.values();
  }
  [Symbol.iterator](): MapIterator<[string, readonly SSP[]]> {
    return this.map.entries();
  }
}

/** The one active task (by `modes`) in a list's names, '' for none, NUL for several. */
export function activeTaskOf(tasks: readonly string[], modes: ReadonlyMap<string, TaskMode>, standby: boolean): string {
  if (!standby) return tasks.length === 0 ? '' : tasks.length === 1 ? tasks[0]! : '\u0000';
  let one = '';
  for (const t of tasks) if (isActive(modes, t)) one = one === '' ? t : '\u0000';
  return one;
}

/** A set of partitions: a bitmap while they are dense, a Set for the rest. */
class PartitionSet {
  size = 0;
  private readonly bits: Uint8Array;
  private more: Set<number> | undefined;

  constructor(maxDense: number) {
    this.bits = new Uint8Array(maxDense + 1);
  }

  add(p: number): void {
    if (p < this.bits.length) {
      if (this.bits[p] === 0) {
        this.bits[p] = 1;
        this.size++;
      }
    } else if (!(this.more ??= new Set()).has(p)) {
      this.more.add(p);
      this.size++;
    }
  }
}

/**
 * Without key buckets each live row is a distinct (stream, partition), so the count per stream is
 * the number of rows held by an active task: one pass, no sets. Undefined when a row has a bucket.
 */
function fastPartitionCounts(a: PreviousAssignment, activeList: Uint8Array): Map<string, number> | undefined {
  const { table } = a;
  const counts = new Float64Array(table.streams.length);
  for (let r = 0; r < table.rows; r++) {
    const l = table.list[r]!;
    if (l < 0) continue;
    if (table.bucket[r] !== -1) return undefined;
    if (activeList[l] === 1) counts[table.stream[r]!]!++;
  }
  if (a.extra.size > 0) return undefined;
  const out = new Map<string, number>();
  table.streams.forEach((st, i) => {
    if (counts[i] === 0) return;
    const name = systemStreamName(st);
    // Two pairs sharing a name ("a.b" + "c", "a" + "b.c") may hold the same partition: count those exactly.
    if (out.has(name)) return;
    out.set(name, counts[i]!);
  });
  const names = new Set<string>();
  for (const st of table.streams) {
    const name = systemStreamName(st);
    if (names.has(name)) return undefined;
    names.add(name);
  }
  return out;
}

/** Distinct partitions per stream name held by active tasks: what calculateJobModel derives from taskToSsps. */
export function previousPartitionCounts(a: PreviousAssignment, modes: ColumnMap<TaskMode>): Map<string, number> {
  const { table, listTasks } = a;
  const standby = modes.includes('Standby');
  const activeList = new Uint8Array(listTasks.length);
  for (let l = 0; l < listTasks.length; l++) activeList[l] = (standby ? listTasks.at(l).some((t) => isActive(modes, t)) : listTasks.count(l) > 0) ? 1 : 0;
  const fast = fastPartitionCounts(a, activeList);
  if (fast !== undefined) return fast;
  const rows = new Float64Array(table.streams.length);
  const max = new Int32Array(table.streams.length).fill(-1);
  for (let r = 0; r < table.rows; r++) {
    const l = table.list[r]!;
    if (l < 0 || activeList[l] === 0) continue;
    const st = table.stream[r]!;
    rows[st]!++;
    if (table.partition[r]! > max[st]!) max[st] = table.partition[r]!;
  }
  // Two (system, stream) pairs can share a name ("a.b" + "c", "a" + "b.c"): sets are per name.
  const sets = new Map<string, PartitionSet>();
  const setOf: Array<PartitionSet | undefined> = table.streams.map((st, i) => {
    if (rows[i] === 0) return undefined;
    const name = systemStreamName(st);
    let set = sets.get(name);
    if (set === undefined) sets.set(name, (set = new PartitionSet(Math.min(max[i]!, 4 * rows[i]! + 1024))));
    return set;
  });
  for (let r = 0; r < table.rows; r++) {
    const l = table.list[r]!;
    if (l >= 0 && activeList[l] === 1) setOf[table.stream[r]!]!.add(table.partition[r]!);
  }
  for (const { ssp: s, tasks } of a.extra.values()) {
    if (!tasks.some((t) => isActive(modes, t))) continue;
    const name = systemStreamName(s);
    let set = sets.get(name);
    if (set === undefined) sets.set(name, (set = new PartitionSet(1024)));
    set.add(s.partition);
  }
  return new Map([...sets].map(([name, set]) => [name, set.size]));
}

/**
 * The active tasks' previous assignment as flat rows, straight from the store's columns: the same
 * rows, in the same order, as previousRows(new LazyTaskToSsps(a, modes)) (tasks in name order, each
 * task's table rows then its extra records), without an SSP object per row. The samza mapper reads
 * this; at millions of SSPs the objects and the garbage collector walking them cost seconds.
 */
export function previousRowsOfAssignment(a: PreviousAssignment, modes: ReadonlyMap<string, TaskMode>): PreviousRows {
  const { table, listTasks } = a;
  const extras = [...a.extra.values()];
  // Active task names, sorted as LazyTaskToSsps sorts them; per list, its active tasks' indices.
  const names = new Set<string>();
  const usedList = new Uint8Array(listTasks.length);
  for (let r = 0; r < table.rows; r++) if (table.list[r]! >= 0) usedList[table.list[r]!] = 1;
  for (let i = 0; i < listTasks.length; i++) if (usedList[i]) for (const t of listTasks.at(i)) if (isActive(modes, t)) names.add(t);
  for (const { tasks } of extras) for (const t of tasks) if (isActive(modes, t)) names.add(t);
  const tasks = [...names].sort(byCodeUnits);
  const index = new Map(tasks.map((t, i) => [t, i] as [string, number]));
  const listActive = Array.from({ length: listTasks.length }, (_, i) =>
    usedList[i] ? Int32Array.from(listTasks.at(i).filter((t) => isActive(modes, t)), (t) => index.get(t)!) : new Int32Array(0),
  );
  // Counting sort by task: rows per task first, then each task's rows in table order, extras last.
  const start = new Int32Array(tasks.length + 1);
  for (let r = 0; r < table.rows; r++) {
    const l = table.list[r]!;
    if (l >= 0) for (const t of listActive[l]!) start[t + 1]!++;
  }
  const extraTasks = extras.map(({ tasks: ts }) => ts.filter((t) => isActive(modes, t)).map((t) => index.get(t)!));
  for (const ts of extraTasks) for (const t of ts) start[t + 1]!++;
  for (let t = 0; t < tasks.length; t++) start[t + 1]! += start[t]!;
  const n = start[tasks.length]!;
  const at = start.slice(0, tasks.length);
  const task = new Int32Array(n);
  const tableStream = new Int32Array(n).fill(-1); // table stream id, or -1 - k for extra k
  const partition = new Int32Array(n);
  const bucket = new Int32Array(n);
  let anyBucket = false;
  for (let r = 0; r < table.rows; r++) {
    const l = table.list[r]!;
    if (l < 0) continue;
    for (const t of listActive[l]!) {
      const i = at[t]!++;
      task[i] = t;
      tableStream[i] = table.stream[r]!;
      partition[i] = table.partition[r]!;
      bucket[i] = table.bucket[r]!;
      if (table.bucket[r] !== -1) anyBucket = true;
    }
  }
  extras.forEach(({ ssp: s }, k) => {
    for (const t of extraTasks[k]!) {
      const i = at[t]!++;
      task[i] = t;
      tableStream[i] = -1 - k;
      partition[i] = s.partition;
      bucket[i] = s.keyBucket;
      if (s.keyBucket !== -1) anyBucket = true;
    }
  });
  // Streams numbered by first appearance, as previousRows numbers them.
  const streams: SystemStream[] = [];
  const ids = new Map<string, number>();
  const fromTable = new Int32Array(table.streams.length).fill(-1);
  const stream = new Int32Array(n);
  const idOf = (s: SystemStream): number => {
    const key = systemStreamId(s);
    let id = ids.get(key);
    if (id === undefined) {
      ids.set(key, (id = streams.length));
      streams.push({ system: s.system, stream: s.stream });
    }
    return id;
  };
  for (let i = 0; i < n; i++) {
    const ts = tableStream[i]!;
    if (ts >= 0) {
      if (fromTable[ts] === -1) fromTable[ts] = idOf(table.streams[ts]!);
      stream[i] = fromTable[ts]!;
    } else {
      stream[i] = idOf(extras[-1 - ts]!.ssp);
    }
  }
  return { tasks, streams, task, stream, partition, bucket: anyBucket ? bucket : null };
}
