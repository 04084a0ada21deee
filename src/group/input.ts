// The group as plain objects (what `assignGroup` and `assignor group` take), checked once at the
// boundary and turned into one normalized shape every strategy reads. Browser-safe: no node:,
// no client library.
import { AssignorError, describe, requireInt } from '../errors.js';

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

const MAX_PARTITIONS = 2147483647;

export const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

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

const TOPIC_FIELDS = new Set(['name', 'partitions', 'racks', 'previousPartitions']);
const MEMBER_FIELDS = new Set(['id', 'topics', 'rack', 'instanceId', 'owned', 'generation']);

function noUnknownFields(o: Record<string, unknown>, known: Set<string>, path: string): void {
  for (const k of Object.keys(o)) if (!known.has(k)) bad(`unknown field ${describe(k)}; fields: ${[...known].join(', ')}`, `${path}.${k}`);
}

function readTopic(v: unknown, path: string): GroupTopic {
  if (!isRecord(v)) bad(`a topic must be an object { name, partitions, racks? }, got ${describe(v)}`, path);
  noUnknownFields(v, TOPIC_FIELDS, path);
  const name = requireString(v.name, 'a topic name', `${path}.name`);
  const partitions = requireInt(v.partitions, 1, MAX_PARTITIONS, 'a partition count', `${path}.partitions`);
  const previous = v.previousPartitions === undefined ? 0 : requireInt(v.previousPartitions, 1, MAX_PARTITIONS, 'a previous partition count', `${path}.previousPartitions`);
  let racks: string[][] | null = null;
  if (v.racks !== undefined) {
    const list = requireList(v.racks, 'racks', `${path}.racks`);
    if (list.length !== partitions) bad(`racks must have one entry per partition (${partitions}), got ${list.length}`, `${path}.racks`);
    racks = list.map((r, p) => {
      const replicas = requireList(r, 'the racks of a partition', `${path}.racks[${p}]`);
      return [...new Set(replicas.map((x, i) => requireString(x, 'a rack', `${path}.racks[${p}][${i}]`)))];
    });
  }
  return { name, partitions, racks, previous: previous === partitions ? 0 : previous };
}

/** True when `list` holds integers in [0, 2^31 - 2], strictly ascending (what a client sends): taken as it is. */
function ascendingPartitions(list: readonly unknown[]): boolean {
  let last = -1;
  for (let i = 0; i < list.length; i++) {
    const p = list[i];
    if (typeof p !== 'number' || !Number.isInteger(p) || p <= last || p > MAX_PARTITIONS - 1) return false;
    last = p;
  }
  return true;
}

/**
 * A member's owned partitions, as parallel lists (topic k owns lists[k]), read from the input
 * object in one pass over its own keys, so a topic named __proto__ is data (JSON.parse makes it
 * an own property). Lists that are ascending and distinct are used as given, the others are
 * normalized. Parallel lists, not a keyed lookup per subscribed topic: at a million partitions
 * that lookup (a property read by a string that is not yet a property key) cost ~0.7 s a call.
 */
export class OwnedPartitions {
  static readonly NONE = new OwnedPartitions([], []);

  private constructor(
    readonly topics: readonly string[],
    readonly lists: readonly (readonly number[])[],
  ) {}

  get size(): number {
    return this.topics.length;
  }

  static read(v: unknown, path: string): OwnedPartitions {
    if (v === undefined || v === null) return OwnedPartitions.NONE;
    if (!isRecord(v)) bad(`owned must be an object { "<topic>": [partitions] }, got ${describe(v)}`, path);
    const topics = Object.keys(v);
    const lists = topics.map((topic) => {
      const list = v[topic];
      if (Array.isArray(list) && ascendingPartitions(list)) return list as number[];
      const at = `${path}[${JSON.stringify(topic)}]`;
      const parts = requireList(list, 'owned partitions', at).map((p, i) => requireInt(p, 0, MAX_PARTITIONS - 1, 'an owned partition', `${at}[${i}]`));
      return [...new Set(parts)].sort((a, b) => a - b);
    });
    return new OwnedPartitions(topics, lists);
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
  if (last !== null && last.length === list.length && list.every((t, i) => t === last[i])) return last;
  return [...new Set(list.map((t, i) => requireString(t, 'a subscribed topic', `${path}[${i}]`)))];
}

function readMember(v: unknown, path: string, last: string[] | null): GroupMember {
  if (!isRecord(v)) bad(`a member must be an object { id, topics, rack?, owned?, generation? }, got ${describe(v)}`, path);
  noUnknownFields(v, MEMBER_FIELDS, path);
  const id = requireString(v.id, 'a member id', `${path}.id`);
  const topicList = requireList(v.topics, 'a subscription', `${path}.topics`);
  const topics = readTopics(topicList, `${path}.topics`, last);
  const rack = optionalString(v.rack, 'a rack', `${path}.rack`);
  const instanceId = optionalString(v.instanceId, 'an instance id', `${path}.instanceId`);
  const generation = v.generation === undefined ? 0 : requireInt(v.generation, 0, MAX_PARTITIONS, 'a generation', `${path}.generation`);
  return { id, instanceId, rack: rack === '' ? null : rack, topics, owned: OwnedPartitions.read(v.owned, `${path}.owned`), generation };
}

/**
 * Checks a group spec and normalizes it. Throws AssignorError: `E_INPUT` (not an object, `topics`
 * or `members` not a list, a field of the wrong type, an unknown field, a duplicate topic, member id
 * or instance id, racks not one entry per partition), `E_RANGE` (a partition count outside
 * [1, 2^31 - 1], a negative or non-integer partition or generation).
 */
export function readGroup(spec: unknown): Group {
  if (!isRecord(spec)) bad(`a group must be an object { topics, members }, got ${describe(spec)}`, '');
  for (const k of Object.keys(spec)) if (k !== 'topics' && k !== 'members') bad(`unknown field ${describe(k)}; fields: topics, members`, k);
  const topics = new Map<string, GroupTopic>();
  requireList(spec.topics, 'topics', 'topics').forEach((t, i) => {
    const topic = readTopic(t, `topics[${i}]`);
    if (topics.has(topic.name)) bad(`duplicate topic ${describe(topic.name)}`, `topics[${i}].name`);
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
  for (const m of members) for (const t of m.topics) subscribed.add(t);
  const all = [...subscribed].sort(byCodeUnits);
  return { members, topics, assigned: all.filter((t) => topics.has(t)), missing: all.filter((t) => !topics.has(t)) };
}
