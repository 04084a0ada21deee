// The normalizeCluster of commit 913ba93 (string-keyed Map interning, per-list Sets), kept
// verbatim as the reference for input-equivalence.test.ts. Test code only.
// The input model (cluster.json) and its validation. Every error names the
// place in the input (`clients[3].tags.zone`). User strings (ids, tag keys and
// values) live in Maps only, so keys like `__proto__` are ordinary data.
import { AssignorError, describe } from '../../src/errors.js';
import { formatTaskId, parseTaskId, compareTaskIds, type TaskId } from '../../src/standby/task-id.js';
import { processKey, type ProcessKey } from '../../src/standby/process-id.js';
import {
  CLIENT_TAG_PREFIX,
  NUM_STANDBY_REPLICAS_CONFIG,
  RACK_AWARE_ASSIGNMENT_TAGS_CONFIG,
  parseStreamsProperties,
  toPropertyMap,
  validateRackAwareness,
  type PropertiesLike,
} from '../../src/standby/properties.js';

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

const MAX_CAPACITY = 1 << 20;

/** Task ids from normalizeCluster carry their index in `Cluster.tasks` (-1: not stateful). */
export interface IndexedTask extends TaskId {
  index: number;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Map);
}

function stringArray(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) throw new AssignorError('E_INPUT', `${path} must be an array, got ${describe(v)}`, path);
  return v;
}

/**
 * Parses a list of task ids; equal ids share one object (`intern`), so later
 * lookups and duplicate checks go by identity, without re-printing ids as strings.
 */
function taskList(v: unknown, path: string, intern: Map<string, TaskId>): TaskId[] {
  if (v === undefined) return [];
  const list = stringArray(v, path);
  const out = new Array<TaskId>(list.length);
  const seen = new Set<TaskId>();
  for (let i = 0; i < list.length; i++) {
    const t = list[i];
    let id = typeof t === 'string' ? intern.get(t) : undefined;
    if (id === undefined) {
      let parsed: TaskId;
      try {
        parsed = parseTaskId(t, path);
      } catch (e) {
        // The element's path is built only when it is needed.
        throw e instanceof AssignorError ? new AssignorError(e.code, e.message, `${path}[${i}]`) : e;
      }
      // `index` (the task's position among the sorted stateful tasks, -1 for none) is set once sorted.
      id = { subtopology: parsed.subtopology, partition: parsed.partition, index: -1 } as TaskId;
      const printed = formatTaskId(id);
      if (t !== printed) {
        // e.g. "01_2" names 1_2, which may be known already.
        id = intern.get(printed) ?? id;
        intern.set(t as string, id);
      }
      intern.set(printed, id);
    }
    if (seen.has(id)) throw new AssignorError('E_INPUT', `task ${formatTaskId(id)} is listed twice`, `${path}[${i}]`);
    seen.add(id);
    out[i] = id;
  }
  return out;
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

/** Validates a cluster description and puts it in canonical order. */
export function normalizeCluster(spec: unknown): Cluster {
  if (!isRecord(spec)) throw new AssignorError('E_INPUT', `the input must be an object with "clients", got ${describe(spec)}`, '$');
  knownFields(spec, TOP_FIELDS, 'the input', '');
  const shared = spec.properties === undefined ? new Map<string, unknown>() : toPropertyMap(checkProps(spec.properties, 'properties'));
  let config: ReturnType<typeof parseStreamsProperties>;
  try {
    config = parseStreamsProperties(shared, { checkConfiguredTags: false });
  } catch (e) {
    // "At most 5 client tags" is about the whole set (path client.tag.); the rest name one property.
    throw e instanceof AssignorError ? new AssignorError(e.code, e.message, e.path === CLIENT_TAG_PREFIX ? 'properties' : `properties[${JSON.stringify(e.path)}]`) : e;
  }

  const numStandbys = pickSetting(spec.numStandbys, shared.has(NUM_STANDBY_REPLICAS_CONFIG), config.numStandbyReplicas, 'numStandbys', NUM_STANDBY_REPLICAS_CONFIG, (v, p) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 2147483647) {
      throw new AssignorError('E_INPUT', `numStandbys must be an integer >= 0, got ${describe(v)}`, p);
    }
    return v;
  });
  const tagKeys = pickSetting(spec.tagKeys, shared.has(RACK_AWARE_ASSIGNMENT_TAGS_CONFIG), config.rackAwareAssignmentTags, 'tagKeys', RACK_AWARE_ASSIGNMENT_TAGS_CONFIG, (v, p) => {
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

  const intern = new Map<string, TaskId>();
  const rawClients = stringArray(spec.clients, 'clients');
  const byId = new Map<string, number>();
  const activeOwner = new Map<TaskId, string>();
  const mentioned = new Set<TaskId>();
  const clients: Client[] = rawClients.map((raw, i) => {
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
    const active = taskList(raw.active, `${path}.active`, intern);
    const standby = taskList(raw.standby, `${path}.standby`, intern);
    // Task ids are interned, so these checks compare objects.
    for (let j = 0; j < active.length; j++) {
      const t = active[j]!;
      const other = activeOwner.get(t);
      if (other !== undefined) throw new AssignorError('E_INPUT', `task ${formatTaskId(t)} is active on two clients (${JSON.stringify(other)} and ${JSON.stringify(id)})`, `${path}.active[${j}]`);
      activeOwner.set(t, id);
    }
    for (let j = 0; j < standby.length; j++) {
      const t = standby[j]!;
      if (activeOwner.get(t) === id) throw new AssignorError('E_INPUT', `client ${JSON.stringify(id)} holds ${formatTaskId(t)} both as active and as standby`, `${path}.standby[${j}]`);
    }
    // A loop, not add(...list): spreading a list of 100,000+ tasks overflows the call stack.
    if (spec.tasks === undefined) {
      for (const t of active) mentioned.add(t);
      for (const t of standby) mentioned.add(t);
    }
    return { id, key, tags, capacity, active, standby, inputIndex: i };
  });

  let tasks: TaskId[];
  if (spec.tasks !== undefined) {
    tasks = taskList(spec.tasks, 'tasks', intern);
  } else {
    tasks = [...mentioned];
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

const normalized = new WeakSet<object>();

/** True for a Cluster that came out of normalizeCluster (so it is not validated twice). */
export function isNormalized(x: unknown): x is Cluster {
  return typeof x === 'object' && x !== null && normalized.has(x);
}

function sortClients(clients: Client[]): Client[] {
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

/** A setting given directly (numStandbys) or as a Streams property, not both. */
function pickSetting<T>(direct: unknown, viaProps: boolean, fromProps: T, name: string, prop: string, check: (v: unknown, path: string) => T): T {
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
