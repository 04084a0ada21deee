// The input model (cluster.json) and its validation. Every error names the
// place in the input (`clients[3].tags.zone`). User strings (ids, tag keys and
// values) live in Maps only, so keys like `__proto__` are ordinary data.
import { AssignorError, describe } from '../errors.js';
import { formatTaskId, parseTaskId, scanTaskId, scanned, compareTaskIds, type TaskId } from './task-id.js';
import { processKey, type ProcessKey } from './process-id.js';
import { INT32_MAX } from '../basics.js';
import {
  CLIENT_TAG_PREFIX,
  NUM_STANDBY_REPLICAS_CONFIG,
  RACK_AWARE_ASSIGNMENT_TAGS_CONFIG,
  parseStreamsProperties,
  toPropertyMap,
  validateRackAwareness,
  type PropertiesLike,
} from './properties.js';

/** One client as callers may write it (the JSON shape of cluster.json). */
export interface ClientSpec {
  id: string;
  /** Tag key -> value; or give `properties` with client.tag.<key> entries. */
  tags?: Record<string, string> | Map<string, string>;
  /** This instance's Streams properties (client.tag.*, ...), merged over the shared ones. */
  properties?: PropertiesLike;
  /** Stream threads; load = (active + standby) / capacity. Default 1. */
  capacity?: number;
  active?: string[];
  /** Standbys the client already holds; kept, and counted in its load. */
  standby?: string[];
}

export interface ClusterSpec {
  clients: ClientSpec[];
  /** Stateful tasks (the ones that get standbys). Default: every task named in active/standby lists. */
  tasks?: string[];
  numStandbys?: number;
  /** Tag keys in precedence order (rack.aware.assignment.tags). */
  tagKeys?: string[];
  /** Shared Streams properties: num.standby.replicas, rack.aware.assignment.tags, client.tag.* defaults. */
  properties?: PropertiesLike;
}

export interface Client {
  readonly id: string;
  readonly key: ProcessKey;
  readonly tags: Map<string, string>;
  readonly capacity: number;
  readonly active: TaskId[];
  readonly standby: TaskId[];
  /** Position in the input (for error paths and reports). */
  readonly inputIndex: number;
}

export interface Cluster {
  /** Clients in ProcessId order (signed-UUID order, then plain strings). */
  readonly clients: Client[];
  /** Stateful tasks in TaskId order. */
  readonly tasks: TaskId[];
  readonly numStandbys: number;
  readonly tagKeys: string[];
}

/** The most stream threads a client may declare. */
const MAX_CAPACITY = 1 << 20;

/** Task ids from normalizeCluster carry their index in `Cluster.tasks` (-1: not stateful). */
export interface IndexedTask extends TaskId {
  index: number;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Map);
}

function stringArray(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) throw new AssignorError('E_INPUT', `${path} must be an array, got ${describe(v)}`, path);
  return v;
}

/** `name[0]` (an element of a list property) -> `properties["name"][0]`. */
function propertyPath(path: string | undefined): string {
  const m = /^(.*?)((?:\[\d+\])*)$/.exec(path ?? '')!;
  return `properties[${JSON.stringify(m[1])}]${m[2]}`;
}

/**
 * Interned task ids, numbered in order of first appearance. Lookup goes by the
 * numbers (subtopology, partition) in an open-addressing table, so "01_2" and
 * "1_2" are one task and no string is re-printed or kept as a key. Per-task
 * bookkeeping (duplicate checks, active owner) lives in typed arrays instead of
 * Maps and Sets keyed by objects. A slot holds [subtopology, partition, number + 1,
 * stamp] side by side, so a lookup reads one cache line; the hash keeps runs of 64
 * consecutive partitions in consecutive slots (lists in partition order then walk
 * the table instead of jumping) and scatters the runs.
 */
class TaskInterner {
  readonly ids: TaskId[] = [];
  /** 1 + input index of the client holding the task as active; 0: none. Indexed by task number. */
  owner: Int32Array<ArrayBuffer>;
  /** Slots of 4 ints: subtopology, partition, task number + 1 (0: empty), serial of the last list that named the task. */
  table: Int32Array<ArrayBuffer>;
  private mask: number;
  serial = 0;

  /** `expected`: a guess at the number of distinct tasks, so the table rarely grows. */
  constructor(expected: number) {
    let size = 2048;
    while (size < 2 * expected && size < 1 << 24) size *= 2;
    this.mask = size - 1;
    this.table = new Int32Array(4 * size);
    this.owner = new Int32Array(size >>> 1);
  }

  private static slot(s: number, p: number, mask: number): number {
    let h = Math.imul(s, 0x9e3779b1) ^ (p >>> 6);
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return (((h ^ (h >>> 16)) << 6) | (p & 63)) & mask;
  }

  /** The slot of (s, p) times 4, interning the task if it is new. Read `table` again afterwards: it may have grown. */
  intern(s: number, p: number): number {
    const table = this.table;
    const mask = this.mask;
    let h = TaskInterner.slot(s, p, mask);
    for (;;) {
      const at = h << 2;
      if (table[at + 2] === 0) break;
      if (table[at] === s && table[at + 1] === p) return at;
      h = (h + 1) & mask;
    }
    const k = this.ids.length;
    // `index` (the task's position among the sorted stateful tasks, -1 for none) is set once sorted.
    this.ids.push({ subtopology: s, partition: p, index: -1 } as TaskId);
    if (k === this.owner.length) {
      const owner = new Int32Array(k * 2);
      owner.set(this.owner);
      this.owner = owner;
    }
    const at = h << 2;
    table[at] = s;
    table[at + 1] = p;
    table[at + 2] = k + 1;
    if ((k + 1) * 2 > mask) return this.grow(s, p);
    return at;
  }

  private grow(s: number, p: number): number {
    const old = this.table;
    const size = (this.mask + 1) * 2;
    const mask = size - 1;
    const table = new Int32Array(4 * size);
    let found = -1;
    for (let from = 0; from < old.length; from += 4) {
      if (old[from + 2] === 0) continue;
      let h = TaskInterner.slot(old[from]!, old[from + 1]!, mask);
      while (table[(h << 2) + 2] !== 0) h = (h + 1) & mask;
      const at = h << 2;
      table[at] = old[from]!;
      table[at + 1] = old[from + 1]!;
      table[at + 2] = old[from + 2]!;
      table[at + 3] = old[from + 3]!;
      if (old[from] === s && old[from + 1] === p) found = at;
    }
    this.table = table;
    this.mask = mask;
    return found;
  }
}

/**
 * Parses a list of task ids into interned task numbers; equal ids (also "01_2"
 * and "1_2") share one TaskId object, so later checks go by number.
 */
function taskList(v: unknown, path: string, tt: TaskInterner): { ids: TaskId[]; nums: Int32Array } {
  if (v === undefined) return { ids: [], nums: new Int32Array(0) };
  const list = stringArray(v, path);
  const n = list.length;
  const out: TaskId[] = [];
  const nums = new Int32Array(n);
  const serial = ++tt.serial;
  for (let i = 0; i < n; i++) {
    const t = list[i];
    let s: number;
    let p: number;
    if (typeof t === 'string' && scanTaskId(t)) {
      s = scanned.subtopology;
      p = scanned.partition;
    } else {
      let parsed: TaskId;
      try {
        parsed = parseTaskId(t, path);
      } catch (e) {
        // The element's path is built only when it is needed.
        throw e instanceof AssignorError ? new AssignorError(e.code, e.message, `${path}[${i}]`) : e;
      }
      s = parsed.subtopology;
      p = parsed.partition;
    }
    const at = tt.intern(s, p);
    const table = tt.table;
    const k = table[at + 2]! - 1;
    const id = tt.ids[k]!;
    if (table[at + 3] === serial) throw new AssignorError('E_INPUT', `task ${formatTaskId(id)} is listed twice`, `${path}[${i}]`);
    table[at + 3] = serial;
    out.push(id);
    nums[i] = k;
  }
  return { ids: out, nums };
}

function entriesOf(v: unknown, path: string): [string, unknown][] {
  if (v instanceof Map) return [...v.entries()].map(([k, x]) => [String(k), x]);
  if (isRecord(v)) return Object.entries(v);
  throw new AssignorError('E_INPUT', `${path} must be an object, got ${describe(v)}`, path);
}

const TOP_FIELDS = ['clients', 'tasks', 'numStandbys', 'tagKeys', 'properties'];
const CLIENT_FIELDS = ['id', 'tags', 'properties', 'capacity', 'active', 'standby'];

/** A misspelt field ("actives", "numStandby") would otherwise be ignored and silently change the answer. */
function knownFields(v: Record<string, unknown>, fields: readonly string[], where: string, prefix: string): void {
  for (const k of Object.keys(v)) {
    if (!fields.includes(k)) throw new AssignorError('E_INPUT', `unknown field ${JSON.stringify(k)} in ${where}: expected ${fields.join(', ')}`, `${prefix}${k}`);
  }
}

/** The input's shared settings, checked: Streams properties, numStandbys, tagKeys. */
export function readSettings(spec: unknown): { spec: Record<string, unknown>; shared: Map<string, unknown>; numStandbys: number; tagKeys: string[] } {
  if (!isRecord(spec)) throw new AssignorError('E_INPUT', `the input must be an object with "clients", got ${describe(spec)}`, '$');
  knownFields(spec, TOP_FIELDS, 'the input', '');
  const shared = spec.properties === undefined ? new Map<string, unknown>() : toPropertyMap(checkProps(spec.properties, 'properties'));
  let config: ReturnType<typeof parseStreamsProperties>;
  try {
    config = parseStreamsProperties(shared, { checkConfiguredTags: false });
  } catch (e) {
    // "At most 5 client tags" is about the whole set (path client.tag.); the rest name one property.
    throw e instanceof AssignorError ? new AssignorError(e.code, e.message, e.path === CLIENT_TAG_PREFIX ? 'properties' : propertyPath(e.path)) : e;
  }

  const numStandbys = pickSetting({ direct: spec.numStandbys, name: 'numStandbys', prop: NUM_STANDBY_REPLICAS_CONFIG, viaProps: shared.has(NUM_STANDBY_REPLICAS_CONFIG), fromProps: config.numStandbyReplicas }, (v, p) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > INT32_MAX) {
      throw new AssignorError('E_INPUT', `numStandbys must be an integer >= 0, got ${describe(v)}`, p);
    }
    return v;
  });
  const tagKeys = pickSetting({ direct: spec.tagKeys, name: 'tagKeys', prop: RACK_AWARE_ASSIGNMENT_TAGS_CONFIG, viaProps: shared.has(RACK_AWARE_ASSIGNMENT_TAGS_CONFIG), fromProps: config.rackAwareAssignmentTags }, (v, p) => {
    const keys = stringArray(v, p).map((k, i) => {
      if (typeof k !== 'string') throw new AssignorError('E_INPUT', `${p}[${i}] must be a string, got ${describe(k)}`, `${p}[${i}]`);
      return k;
    });
    // Same limit and text as the LIST validator of rack.aware.assignment.tags.
    if (keys.length > 5) {
      throw new AssignorError('E_CONFIG', `Invalid value [${keys.join(', ')}] for configuration ${RACK_AWARE_ASSIGNMENT_TAGS_CONFIG}: exceeds maximum list size of [5].`, p);
    }
    return keys;
  });
  if (new Set(tagKeys).size !== tagKeys.length) throw new AssignorError('E_INPUT', `tag keys must be distinct, got [${tagKeys.join(', ')}]`, 'tagKeys');

  return { spec, shared, numStandbys, tagKeys };
}

/** The object path: a TaskId object per list entry, every error reported where it is first met (normalize.ts; exported for tests). */
export function normalizeObjects(input: unknown): Cluster {
  const { spec, shared, numStandbys, tagKeys } = readSettings(input);
  const rawClients = stringArray(spec.clients, 'clients');
  const tt = new TaskInterner(expectedTasks(spec.tasks, rawClients));
  const byId = new Map<string, number>();
  const clientIds: string[] = [];
  const clients: Client[] = rawClients.map((item, i) => {
    const path = `clients[${i}]`;
    const { raw, id, key, tags, capacity } = readClient(item, i, shared, tagKeys, byId);
    clientIds.push(id);
    const active = taskList(raw.active, `${path}.active`, tt);
    const standby = taskList(raw.standby, `${path}.standby`, tt);
    // Task ids are interned, so these checks go by task number.
    const owner = tt.owner;
    for (let j = 0; j < active.nums.length; j++) {
      const k = active.nums[j]!;
      const other = owner[k]!;
      if (other !== 0) throw new AssignorError('E_INPUT', `task ${formatTaskId(active.ids[j]!)} is active on two clients (${JSON.stringify(clientIds[other - 1])} and ${JSON.stringify(id)})`, `${path}.active[${j}]`);
      owner[k] = i + 1;
    }
    for (let j = 0; j < standby.nums.length; j++) {
      if (owner[standby.nums[j]!] === i + 1) throw new AssignorError('E_INPUT', `client ${JSON.stringify(id)} holds ${formatTaskId(standby.ids[j]!)} both as active and as standby`, `${path}.standby[${j}]`);
    }
    return { id, key, tags, capacity, active: active.ids, standby: standby.ids, inputIndex: i };
  });

  let tasks: TaskId[];
  if (spec.tasks !== undefined) {
    tasks = taskList(spec.tasks, 'tasks', tt).ids;
  } else {
    // Every task interned so far was named in some client's active or standby list.
    tasks = tt.ids.slice();
  }
  tasks.sort(compareTaskIds);
  tasks.forEach((t, i) => ((t as IndexedTask).index = i));
  // Only stateful tasks have standbys: one outside `tasks` would count in the load but be
  // ignored everywhere else.
  for (const c of clients) {
    c.standby.forEach((t, j) => {
      if ((t as IndexedTask).index < 0) {
        throw new AssignorError('E_INPUT', `client ${JSON.stringify(c.id)} holds a standby of ${formatTaskId(t)}, which is not in tasks (only stateful tasks have standbys)`, `clients[${c.inputIndex}].standby[${j}]`);
      }
    });
  }
  const out: Cluster = { clients: sortClients(clients), tasks, numStandbys, tagKeys };
  normalized.add(out);
  return out;
}

/** A client's own fields (id, tags, capacity), checked; its task lists are read by the caller. */
export function readClient(raw: unknown, i: number, shared: Map<string, unknown>, tagKeys: string[], byId: Map<string, number>): { raw: Record<string, unknown>; id: string; key: ProcessKey; tags: Map<string, string>; capacity: number } {
  const path = `clients[${i}]`;
  if (!isRecord(raw)) throw new AssignorError('E_INPUT', `${path} must be an object, got ${describe(raw)}`, path);
  knownFields(raw, CLIENT_FIELDS, path, `${path}.`);
  const id = raw.id;
  if (typeof id !== 'string' || id === '') throw new AssignorError('E_INPUT', `${path}.id must be a non-empty string, got ${describe(id)}`, `${path}.id`);
  const key = processKey(id);
  if (byId.has(key.canonical)) throw new AssignorError('E_INPUT', `client id ${JSON.stringify(id)} is used twice (clients[${byId.get(key.canonical)}] and ${path})`, `${path}.id`);
  byId.set(key.canonical, i);
  const tags = clientTags(raw, shared, tagKeys, path);
  const capacity = raw.capacity === undefined ? 1 : raw.capacity;
  if (typeof capacity !== 'number' || !Number.isInteger(capacity) || capacity < 1 || capacity > MAX_CAPACITY) {
    throw new AssignorError('E_INPUT', `${path}.capacity must be an integer in [1, ${MAX_CAPACITY}] (stream threads), got ${describe(capacity)}`, `${path}.capacity`);
  }
  return { raw, id, key, tags, capacity };
}

/** The task table's size hint: the length of `tasks`, else of all clients' lists. Reads only; validation comes later. */
function expectedTasks(tasks: unknown, rawClients: unknown[]): number {
  if (Array.isArray(tasks)) return tasks.length;
  let n = 0;
  for (const raw of rawClients) {
    if (!isRecord(raw)) continue;
    if (Array.isArray(raw.active)) n += raw.active.length;
    if (Array.isArray(raw.standby)) n += raw.standby.length;
  }
  return n;
}

const normalized = new WeakSet<object>();

/** Records a cluster built by normalizeCluster (either path), so it is not validated twice. */
export function markNormalized(cluster: Cluster): Cluster {
  normalized.add(cluster);
  return cluster;
}

/** True for a Cluster that came out of normalizeCluster (so it is not validated twice). */
export function isNormalized(x: unknown): x is Cluster {
  return typeof x === 'object' && x !== null && normalized.has(x);
}

export function sortClients(clients: Client[]): Client[] {
  // ProcessId order; the comparator is total because ids are distinct.
  return [...clients].sort((a, b) => {
    const ak = a.key;
    const bk = b.key;
    if (ak.msb !== null && bk.msb !== null) {
      if (ak.msb !== bk.msb) return ak.msb < bk.msb ? -1 : 1;
      return ak.lsb! < bk.lsb! ? -1 : ak.lsb! > bk.lsb! ? 1 : 0;
    }
    if (ak.msb !== null) return -1;
    if (bk.msb !== null) return 1;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}

function checkProps(v: unknown, path: string): PropertiesLike {
  if (typeof v === 'string' || v instanceof Map || isRecord(v)) return v as PropertiesLike;
  throw new AssignorError('E_INPUT', `${path} must be an object of Streams properties, got ${describe(v)}`, path);
}

/** A setting given directly (`direct`, at `name`) or as the Streams property `prop` (`viaProps`: it was given; `fromProps`: its value or default), not both. */
interface Setting<T> {
  direct: unknown;
  name: string;
  prop: string;
  viaProps: boolean;
  fromProps: T;
}

function pickSetting<T>({ direct, name, prop, viaProps, fromProps }: Setting<T>, check: (v: unknown, path: string) => T): T {
  if (direct !== undefined && viaProps) {
    throw new AssignorError('E_INPUT', `give ${name} or properties["${prop}"], not both`, name);
  }
  return direct !== undefined ? check(direct, name) : fromProps;
}

/**
 * A client's tags: from `tags`, or from client.tag.* in its own properties
 * merged over the shared ones. Kafka's checks run with Kafka's texts; the
 * "configured key must exist" check runs only on the properties form, because
 * it is each instance's own start-up check, and the leader accepts whatever
 * tags other instances send (a missing key is then a wildcard in kafka mode).
 */
function clientTags(raw: Record<string, unknown>, shared: Map<string, unknown>, tagKeys: string[], path: string): Map<string, string> {
  if (raw.tags !== undefined && raw.properties !== undefined) {
    throw new AssignorError('E_INPUT', `${path}: give tags or properties, not both`, path);
  }
  if (raw.tags !== undefined) {
    const tags = new Map<string, string>();
    for (const [k, v] of entriesOf(raw.tags, `${path}.tags`)) {
      if (typeof v !== 'string') throw new AssignorError('E_INPUT', `${path}.tags.${k} must be a string, got ${describe(v)}`, `${path}.tags.${k}`);
      tags.set(k, v);
    }
    try {
      validateRackAwareness(tags, tagKeys, false);
    } catch (e) {
      if (!(e instanceof AssignorError)) throw e;
      // validateRackAwareness names the offending tag as client.tag.<key>.
      const key = e.path !== undefined && e.path.startsWith(CLIENT_TAG_PREFIX) && e.path !== CLIENT_TAG_PREFIX ? e.path.slice(CLIENT_TAG_PREFIX.length) : undefined;
      throw new AssignorError(e.code, e.message, key !== undefined ? `${path}.tags.${key}` : `${path}.tags`);
    }
    return tags;
  }
  const merged = new Map(shared);
  if (raw.properties !== undefined) for (const [k, v] of toPropertyMap(checkProps(raw.properties, `${path}.properties`))) merged.set(k, v);
  // Only the tags matter per client; the shared settings were read above.
  merged.delete(NUM_STANDBY_REPLICAS_CONFIG);
  merged.set(RACK_AWARE_ASSIGNMENT_TAGS_CONFIG, tagKeys);
  const hasProps = raw.properties !== undefined || [...shared.keys()].some((k) => k.startsWith(CLIENT_TAG_PREFIX));
  if (!hasProps) return new Map();
  try {
    return parseStreamsProperties(merged).clientTags;
  } catch (e) {
    throw e instanceof AssignorError ? new AssignorError(e.code, e.message, `${path}.properties`) : e;
  }
}
