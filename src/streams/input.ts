// A Kafka Streams group (KIP-1071) as plain objects, what `assignStreams` and `assignor streams`
// take: checked once at the boundary and put in canonical order, so the answer depends on the
// group only, never on the order of lists in the input. Browser-safe.
import { describe, fail, requireInt } from '../errors.js';
import { byCodeUnits, INT32_MAX } from '../basics.js';
import { compareProcessKeys, processKey } from '../standby/process-id.js';

export interface StreamsSubtopologySpec {
  /** The subtopology id as the topology names it ("0", "1", ...). */
  id: string;
  /** Its task count: the most partitions among its input topics. */
  partitions: number;
  /** Whether it has state stores (only stateful tasks get standbys). Default false. */
  stateful?: boolean;
}

export interface StreamsMemberSpec {
  id: string;
  /** Tasks it runs as active now, `<subtopology>_<partition>`. */
  active?: readonly string[];
  /** Standby tasks it holds now. */
  standby?: readonly string[];
  /** Offset sums it reports per task (the state it has on disk), task id -> integer. */
  offsets?: Readonly<Record<string, number>>;
}

export interface StreamsProcessSpec {
  /** The process id (a UUID, as Streams makes them, or any non-empty string). */
  id: string;
  /** Client tags (`client.tag.<key>`), key -> value. */
  tags?: Readonly<Record<string, string>>;
  /** Its members (stream threads), at least one. */
  members: readonly StreamsMemberSpec[];
}

export interface StreamsGroupSpec {
  subtopologies: readonly StreamsSubtopologySpec[];
  processes: readonly StreamsProcessSpec[];
  /** `num.standby.replicas`. Default 0. */
  numStandbys?: number;
  /** `rack.aware.assignment.tags`, in precedence order, at most 5. Default none. */
  tagKeys?: readonly string[];
}

export interface StreamsSubtopology {
  id: string;
  partitions: number;
  stateful: boolean;
  /** Index of its task 0 in the flat task list. */
  firstTask: number;
  /** The subtopology number the standby engine sees: the id itself when every id is a number, else this one's rank. */
  engineId: number;
}

export interface StreamsMember {
  id: string;
  process: number;
  /** Flat task indices, ascending, distinct; tasks the topology no longer has are left out. */
  active: number[];
  standby: number[];
  /** Task index -> offset sum. */
  offsets: Map<number, bigint>;
}

export interface StreamsProcess {
  id: string;
  tags: Map<string, string>;
  /** Its members are members[firstMember .. firstMember + size). */
  firstMember: number;
  size: number;
}

export interface StreamsGroup {
  /** Subtopologies in task order: numerically when every id is a number, else by code units. */
  subtopologies: StreamsSubtopology[];
  /** Task count, stateless ones included. */
  tasks: number;
  /** Processes in ProcessId order (as Kafka Streams orders clients). */
  processes: StreamsProcess[];
  /** Members grouped by process, each process's by id. */
  members: StreamsMember[];
  numStandbys: number;
  tagKeys: string[];
  /** Task ids in the members' lists that name no task of the topology (ignored, as the broker does). */
  stale: number;
}

const NUMBER = /^(0|[1-9][0-9]{0,9})$/;

function record(v: unknown, path: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail('E_INPUT', `${path} must be an object, got ${describe(v)}`, path);
  return v as Record<string, unknown>;
}

function list(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) fail('E_INPUT', `${path} must be an array, got ${describe(v)}`, path);
  return v;
}

function text(v: unknown, path: string): string {
  if (typeof v !== 'string' || v === '') fail('E_INPUT', `${path} must be a non-empty string, got ${describe(v)}`, path);
  return v;
}

function onlyFields(o: Record<string, unknown>, allowed: readonly string[], path: string): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) fail('E_INPUT', `unknown field ${describe(k)} in ${path === '' ? 'the group' : path}; fields: ${allowed.join(', ')}`, path === '' ? k : `${path}.${k}`);
  }
}

/** Checks a streams group and puts it in canonical order. */
export function readStreamsGroup(input: unknown): StreamsGroup {
  const g = record(input, 'group');
  onlyFields(g, ['subtopologies', 'processes', 'numStandbys', 'tagKeys'], '');
  const numStandbys = g.numStandbys === undefined ? 0 : requireInt(g.numStandbys, 0, INT32_MAX, 'numStandbys', 'numStandbys');
  const tagKeys = readTagKeys(g.tagKeys);
  const subtopologies = readSubtopologies(list(g.subtopologies, 'subtopologies'));
  const last = subtopologies[subtopologies.length - 1];
  const tasks = last === undefined ? 0 : last.firstTask + last.partitions;
  if (tasks > INT32_MAX) fail('E_TOO_LARGE', `the topology has ${tasks} tasks, more than 2^31 - 1`, 'subtopologies');
  const group: StreamsGroup = { subtopologies, tasks, processes: [], members: [], numStandbys, tagKeys, stale: 0 };
  readProcesses(group, list(g.processes, 'processes'));
  return group;
}

function readTagKeys(v: unknown): string[] {
  if (v === undefined) return [];
  const keys = list(v, 'tagKeys').map((k, i) => text(k, `tagKeys[${i}]`));
  if (keys.length > 5) fail('E_INPUT', `tagKeys has ${keys.length} keys; Kafka allows at most 5`, 'tagKeys');
  keys.forEach((k, i) => keys.indexOf(k) !== i && fail('E_INPUT', `tag key ${describe(k)} is listed twice`, `tagKeys[${i}]`));
  return keys;
}

function readSubtopologies(items: unknown[]): StreamsSubtopology[] {
  const subs = items.map((v, i) => {
    const path = `subtopologies[${i}]`;
    const o = record(v, path);
    onlyFields(o, ['id', 'partitions', 'stateful'], path);
    const stateful = o.stateful ?? false;
    if (typeof stateful !== 'boolean') fail('E_INPUT', `${path}.stateful must be true or false, got ${describe(stateful)}`, `${path}.stateful`);
    return { id: text(o.id, `${path}.id`), partitions: requireInt(o.partitions, 1, INT32_MAX, 'partitions', `${path}.partitions`), stateful, firstTask: 0, engineId: 0, at: i };
  });
  const numeric = subs.every((s) => NUMBER.test(s.id) && Number(s.id) <= INT32_MAX);
  subs.sort((a, b) => (numeric ? Number(a.id) - Number(b.id) : byCodeUnits(a.id, b.id)));
  let first = 0;
  return subs.map((s, rank) => {
    if (rank > 0 && subs[rank - 1]!.id === s.id) fail('E_INPUT', `subtopology ${describe(s.id)} is listed twice`, `subtopologies[${s.at}].id`);
    const out = { id: s.id, partitions: s.partitions, stateful: s.stateful, firstTask: first, engineId: numeric ? Number(s.id) : rank };
    first += s.partitions;
    return out;
  });
}

function readProcesses(group: StreamsGroup, items: unknown[]): void {
  const read = items.map((v, i) => {
    const path = `processes[${i}]`;
    const o = record(v, path);
    onlyFields(o, ['id', 'tags', 'members'], path);
    const id = text(o.id, `${path}.id`);
    const members = list(o.members, `${path}.members`);
    if (members.length === 0) fail('E_INPUT', `process ${describe(id)} has no members; a process runs tasks on its members`, `${path}.members`);
    return { id, key: processKey(id), tags: readTags(o.tags, `${path}.tags`), members, path };
  });
  read.sort((a, b) => compareProcessKeys(a.key, b.key));
  const byTask = taskLookup(group);
  const memberIds = new Set<string>();
  read.forEach((p, q) => {
    if (q > 0 && read[q - 1]!.key.canonical === p.key.canonical) fail('E_INPUT', `process ${describe(p.id)} is listed twice`, `${p.path}.id`);
    const members = p.members.map((m, i) => readMember(m, `${p.path}.members[${i}]`, q, byTask, group));
    members.sort((a, b) => byCodeUnits(a.id, b.id));
    for (const m of members) {
      if (memberIds.has(m.id)) fail('E_INPUT', `member ${describe(m.id)} is listed twice`, p.path);
      memberIds.add(m.id);
    }
    group.processes.push({ id: p.id, tags: p.tags, firstMember: group.members.length, size: members.length });
    group.members.push(...members);
  });
}

function readTags(v: unknown, path: string): Map<string, string> {
  const tags = new Map<string, string>();
  if (v === undefined) return tags;
  for (const [k, value] of Object.entries(record(v, path))) {
    if (typeof value !== 'string') fail('E_INPUT', `tag ${describe(k)} must be a string, got ${describe(value)}`, `${path}.${k}`);
    tags.set(k, value);
  }
  return tags;
}

/** Task id text -> flat task index: -1 for a task the topology lacks; throws on malformed text. */
type TaskLookup = (id: unknown, path: string) => number;

function taskLookup(group: StreamsGroup): TaskLookup {
  const byId = new Map(group.subtopologies.map((s) => [s.id, s]));
  return (v, path) => {
    const id = text(v, path);
    const cut = id.lastIndexOf('_');
    const partition = id.slice(cut + 1);
    if (cut <= 0 || !NUMBER.test(partition)) fail('E_TASK_ID', `task id ${describe(id)} is not <subtopology>_<partition>`, path);
    const s = byId.get(id.slice(0, cut));
    const p = Number(partition);
    return s === undefined || p >= s.partitions ? -1 : s.firstTask + p;
  };
}

function readMember(v: unknown, path: string, process: number, task: TaskLookup, group: StreamsGroup): StreamsMember {
  const o = record(v, path);
  onlyFields(o, ['id', 'active', 'standby', 'offsets'], path);
  const tasks = (field: 'active' | 'standby'): number[] => {
    if (o[field] === undefined) return [];
    const found = list(o[field], `${path}.${field}`).map((t, i) => task(t, `${path}.${field}[${i}]`));
    group.stale += found.filter((t) => t < 0).length;
    return [...new Set(found.filter((t) => t >= 0))].sort((a, b) => a - b);
  };
  const offsets = new Map<number, bigint>();
  if (o.offsets !== undefined) {
    for (const [k, value] of Object.entries(record(o.offsets, `${path}.offsets`))) {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) fail('E_INPUT', `offset sum must be an integer, got ${describe(value)}`, `${path}.offsets[${JSON.stringify(k)}]`);
      const t = task(k, `${path}.offsets`);
      if (t >= 0) offsets.set(t, BigInt(value));
    }
  }
  return { id: text(o.id, `${path}.id`), process, active: tasks('active'), standby: tasks('standby'), offsets };
}

/** Per process (P + 1): its members are processStart[q] .. processStart[q+1]). */
export function processStarts(group: StreamsGroup): Int32Array {
  const out = new Int32Array(group.processes.length + 1);
  group.processes.forEach((p, q) => (out[q + 1] = p.firstMember + p.size));
  return out;
}

/** `<subtopology>_<partition>` of flat task t. */
export function taskName(group: StreamsGroup, t: number): string {
  const s = subtopologyOf(group, t);
  return `${s.id}_${t - s.firstTask}`;
}

/** The subtopology flat task t belongs to (binary search over firstTask). */
export function subtopologyOf(group: StreamsGroup, t: number): StreamsSubtopology {
  const subs = group.subtopologies;
  let lo = 0;
  let hi = subs.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (subs[mid]!.firstTask <= t) lo = mid;
    else hi = mid - 1;
  }
  if (subs[lo] === undefined) throw new Error(`streams: task ${t} is outside the topology (a bug)`);
  return subs[lo]!;
}
