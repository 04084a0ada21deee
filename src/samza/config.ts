// Samza config keys, read verbatim from a flat key -> string map (Samza's Config).
import { INT32_MAX, INT32_MIN } from '../basics.js';
import { AssignorError, describe } from '../errors.js';
import { entriesOf, type MapInput } from './inputs.js';
import { SamzaError, MSG } from './errors.js';
import { compareSsp, parseSystemStream, ssp, type SSP, type SystemStream, compareSystemStream, systemStreamId } from './model.js';

export const KEYS = {
  inputs: 'task.inputs',
  broadcastInputs: 'task.broadcast.inputs',
  grouperFactory: 'job.systemstreampartition.grouper.factory',
  expansionEnabled: 'job.systemstreampartition.input.expansion.enabled',
  mapperFactory: 'job.system.stream.partition.mapper.factory',
  elasticityFactor: 'job.elasticity.factor',
  taskNameGrouperFactory: 'task.name.grouper.factory',
  containerCount: 'job.container.count',
  yarnContainerCount: 'yarn.container.count',
  autosizingEnabled: 'job.autosizing.enabled',
  autosizingContainerCount: 'job.autosizing.container.count',
  hostAffinity: 'job.host-affinity.enabled',
  yarnHostAffinity: 'yarn.samza.host-affinity.enabled',
  replicationFactor: 'job.standbytasks.replication.factor',
  processorList: 'processor.list',
  processorId: 'processor.id',
} as const;

const STREAM_PKG = 'org.apache.samza.container.grouper.stream.';
const TASK_PKG = 'org.apache.samza.container.grouper.task.';
export const IN_MEMORY_STORE_FACTORY = 'org.apache.samza.storage.kv.inmemory.InMemoryKeyValueStorageEngineFactory';
export const HASH_MAPPER_FACTORY = `${STREAM_PKG}HashSystemStreamPartitionMapperFactory`;

export type SspGrouperKind = 'GroupByPartition' | 'GroupBySystemStreamPartition' | 'AllSspToSingleTask';
export type TaskGrouperKind = 'GroupByContainerCount' | 'GroupByContainerIds' | 'SingleContainer';

/** Factory class names (full or simple) -> grouper, and whether it is a SEP-5 name that forces expansion on. */
const SSP_GROUPERS = new Map<string, { kind: SspGrouperKind; fixedTaskNum: boolean }>([
  ['GroupByPartitionFactory', { kind: 'GroupByPartition', fixedTaskNum: false }],
  ['GroupBySystemStreamPartitionFactory', { kind: 'GroupBySystemStreamPartition', fixedTaskNum: false }],
  ['AllSspToSingleTaskGrouperFactory', { kind: 'AllSspToSingleTask', fixedTaskNum: false }],
  ['GroupByPartitionWithFixedTaskNumFactory', { kind: 'GroupByPartition', fixedTaskNum: true }],
  ['GroupBySystemStreamPartitionWithFixedTaskNumFactory', { kind: 'GroupBySystemStreamPartition', fixedTaskNum: true }],
  ['GroupByPartitionWithFixedTaskNum', { kind: 'GroupByPartition', fixedTaskNum: true }],
  ['GroupBySystemStreamPartitionWithFixedTaskNum', { kind: 'GroupBySystemStreamPartition', fixedTaskNum: true }],
]);
const TASK_GROUPERS = new Map<string, TaskGrouperKind>([
  ['GroupByContainerCountFactory', 'GroupByContainerCount'],
  ['GroupByContainerIdsFactory', 'GroupByContainerIds'],
  ['SingleContainerGrouperFactory', 'SingleContainer'],
]);

function simpleName(cls: string, pkg: string): string {
  if (cls.startsWith(pkg)) return cls.slice(pkg.length);
  return cls.includes('.') ? '' : cls;
}

/** A config as callers give it: a SamzaConfig, or its key -> value map in any MapInput shape. */
export type ConfigInput = SamzaConfig | MapInput<string | number | boolean>;

/** A Samza Config: a flat string map. Values from JSON may be numbers or booleans; they become strings. */
export class SamzaConfig {
  readonly map: Map<string, string>;

  constructor(entries: Iterable<[string, string]> = []) {
    this.map = new Map(entries);
  }

  /** A SamzaConfig as it is, or one made from a Map, a plain object or an array of pairs. */
  static from(input: ConfigInput, path = 'config'): SamzaConfig {
    if (input instanceof SamzaConfig) return input;
    const out = new SamzaConfig();
    for (const [k, v] of entriesOf(input, path)) {
      if (typeof v === 'string') out.map.set(k, v);
      else if (typeof v === 'number' || typeof v === 'boolean') out.map.set(k, String(v));
      else throw new AssignorError('E_SAMZA_CONFIG', `config value of ${JSON.stringify(k)} must be a string, number or boolean, got ${describe(v)}`, `${path}.${k}`);
    }
    return out;
  }

  get(key: string): string | undefined {
    return this.map.get(key);
  }

  /** Java Boolean.parseBoolean: only "true" (any case) is true. */
  getBoolean(key: string, fallback: boolean): boolean {
    const v = this.map.get(key);
    return v === undefined ? fallback : v.trim().toLowerCase() === 'true';
  }

  getInt(key: string, fallback: number): number {
    const v = this.map.get(key);
    if (v === undefined) return fallback;
    const t = v.trim();
    const n = Number(t);
    if (!/^[+-]?\d+$/.test(t) || !Number.isSafeInteger(n) || n < INT32_MIN || n > INT32_MAX) {
      throw new AssignorError('E_SAMZA_CONFIG', `config ${key} must be an integer, got ${JSON.stringify(v)}`, key);
    }
    return n;
  }

  with(key: string, value: string): SamzaConfig {
    const c = new SamzaConfig(this.map);
    c.map.set(key, value);
    return c;
  }
}

/** task.inputs: comma-separated system.stream names, each trimmed; blanks skipped. Sorted, distinct. */
export function inputStreams(input: ConfigInput): SystemStream[] {
  const config = SamzaConfig.from(input);
  const raw = config.get(KEYS.inputs);
  if (raw === undefined) return [];
  const seen = new Map<string, SystemStream>();
  for (const item of raw.split(',')) {
    const name = item.trim();
    if (name === '') continue;
    const s = parseSystemStream(name, KEYS.inputs);
    seen.set(systemStreamId(s), s);
  }
  return [...seen.values()].sort(compareSystemStream);
}

/**
 * Most broadcast SSPs a config may name. Each one is an object that joins every
 * task, so a range such as `#[0-2000000000]` would exhaust memory, not fail.
 */
export const MAX_BROADCAST_SSPS = 2 ** 22;

const SINGLE = /^\d+$/;
const RANGE = /^\[(\d+)-(\d+)\]$/;

/**
 * task.broadcast.inputs: `system.stream#N` or `system.stream#[A-B]` items.
 * A range with A > B adds nothing (Samza only logs a warning). Sorted, distinct.
 */
export function broadcastSsps(input: ConfigInput, warn: (msg: string) => void = () => {}): SSP[] {
  const config = SamzaConfig.from(input);
  const raw = config.get(KEYS.broadcastInputs);
  if (raw === undefined || raw.trim() === '') return [];
  const out = new Map<string, SSP>();
  for (const piece of raw.split(/\s*,\s*/)) {
    const item = piece.trim();
    if (item === '') continue;
    const hash = item.indexOf('#');
    if (hash < 0) throw new SamzaError('E_SAMZA_BROADCAST', 'IllegalArgumentException', MSG.broadcastFormat(item), KEYS.broadcastInputs);
    const ss = parseSystemStream(item.slice(0, hash), KEYS.broadcastInputs);
    const spec = item.slice(hash + 1);
    const add = (p: number): void => {
      const s = ssp(ss.system, ss.stream, p);
      out.set(`${systemStreamId(s)}#${p}`, s);
    };
    const range = RANGE.exec(spec);
    if (SINGLE.test(spec)) {
      add(partitionNumber(spec, item));
    } else if (range) {
      const a = partitionNumber(range[1]!, item);
      const b = partitionNumber(range[2]!, item);
      if (a > b) warn(`Invalid partition range in ${item}: ${a} is greater than ${b}; no partitions added`);
      if (b - a + 1 > MAX_BROADCAST_SSPS - out.size) {
        throw new AssignorError('E_SAMZA_TOO_LARGE', `broadcast range ${item} names ${b - a + 1} partitions; at most ${MAX_BROADCAST_SSPS} broadcast SSPs are supported`, KEYS.broadcastInputs);
      }
      for (let p = a; p <= b; p++) add(p);
    } else {
      throw new SamzaError('E_SAMZA_BROADCAST', 'IllegalArgumentException', MSG.broadcastFormat(item), KEYS.broadcastInputs);
    }
  }
  return [...out.values()].sort(compareSsp);
}

function partitionNumber(digits: string, item: string): number {
  const n = Number(digits);
  // Java's Integer.parseInt overflows into NumberFormatException; we say so plainly.
  if (n > 2147483647) throw new AssignorError('E_SAMZA_BROADCAST', `partition ${digits} in ${item} is larger than 2147483647`, KEYS.broadcastInputs);
  return n;
}

/** Distinct SystemStreams of the broadcast SSPs. */
export function broadcastStreams(config: SamzaConfig): SystemStream[] {
  const seen = new Map<string, SystemStream>();
  for (const s of broadcastSsps(config)) seen.set(systemStreamId(s), { system: s.system, stream: s.stream });
  return [...seen.values()].sort(compareSystemStream);
}

/** task.inputs ∪ broadcast streams: what Samza's partition-count monitor watches. */
export function allInputStreams(input: ConfigInput): SystemStream[] {
  const config = SamzaConfig.from(input);
  const seen = new Map<string, SystemStream>();
  for (const s of [...inputStreams(config), ...broadcastStreams(config)]) seen.set(systemStreamId(s), s);
  return [...seen.values()].sort(compareSystemStream);
}

export function elasticityFactor(config: SamzaConfig): number {
  const f = config.getInt(KEYS.elasticityFactor, 1);
  if (f < 1) throw new SamzaError('E_SAMZA_ELASTICITY', 'ConfigException', MSG.elasticity, KEYS.elasticityFactor);
  return f;
}

export function sspGrouper(config: SamzaConfig): { kind: SspGrouperKind; fixedTaskNum: boolean; factory: string } {
  const factory = config.get(KEYS.grouperFactory) ?? `${STREAM_PKG}GroupByPartitionFactory`;
  const g = SSP_GROUPERS.get(simpleName(factory.trim(), STREAM_PKG));
  if (g === undefined) {
    throw new AssignorError(
      'E_SAMZA_GROUPER',
      `unsupported SSP grouper factory ${JSON.stringify(factory)}: expected one of ${[...SSP_GROUPERS.keys()].filter((k) => k.endsWith('Factory')).map((k) => STREAM_PKG + k).join(', ')}`,
      KEYS.grouperFactory,
    );
  }
  return { ...g, factory };
}

export function taskNameGrouper(config: SamzaConfig): TaskGrouperKind {
  const factory = config.get(KEYS.taskNameGrouperFactory) ?? `${TASK_PKG}GroupByContainerCountFactory`;
  const g = TASK_GROUPERS.get(simpleName(factory.trim(), TASK_PKG));
  if (g === undefined) {
    throw new AssignorError(
      'E_SAMZA_GROUPER',
      `unsupported task name grouper factory ${JSON.stringify(factory)}: expected one of ${[...TASK_GROUPERS.keys()].map((k) => TASK_PKG + k).join(', ')}`,
      KEYS.taskNameGrouperFactory,
    );
  }
  return g;
}

/** job.container.count, else the deprecated yarn.container.count; autosizing wins when enabled. */
export function containerCount(config: SamzaConfig): number {
  if (config.getBoolean(KEYS.autosizingEnabled, false) && config.get(KEYS.autosizingContainerCount) !== undefined) {
    return config.getInt(KEYS.autosizingContainerCount, 1);
  }
  if (config.get(KEYS.containerCount) !== undefined) return config.getInt(KEYS.containerCount, 1);
  return config.getInt(KEYS.yarnContainerCount, 1);
}

export function hostAffinityEnabled(config: SamzaConfig): boolean {
  if (config.get(KEYS.hostAffinity) !== undefined) return config.getBoolean(KEYS.hostAffinity, false);
  return config.getBoolean(KEYS.yarnHostAffinity, false);
}

export function replicationFactor(config: SamzaConfig): number {
  const r = config.getInt(KEYS.replicationFactor, 1);
  if (r < 1) throw new AssignorError('E_SAMZA_CONFIG', `${KEYS.replicationFactor} must be at least 1, got ${r}`, KEYS.replicationFactor);
  return r;
}

export function expansionEnabled(config: SamzaConfig): boolean {
  return config.getBoolean(KEYS.expansionEnabled, true);
}

/** Only Samza's hash mapper exists here; the mapper *mode* (samza or base) picks its semantics. */
export function mapperFactory(config: SamzaConfig): string {
  const f = config.get(KEYS.mapperFactory) ?? HASH_MAPPER_FACTORY;
  if (simpleName(f.trim(), STREAM_PKG) !== 'HashSystemStreamPartitionMapperFactory') {
    throw new AssignorError('E_SAMZA_MAPPER', `unsupported partition mapper factory ${JSON.stringify(f)}: only ${HASH_MAPPER_FACTORY} is available`, KEYS.mapperFactory);
  }
  return f;
}

interface StoreInfo {
  name: string;
  factory: string | undefined;
}

/** Stores named by `stores.<name>.factory` or `stores.<name>.side.inputs.processor.factory`. */
export function stores(config: SamzaConfig): StoreInfo[] {
  const names = new Set<string>();
  for (const key of config.map.keys()) {
    if (!key.startsWith('stores.')) continue;
    const rest = key.slice('stores.'.length);
    if (rest.endsWith('.side.inputs.processor.factory')) names.add(rest.slice(0, -'.side.inputs.processor.factory'.length));
    else if (rest.endsWith('.factory')) names.add(rest.slice(0, -'.factory'.length));
  }
  return [...names].sort().map((name) => ({ name, factory: config.get(`stores.${name}.factory`) }));
}

/** The proxy's "stateful": at least one store whose factory is not the in-memory one. */
export function persistentStoreCount(config: SamzaConfig): number {
  return stores(config).filter((s) => s.factory !== undefined && s.factory.trim() !== IN_MEMORY_STORE_FACTORY).length;
}

/** The coordinators' "durable": any stores.*.changelog key. */
export function hasDurableStores(config: SamzaConfig): boolean {
  for (const key of config.map.keys()) if (key.startsWith('stores.') && key.endsWith('.changelog')) return true;
  return false;
}

/** Everything the planner reads from config, validated once. */
export interface JobSettings {
  inputs: SystemStream[];
  broadcast: SSP[];
  grouper: SspGrouperKind;
  grouperFactory: string;
  /** A SEP-5 `...WithFixedTaskNum` name was configured: expansion is on regardless of the kill switch. */
  fixedTaskNum: boolean;
  elasticityFactor: number;
  taskGrouper: TaskGrouperKind;
  containerCount: number;
  hostAffinity: boolean;
  replicationFactor: number;
  expansionEnabled: boolean;
  stateful: boolean;
  durable: boolean;
}

export function readSettings(input: ConfigInput, warn: (msg: string) => void = () => {}): JobSettings {
  const config = SamzaConfig.from(input);
  const g = sspGrouper(config);
  mapperFactory(config);
  return {
    inputs: inputStreams(config),
    broadcast: broadcastSsps(config, warn),
    grouper: g.kind,
    grouperFactory: g.factory,
    fixedTaskNum: g.fixedTaskNum,
    elasticityFactor: elasticityFactor(config),
    taskGrouper: taskNameGrouper(config),
    containerCount: containerCount(config),
    hostAffinity: hostAffinityEnabled(config),
    replicationFactor: replicationFactor(config),
    expansionEnabled: g.fixedTaskNum || expansionEnabled(config),
    stateful: persistentStoreCount(config) > 0,
    durable: hasDurableStores(config),
  };
}
