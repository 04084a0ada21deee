// Kafka Streams properties for rack-aware standbys, validated the way
// StreamsConfig does it and failing with its exact ConfigException texts:
//   parse time (ConfigDef, in definition order: HIGH importance first)
//     num.standby.replicas            INT
//     rack.aware.assignment.tags      LIST, ListSize.atMostOfSize(5)
//   then validateRackAwarenessConfiguration():
//     more than 5 client.tag.* entries; a configured key without a client tag;
//     a key longer than 20 or a value longer than 30 UTF-16 units.
import { INT32_MAX, INT32_MIN, javaStringHash } from '../basics.js';
import { AssignorError, describe } from '../errors.js';

export const CLIENT_TAG_PREFIX = 'client.tag.';
export const RACK_AWARE_ASSIGNMENT_TAGS_CONFIG = 'rack.aware.assignment.tags';
export const NUM_STANDBY_REPLICAS_CONFIG = 'num.standby.replicas';
export const MAX_TAGS = 5;
export const MAX_TAG_KEY_LENGTH = 20;
export const MAX_TAG_VALUE_LENGTH = 30;

export interface StreamsStandbyConfig {
  /** client.tag.<key> entries, key without the prefix. */
  clientTags: Map<string, string>;
  /** rack.aware.assignment.tags in order (the order is the precedence). */
  rackAwareAssignmentTags: string[];
  /** num.standby.replicas (default 0). */
  numStandbyReplicas: number;
}

export type PropertiesLike = Map<string, unknown> | Record<string, unknown> | string;

/** Kafka's ConfigException(name, value, message) text. */
function invalid(name: string, value: string, message: string, path = name): never {
  throw new AssignorError('E_CONFIG', `Invalid value ${value} for configuration ${name}: ${message}`, path);
}

/** java.util.List.toString(): `[a, b]`. */
export function javaList(items: readonly string[]): string {
  return `[${items.join(', ')}]`;
}

/** A .properties text (key=value or key: value lines, # and ! comments) or an object/Map. */
export function toPropertyMap(props: PropertiesLike): Map<string, unknown> {
  if (props instanceof Map) return new Map(props);
  if (typeof props !== 'string') return new Map(Object.entries(props));
  const out = new Map<string, unknown>();
  for (const raw of props.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const m = /^([^=:\s]+)\s*[=:\s]\s*(.*)$/.exec(line);
    if (m) out.set(m[1]!, m[2]!);
    else out.set(line, '');
  }
  return out;
}

/** ConfigDef INT parsing: integers, or strings Integer.parseInt accepts after trim(). */
function parseInt32(name: string, value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX) return value;
  if (typeof value === 'string') {
    const t = value.trim();
    if (/^[+-]?\d+$/.test(t)) {
      const n = Number(t);
      if (n >= INT32_MIN && n <= INT32_MAX) return n;
    }
  }
  return invalid(name, shown(value), 'Not a number of type INT');
}

/** A property value as Java's toString() would print it; JSON for objects and arrays. */
function shown(value: unknown): string {
  return typeof value === 'object' && value !== null ? describe(value) : String(value);
}

/** Properties hold strings (numbers and booleans are converted); objects, arrays and null are refused. */
function scalar(name: string, value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  throw new AssignorError('E_CONFIG', `${name} must be a string, got ${describe(value)}`, name);
}

/** ConfigDef LIST parsing: trim, then split on commas with surrounding whitespace; "" is the empty list. */
function parseList(name: string, value: unknown): string[] {
  if (Array.isArray(value)) return value.map((v, i) => scalar(`${name}[${i}]`, v));
  // Kafka's text for a value that is neither a list nor a string.
  if (typeof value !== 'string') invalid(name, shown(value), 'Expected a comma separated list.');
  const t = value.trim();
  return t === '' ? [] : t.split(/\s*,\s*/);
}

/**
 * The order in which Kafka visits client tags (a HashMap of at most 5 entries,
 * table size 16): by bucket of the spread String hash, ties in insertion order.
 * Only decides which of several too-long tags is reported first.
 */
function hashMapOrder(keys: string[]): string[] {
  const bucket = (k: string): number => {
    const h = javaStringHash(k);
    return (h ^ (h >>> 16)) & 15;
  };
  return keys.map((k, i) => ({ k, i, b: bucket(k) })).sort((a, b) => a.b - b.b || a.i - b.i).map((e) => e.k);
}

/** Kafka's checks on one instance's tag set against the configured keys (exact texts). */
export function validateRackAwareness(clientTags: Map<string, string>, configuredTags: readonly string[], checkConfiguredKeys = true): void {
  if (clientTags.size > MAX_TAGS) {
    throw new AssignorError('E_CONFIG', `At most ${MAX_TAGS} client tags can be specified using ${CLIENT_TAG_PREFIX} prefix.`, CLIENT_TAG_PREFIX);
  }
  if (checkConfiguredKeys) {
    for (const key of configuredTags) {
      if (!clientTags.has(key)) {
        invalid(RACK_AWARE_ASSIGNMENT_TAGS_CONFIG, javaList(configuredTags), `Contains invalid value [${key}] which doesn't have corresponding tag set via [${CLIENT_TAG_PREFIX}] prefix.`);
      }
    }
  }
  for (const key of hashMapOrder([...clientTags.keys()])) {
    const value = clientTags.get(key)!;
    // The path names the offending property (client.tag.<key>), the text stays Kafka's.
    if (key.length > MAX_TAG_KEY_LENGTH) invalid(CLIENT_TAG_PREFIX, key, `Tag key exceeds maximum length of ${MAX_TAG_KEY_LENGTH}.`, CLIENT_TAG_PREFIX + key);
    if (value.length > MAX_TAG_VALUE_LENGTH) invalid(CLIENT_TAG_PREFIX, value, `Tag value exceeds maximum length of ${MAX_TAG_VALUE_LENGTH}.`, CLIENT_TAG_PREFIX + key);
  }
}

/**
 * Reads the three settings from one instance's Streams properties, in Kafka's
 * order, with Kafka's messages. Other properties are ignored.
 * `checkConfiguredTags: false` skips "configured key must have a client tag"
 * (for settings shared by many instances whose tags are given per instance).
 */
export function parseStreamsProperties(props: PropertiesLike, options: { checkConfiguredTags?: boolean } = {}): StreamsStandbyConfig {
  const map = toPropertyMap(props);
  const rawStandbys = map.get(NUM_STANDBY_REPLICAS_CONFIG);
  const numStandbyReplicas = rawStandbys === undefined ? 0 : parseInt32(NUM_STANDBY_REPLICAS_CONFIG, rawStandbys);
  const rawTags = map.get(RACK_AWARE_ASSIGNMENT_TAGS_CONFIG);
  const rackAwareAssignmentTags = rawTags === undefined ? [] : parseList(RACK_AWARE_ASSIGNMENT_TAGS_CONFIG, rawTags);
  if (rackAwareAssignmentTags.length > MAX_TAGS) {
    invalid(RACK_AWARE_ASSIGNMENT_TAGS_CONFIG, javaList(rackAwareAssignmentTags), `exceeds maximum list size of [${MAX_TAGS}].`);
  }
  const clientTags = new Map<string, string>();
  for (const [name, value] of map) {
    if (name.startsWith(CLIENT_TAG_PREFIX)) clientTags.set(name.slice(CLIENT_TAG_PREFIX.length), scalar(name, value));
  }
  validateRackAwareness(clientTags, rackAwareAssignmentTags, options.checkConfiguredTags ?? true);
  if (numStandbyReplicas < 0) {
    // Kafka has no validator here; a negative count has no meaning for placement, so we refuse it.
    throw new AssignorError('E_CONFIG', `${NUM_STANDBY_REPLICAS_CONFIG} must be >= 0, got ${numStandbyReplicas} (this check is ours, not Kafka's)`, NUM_STANDBY_REPLICAS_CONFIG);
  }
  return { clientTags, rackAwareAssignmentTags, numStandbyReplicas };
}
