// The group as plain objects (what `assignGroup` and `assignor group` take), checked once at the
// boundary and turned into one normalized shape every strategy reads. Browser-safe: no node:,
// no client library.
import { AssignorError, describe, requireInt } from '../errors.js';
import { topicIdProblem } from './topic-id.js';
import { byCodeUnits, INT32_MAX, sameItems } from '../basics.js';

/** A topic as the metadata reports it. */
export interface GroupTopicSpec {
  name: string;
  /** Partition count, in [1, 2^31 - 1]. */
  partitions: number;
  /** One entry per partition: the racks of that partition's replicas. Optional. */
  racks?: readonly (readonly string[])[];
  /**
   * The partition count when the owned assignment was made, when it differs from `partitions`
   * (the topic grew): the sticky strategy then keeps keys with their members, and the report
   * counts the keys that moved. Optional.
   */
  previousPartitions?: number;
  /**
   * The topic's id as Kafka prints it (22 characters of URL-safe base64), for the consumer
   * protocol's `uniform`, whose answer depends on ids. Optional: derived from the name when absent.
   */
  id?: string | null;
}

/** A member of the group as the leader sees it. */
export interface GroupMemberSpec {
  id: string;
  /** Topics subscribed; topics absent from `topics` are ignored, as Kafka skips topics without metadata. */
  topics: readonly string[];
  /** `client.rack`; an empty string means none, as in Kafka. */
  rack?: string | null;
  /** `group.instance.id` of a static member: Kafka's range and round-robin order static members first, by this id. */
  instanceId?: string | null;
  /** Partitions owned now, per topic. Partitions the topic no longer has are ignored. */
  owned?: Readonly<Record<string, readonly number[]>>;
  /** Generation of the owned assignment (default 0): the newest wins a partition two members claim. */
  generation?: number;
}

export interface GroupSpec {
  topics: readonly GroupTopicSpec[];
  members: readonly GroupMemberSpec[];
}

export interface GroupTopic {
  name: string;
  partitions: number;
  /** Replica racks per partition, distinct, or null when not given. */
  racks: string[][] | null;
  /** The count before a growth (0: none). */
  previous: number;
  /** The id given in the input, checked (null: none given). */
  id: string | null;
}

export interface GroupMember {
  id: string;
  instanceId: string | null;
  /** Null when absent or empty. */
  rack: string | null;
  /** Distinct, in the order given. */
  topics: string[];
  /** Owned partitions per topic, distinct and ascending (topics as given, not yet checked against the metadata). */
  owned: OwnedPartitions;
  generation: number;
}

/**
 * The group, checked: members in member-id order (UTF-16 code units), topics by name. Every
 * strategy reads this; the assignment it returns is an owner (member index) per partition.
 */
export interface Group {
  members: GroupMember[];
  topics: Map<string, GroupTopic>;
  /** Topics subscribed by some member and present in the metadata, ascending. */
  assigned: string[];
  /** Subscribed topics the metadata does not have, ascending (ignored, as Kafka does). */
  missing: string[];
}


/**
 * The most partitions a group's subscribed topics may hold unless the caller raises it
 * (`maxPartitions`, `--max-partitions`). What binds is the output: `assignor group` prints the
 * assignment as one string, and V8's longest is 2^29 - 24 characters. A partition costs its digits
 * and a comma, so partitions 0 .. 5e7 - 1 take 438,888,890 characters, leaving ~98 million for ids,
 * topic names and the report (60,886,888 would fill it). Each strategy also keeps a few Int32Arrays
 * per partition (owners, claims, generations): 3.9-5.7 GB peak at this size, measured (docs/group.md).
 */
export const GROUP_MAX_PARTITIONS = 50_000_000;


function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function bad(message: string, path: string): never {
  throw new AssignorError('E_INPUT', message, path);
}

function requireString(v: unknown, what: string, path: string): string {
  if (typeof v !== 'string') bad(`${what} must be a string, got ${describe(v)}`, path);
  return v;
}

function requireList(v: unknown, what: string, path: string): readonly unknown[] {
  if (!Array.isArray(v)) bad(`${what} must be a list, got ${describe(v)}`, path);
  return v;
}

/** An optional string field: undefined and null are none. */
function optionalString(v: unknown, what: string, path: string): string | null {
  return v === undefined || v === null ? null : requireString(v, what, path);
}

const TOPIC_FIELDS = new Set(['name', 'partitions', 'racks', 'previousPartitions', 'id']);
const MEMBER_FIELDS = new Set(['id', 'topics', 'rack', 'instanceId', 'owned', 'generation']);

function noUnknownFields(o: Record<string, unknown>, known: Set<string>, path: string): void {
  for (const k of Object.keys(o)) if (!known.has(k)) bad(`unknown field ${describe(k)}; fields: ${[...known].join(', ')}`, `${path}.${k}`);
}

/** previousPartitions: none (absent or null), else a count in [1, partitions]: Kafka cannot remove partitions. */
function optionalCount(v: unknown, partitions: number, path: string): number {
  if (v === undefined || v === null) return 0;
  const previous = requireInt(v, 1, INT32_MAX, 'a previous partition count', path);
  if (previous > partitions) throw new AssignorError('E_RANGE', `a previous partition count must be at most the partition count ${partitions} (Kafka cannot remove partitions), got ${previous}`, path);
  return previous;
}

function readTopic(v: unknown, path: string): GroupTopic {
  if (!isRecord(v)) bad(`a topic must be an object { name, partitions, racks? }, got ${describe(v)}`, path);
  noUnknownFields(v, TOPIC_FIELDS, path);
  const name = requireString(v.name, 'a topic name', `${path}.name`);
  const partitions = requireInt(v.partitions, 1, INT32_MAX, 'a partition count', `${path}.partitions`);
  const previous = optionalCount(v.previousPartitions, partitions, `${path}.previousPartitions`);
  let racks: string[][] | null = null;
  if (v.racks !== undefined && v.racks !== null) {
    const list = requireList(v.racks, 'racks', `${path}.racks`);
    if (list.length !== partitions) bad(`racks must have one entry per partition (${partitions}), got ${list.length}`, `${path}.racks`);
    // Partitions often share one list object (a replica layout repeats): each distinct one is read once.
    const read = new Map<unknown, string[]>();
    racks = list.map((r, p) => read.get(r) ?? (read.set(r, distinctRacks(r, `${path}.racks[${p}]`)), read.get(r)!));
  }
  return { name, partitions, racks, previous: previous === partitions ? 0 : previous, id: readTopicId(v.id, `${path}.id`) };
}

/** One partition's replica racks, checked, each rack once. */
function distinctRacks(r: unknown, path: string): string[] {
  const replicas = requireList(r, 'the racks of a partition', path);
  const out: string[] = [];
  for (let i = 0; i < replicas.length; i++) out.push(requireString(replicas[i], 'a rack', `${path}[${i}]`));
  // A replica list is short: a scan finds repeats faster than a Set, which only long lists need.
  if (out.length > 16) return [...new Set(out)];
  return out.filter((rack, i) => out.indexOf(rack) === i);
}

function readTopicId(v: unknown, path: string): string | null {
  const id = optionalString(v, 'a topic id', path);
  const problem = id === null ? null : topicIdProblem(id);
  if (problem !== null) bad(`${problem}: ${describe(id)}`, path);
  return id;
}

/** Flat partitions of one member while it is read; grown as needed, copied out per member. */
let scratch = new Int32Array(1 << 16);

/**
 * Appends `list` at `at` when it holds integers in [0, 2^31 - 1], strictly ascending (what a
 * client sends); returns the new end, or -1 (nothing to trust: the caller normalizes the list).
 */
function appendAscending(list: readonly unknown[], at: number): number {
  if (at + list.length > scratch.length) growScratch(at + list.length);
  let last = -1;
  for (let i = 0; i < list.length; i++) {
    const p = list[i];
    if (typeof p !== 'number' || !Number.isInteger(p) || p <= last || p > INT32_MAX) return -1;
    scratch[at++] = p;
    last = p;
  }
  return at;
}

function growScratch(size: number): void {
  let n = scratch.length * 2;
  while (n < size) n *= 2;
  const next = new Int32Array(n);
  next.set(scratch);
  scratch = next;
}

/** A list that is not ascending and distinct, checked and normalized, appended at `at`; returns the new end. */
function appendNormalized(list: unknown, at: number, path: string): number {
  const parts = requireList(list, 'owned partitions', path).map((p, i) => requireInt(p, 0, INT32_MAX, 'an owned partition', `${path}[${i}]`));
  const sorted = [...new Set(parts)].sort((a, b) => a - b);
  if (at + sorted.length > scratch.length) growScratch(at + sorted.length);
  for (let i = 0; i < sorted.length; i++) scratch[at++] = sorted[i]!;
  return at;
}

/**
 * A member's owned partitions, flat: topic k owns partitions[start[k] .. start[k + 1]), distinct
 * and ascending. Read from the input object in one pass over its own keys, so a topic named
 * __proto__ is data (JSON.parse makes it an own property). Flat, not one list per topic: at a
 * million partitions the lists are a million small arrays scattered over the heap, and each pass
 * over them costs a cache miss per list (bench/group-strategies.ts, "one member leaves": three
 * such passes were ~40% of the step); the strategies now read two Int32Arrays.
 */
export class OwnedPartitions {
  static readonly NONE = new OwnedPartitions([], new Int32Array(1), new Int32Array(0));

  private constructor(
    readonly topics: readonly string[],
    readonly start: Int32Array,
    readonly partitions: Int32Array,
  ) {}

  get size(): number {
    return this.topics.length;
  }

  static read(v: unknown, path: string): OwnedPartitions {
    if (v === undefined || v === null) return OwnedPartitions.NONE;
    if (!isRecord(v)) bad(`owned must be an object { "<topic>": [partitions] }, got ${describe(v)}`, path);
    const topics = Object.keys(v);
    const start = new Int32Array(topics.length + 1);
    let at = 0;
    for (let k = 0; k < topics.length; k++) {
      // A keyed read per topic: cheaper than Object.values on an object of 1,000 keys (dictionary mode).
      const list = v[topics[k]!];
      const end = Array.isArray(list) ? appendAscending(list, at) : -1;
      at = end >= 0 ? end : appendNormalized(list, at, `${path}[${JSON.stringify(topics[k]!)}]`);
      start[k + 1] = at;
    }
    return new OwnedPartitions(topics, start, scratch.slice(0, at));
  }
}

/** Position of each topic in a subscription list, once per distinct list (members share lists). */
export function positionsOf(list: readonly string[], cache: Map<readonly string[], Map<string, number>>): Map<string, number> {
  let at = cache.get(list);
  if (at === undefined) {
    at = new Map(list.map((t, i) => [t, i]));
    cache.set(list, at);
  }
  return at;
}

/** The distinct topics of a subscription; `last` when they are the same list (the common case, without a Set). */
function readTopics(list: readonly unknown[], path: string, last: string[] | null): string[] {
  if (last !== null && sameItems<unknown>(list, last)) return last;
  return [...new Set(list.map((t, i) => requireString(t, 'a subscribed topic', `${path}[${i}]`)))];
}

function readMember(v: unknown, path: string, last: string[] | null): GroupMember {
  if (!isRecord(v)) bad(`a member must be an object { id, topics, rack?, instanceId?, owned?, generation? }, got ${describe(v)}`, path);
  noUnknownFields(v, MEMBER_FIELDS, path);
  const id = requireString(v.id, 'a member id', `${path}.id`);
  const topicList = requireList(v.topics, 'a subscription', `${path}.topics`);
  const topics = readTopics(topicList, `${path}.topics`, last);
  const rack = optionalString(v.rack, 'a rack', `${path}.rack`);
  const instanceId = optionalString(v.instanceId, 'an instance id', `${path}.instanceId`);
  // Kafka's JoinGroupRequest.validateGroupInstanceId refuses an empty id.
  if (instanceId === '') bad("Group instance id is illegal, it can't be empty", `${path}.instanceId`);
  const generation = v.generation === undefined || v.generation === null ? 0 : requireInt(v.generation, 0, INT32_MAX, 'a generation', `${path}.generation`);
  return { id, instanceId, rack: rack === '' ? null : rack, topics, owned: OwnedPartitions.read(v.owned, `${path}.owned`), generation };
}

/**
 * Refuses a group whose subscribed topics hold more than `limit` partitions, before any array per
 * partition exists (at 2^31 - 1 partitions the first one would take 8 GB). Names the topic where the
 * running total passes the limit; `topics` is in input order, so its index is the input's.
 */
function requireWithin(topics: Map<string, GroupTopic>, subscribed: Set<string>, limit: number): void {
  let total = 0;
  let first = -1;
  let i = 0;
  for (const t of topics.values()) {
    if (subscribed.has(t.name)) total += t.partitions;
    if (total > limit && first < 0) first = i;
    i++;
  }
  if (first < 0) return;
  throw new AssignorError('E_TOO_LARGE', `the subscribed topics hold ${total} partitions, more than the limit of ${limit} (raise it with the maxPartitions option)`, `topics[${first}].partitions`);
}

/**
 * Checks a group spec and normalizes it. Throws AssignorError: `E_INPUT` (not an object, `topics`
 * or `members` not a list, a field of the wrong type, an unknown field, a duplicate topic, member id
 * or instance id, an empty instance id, racks not one entry per partition, a topic id that is not
 * one as Kafka prints it or is given twice), `E_RANGE` (a partition count outside [1, 2^31 - 1], a
 * previous count above it, a negative or non-integer partition or generation), `E_TOO_LARGE` (the
 * subscribed topics hold more than `maxPartitions` partitions).
 */
export function readGroup(spec: unknown, maxPartitions = GROUP_MAX_PARTITIONS): Group {
  if (!isRecord(spec)) bad(`a group must be an object { topics, members }, got ${describe(spec)}`, '');
  for (const k of Object.keys(spec)) if (k !== 'topics' && k !== 'members') bad(`unknown field ${describe(k)}; fields: topics, members`, k);
  const topics = new Map<string, GroupTopic>();
  const topicIds = new Set<string>();
  requireList(spec.topics, 'topics', 'topics').forEach((t, i) => {
    const topic = readTopic(t, `topics[${i}]`);
    if (topics.has(topic.name)) bad(`duplicate topic ${describe(topic.name)}`, `topics[${i}].name`);
    if (topic.id !== null && topicIds.has(topic.id)) bad(`duplicate topic id ${describe(topic.id)}`, `topics[${i}].id`);
    if (topic.id !== null) topicIds.add(topic.id);
    topics.set(topic.name, topic);
  });
  const ids = new Set<string>();
  const instances = new Set<string>();
  // Members with the same subscription share one array: the sticky planner reads each distinct one once.
  const lists = new Map<string, string[]>();
  let last: string[] | null = null;
  const members = requireList(spec.members, 'members', 'members').map((m, i) => {
    const member = readMember(m, `members[${i}]`, last);
    if (member.topics !== last) {
      const key = JSON.stringify(member.topics);
      const shared = lists.get(key);
      if (shared === undefined) lists.set(key, member.topics);
      else member.topics = shared;
      last = member.topics;
    }
    if (ids.has(member.id)) bad(`duplicate member id ${describe(member.id)}`, `members[${i}].id`);
    ids.add(member.id);
    if (member.instanceId !== null) {
      if (instances.has(member.instanceId)) bad(`duplicate instance id ${describe(member.instanceId)}`, `members[${i}].instanceId`);
      instances.add(member.instanceId);
    }
    return member;
  });
  members.sort((a, b) => byCodeUnits(a.id, b.id));
  const subscribed = new Set<string>();
  // Every member's topics is one of the shared lists: each distinct list is read once.
  for (const list of lists.values()) for (const t of list) subscribed.add(t);
  requireWithin(topics, subscribed, maxPartitions);
  const all = [...subscribed].sort(byCodeUnits);
  return { members, topics, assigned: all.filter((t) => topics.has(t)), missing: all.filter((t) => !topics.has(t)) };
}
