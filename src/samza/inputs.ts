// What the Samza API takes from callers: Maps, plain objects or arrays of
// pairs wherever it needs a string-keyed map, and SSPs with or without a key
// bucket. Everything is turned into Maps and complete SSPs here, once, so user
// strings such as `__proto__` stay data and the planners see one shape.
import { AssignorError, describe } from '../errors.js';
import { ssp, type SSP, type SspInput } from './model.js';
import { ColumnMap } from './task-columns.js';
import { INT32_MAX } from '../basics.js';

/**
 * A string-keyed map: a Map, a plain object (its own keys; `__proto__` read by JSON.parse is a key
 * like any other, and integer-like keys come first, in ascending order, as JavaScript lists them),
 * or an array of [key, value] pairs (in order; a key may appear once).
 */
export type MapInput<V> = ReadonlyMap<string, V> | Readonly<Record<string, V>> | ReadonlyArray<readonly [string, V]>;

export type { SspInput } from './model.js';


/** A Map, or another ReadonlyMap (such as the store cycle's lazy previous assignment). */
function isMapLike(x: unknown): x is ReadonlyMap<string, unknown> {
  if (x instanceof Map) return true;
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;
  const m = x as Partial<ReadonlyMap<string, unknown>>;
  return typeof m.get === 'function' && typeof m.has === 'function' && typeof m.entries === 'function' && typeof m[Symbol.iterator] === 'function';
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (typeof x !== 'object' || x === null) return false;
  const proto = Object.getPrototypeOf(x) as unknown;
  return proto === Object.prototype || proto === null;
}

/** The entries of a MapInput, in order, checked for shape; `path` names the input in errors. */
export function* entriesOf<V>(input: MapInput<V>, path: string): Generator<[string, V]> {
  if (isMapLike(input)) {
    yield* (input as ReadonlyMap<string, V>).entries();
  } else if (Array.isArray(input)) {
    const seen = new Set<string>();
    for (let i = 0; i < input.length; i++) {
      const pair = input[i] as unknown;
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string') {
        throw new AssignorError('E_SAMZA_INPUT', `${path}[${i}] must be a [key, value] pair with a string key, got ${describe(pair)}`, `${path}[${i}]`);
      }
      if (seen.has(pair[0])) throw new AssignorError('E_SAMZA_INPUT', `${path} gives the key ${JSON.stringify(pair[0])} twice`, `${path}[${i}]`);
      seen.add(pair[0]);
      yield [pair[0], pair[1] as V];
    }
  } else if (isPlainObject(input)) {
    for (const k of Object.keys(input)) yield [k, input[k] as V];
  } else {
    throw new AssignorError('E_SAMZA_INPUT', `${path} must be a Map, a plain object or an array of [key, value] pairs, got ${describe(input)}`, path);
  }
}

/** A MapInput as a Map (a Map is taken as it is when no value check is asked for). */
export function toMap<V>(input: MapInput<V> | undefined, path: string, check?: (value: unknown, path: string) => V): ReadonlyMap<string, V> {
  if (input === undefined) return new Map();
  // A ColumnMap holds store records already checked as the planner checks them: taken as it is (no copy of a million entries).
  if (isMapLike(input) && (check === undefined || input instanceof ColumnMap)) return input as ReadonlyMap<string, V>;
  const out = new Map<string, V>();
  for (const [k, v] of entriesOf(input, path)) out.set(k, check === undefined ? v : check(v, `${path}.${k}`));
  return out;
}

/** Value checks for toMap. */
export const VALUES = {
  string(v: unknown, path: string): string {
    if (typeof v !== 'string') throw new AssignorError('E_SAMZA_INPUT', `${path} must be a string, got ${describe(v)}`, path);
    return v;
  },
  int(min: number) {
    return (v: unknown, path: string): number => {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > INT32_MAX) {
        throw new AssignorError('E_SAMZA_INPUT', `${path} must be an integer in [${min}, ${INT32_MAX}], got ${describe(v)}`, path);
      }
      return v;
    };
  },
  taskMode(v: unknown, path: string): 'Active' | 'Standby' {
    if (v !== 'Active' && v !== 'Standby') throw new AssignorError('E_SAMZA_INPUT', `${path} must be "Active" or "Standby", got ${describe(v)}`, path);
    return v;
  },
} as const;

/** A complete SSP (key bucket -1 when missing), or an E_SAMZA_INPUT error naming `path`. */
export function toSsp(x: unknown, path: string): SSP {
  if (typeof x !== 'object' || x === null) throw new AssignorError('E_SAMZA_INPUT', `${path} must be an SSP {system, stream, partition, keyBucket?}, got ${describe(x)}`, path);
  const s = x as Partial<SspInput>;
  if (typeof s.system !== 'string' || typeof s.stream !== 'string') throw new AssignorError('E_SAMZA_INPUT', `${path} needs a system and a stream name, got ${describe(x)}`, path);
  const p = s.partition;
  if (typeof p !== 'number' || !Number.isInteger(p) || p < 0 || p > INT32_MAX) {
    throw new AssignorError('E_SAMZA_INPUT', `${path}.partition must be an integer in [0, ${INT32_MAX}], got ${describe(p)}`, `${path}.partition`);
  }
  const b = s.keyBucket ?? -1;
  if (typeof b !== 'number' || !Number.isInteger(b) || b < -1 || b > INT32_MAX) {
    throw new AssignorError('E_SAMZA_INPUT', `${path}.keyBucket must be an integer >= -1 (or left out), got ${describe(b)}`, `${path}.keyBucket`);
  }
  return ssp(s.system, s.stream, p, b);
}

/** A list of SSP inputs as complete SSPs. */
export function toSsps(list: readonly unknown[], path: string): SSP[] {
  if (!Array.isArray(list)) throw new AssignorError('E_SAMZA_INPUT', `${path} must be an array of SSPs, got ${describe(list)}`, path);
  return list.map((x, i) => toSsp(x, `${path}[${i}]`));
}
