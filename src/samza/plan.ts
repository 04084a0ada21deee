// JobModel calculation (Samza's JobModelCalculator): group SSPs into tasks
// (samza or base mapper), give tasks changelog partitions, group tasks into
// containers. Pure: the previous state comes in, the plan goes out; the store
// cycle (cycle.ts) does the reading and writing.
import { formatPercent } from '../basics.js';
import { AssignorError } from '../errors.js';
import { SamzaError } from './errors.js';
import { analyzeExpansion, reassignWithKeyMovement } from '../expansion/index.js';
import type { EngineChoice } from '../engine/kernels.js';
import { KEYS, SamzaConfig, readSettings, type ConfigInput, type JobSettings } from './config.js';
import { toMap, VALUES, type MapInput } from './inputs.js';
import { groupFlat, type SlotRule } from './flat-grouping.js';
import { namesAreBytes, taskNames, type Grouping } from './grouping.js';
import { samzaGrouping } from './samza-mapper.js';
import { javaHashMapKeyOrder, javaSplit } from './java-order.js';
import { inferBases, isPreviousRows, previousPartitionCounts, previousRows, type PreviousRows } from './previous.js';
import { changelogPartitionsOf } from './changelog.js';
import {
  ANY_HOST,
  balanceByContainerCount,
  groupByContainerCount,
  groupByContainerCountSorted,
  groupByContainerIds,
  groupByContainerIdsWithLocality,
  singleContainer,
  type ContainerAssignment,
} from './container-groupers.js';
import { systemStreamName, type SSP, type SspInput, type TaskMode } from './model.js';

export type MapperMode = 'base' | 'samza';

export interface PlanOptions {
  /** `base` (default) or `samza` (Samza's HashSystemStreamPartitionMapper + SSPGrouperProxy). */
  mapper?: MapperMode;
  /** Base mapper only: accept a partition count that is not a multiple of the base, moving the least keys. */
  allowKeyMovement?: boolean;
  engine?: EngineChoice;
  /**
   * Processor id -> host (a Map, a plain object or [id, host] pairs; GroupByContainerIds deals
   * tasks out in this order, so prefer a Map or pairs: a plain object lists integer-like ids first).
   * Default: container ids "0".."n-1" in java.util.HashMap order (as Samza's JobModelHelper hands
   * them over), with their stored host, else ANY_HOST.
   */
  processors?: MapInput<string>;
  warn?: (msg: string) => void;
}

/** What the coordinator store remembers from the previous JobModel. */
export interface PreviousState {
  /** Base partition count per stream name (`system.stream`). */
  baseCounts: ReadonlyMap<string, number>;
  /** Active tasks' SSPs (Samza's previousTaskToSSPAssignment). */
  taskToSsps: ReadonlyMap<string, readonly SSP[]>;
  /** Distinct partitions per stream name in taskToSsps, when the caller has them cheaper (the store cycle); else derived from taskToSsps. */
  partitionCounts?: ReadonlyMap<string, number>;
  changelog: ReadonlyMap<string, number>;
  /** Task -> container id, all tasks (standby included). */
  taskContainer: ReadonlyMap<string, string>;
  taskModes: ReadonlyMap<string, TaskMode>;
  containerHosts: ReadonlyMap<string, string>;
}

/**
 * What calculateJobModel takes as the previous state: a PreviousState, or any part of one with
 * each map as a Map, a plain object or [key, value] pairs, and SSPs with or without keyBucket.
 * The previous assignment may also come in flat form (from previousRowsOfGrouping, or a store
 * that reads it without building an object per SSP).
 */
export interface PreviousInput {
  baseCounts?: MapInput<number>;
  taskToSsps?: MapInput<readonly SspInput[]> | PreviousRows;
  /** Distinct partitions per stream name in taskToSsps, when the caller has them cheaper (the store cycle). */
  partitionCounts?: MapInput<number>;
  changelog?: MapInput<number>;
  taskContainer?: MapInput<string>;
  taskModes?: MapInput<TaskMode>;
  containerHosts?: MapInput<string>;
}

/** The previous state with every map a Map, checked, and the assignment in flat form. */
interface Previous {
  baseCounts: ReadonlyMap<string, number>;
  /** The assignment in flat form, read on first use: the base mapper with known bases and given partition counts never reads it (the store cycle's lazy inversion stays unbuilt). */
  rows: () => PreviousRows;
  partitionCounts: ReadonlyMap<string, number> | undefined;
  changelog: ReadonlyMap<string, number>;
  taskContainer: ReadonlyMap<string, string>;
  taskModes: ReadonlyMap<string, TaskMode>;
  containerHosts: ReadonlyMap<string, string>;
}

function readPreviousInput(p: PreviousInput): Previous {
  const tts = p.taskToSsps ?? new Map<string, SSP[]>();
  let rows: PreviousRows | undefined = isPreviousRows(tts) ? tts : undefined;
  return {
    baseCounts: toMap(p.baseCounts, 'previous.baseCounts', VALUES.int(0)),
    rows: () => (rows ??= previousRows(tts as MapInput<readonly SspInput[]>)),
    partitionCounts: p.partitionCounts === undefined ? undefined : toMap(p.partitionCounts, 'previous.partitionCounts', VALUES.int(0)),
    changelog: toMap(p.changelog, 'previous.changelog', VALUES.int(0)),
    taskContainer: toMap(p.taskContainer, 'previous.taskContainer', VALUES.string),
    taskModes: toMap(p.taskModes, 'previous.taskModes', VALUES.taskMode),
    containerHosts: toMap(p.containerHosts, 'previous.containerHosts', VALUES.string),
  };
}

export function emptyPrevious(): PreviousState {
  return { baseCounts: new Map(), taskToSsps: new Map(), changelog: new Map(), taskContainer: new Map(), taskModes: new Map(), containerHosts: new Map() };
}

export type StreamHandling =
  | 'new' // no previous count: grouped as is, base recorded
  | 'unchanged'
  | 'folded' // base mapper: partition p joins the task of p mod base
  | 'key-movement' // base mapper with allowKeyMovement
  | 'rebased' // stateless job or expansion disabled: grouped as is, base follows the count
  | 'samza-proxy' // samza mapper ran
  | 'samza-bypass'; // samza proxy returned the raw grouping

export interface StreamReport {
  name: string;
  partitions: number;
  /** Distinct partitions in the previous assignment, when there was one. */
  previousPartitions?: number;
  /** Base count used (base mapper) or recorded. */
  base: number;
  handling: StreamHandling;
  /** Share of the stream's keys that changed task (key-movement only). */
  movedShare?: number;
  why: string;
}

export interface JobModelPlan {
  config: SamzaConfig;
  settings: JobSettings;
  mapper: MapperMode;
  grouping: Grouping;
  /** Changelog partition of each active task (grouping.tasks order). */
  changelog: Int32Array;
  containers: ContainerAssignment;
  containerNote?: string;
  maxChangeLogStreamPartitions: number;
  streams: StreamReport[];
  /** Base counts to persist (every input stream). */
  baseCounts: Map<string, number>;
  processors: Map<string, string>;
}

export interface JobInput {
  config: SamzaConfig;
  /** Partition count of each input stream, by `system.stream`. */
  partitionCounts: ReadonlyMap<string, number>;
}

/** What calculateJobModel takes: a JobInput, or the same in plain shapes. */
export interface JobSpec {
  /** A SamzaConfig, or key -> value as a Map, a plain object or pairs (numbers and booleans become strings). */
  config: ConfigInput;
  /** Partition count of each input stream, by `system.stream` (a Map, a plain object or pairs). */
  partitionCounts: MapInput<number>;
}

/**
 * Samza's JobModelCalculator: groups the input SSPs into tasks (base or samza mapper), gives tasks
 * changelog partitions and groups them into containers.
 * Throws AssignorError: E_SAMZA_INPUT, E_SAMZA_CONFIG, E_SAMZA_PARTITIONS, E_SAMZA_PREVIOUS,
 * E_SAMZA_TOO_LARGE, E_KEY_MOVEMENT, E_SAMZA_GROUPER, E_SAMZA_MAPPER, E_SAMZA_CHANGELOG, E_ENGINE,
 * and SamzaError (Samza's own conditions and texts; samzaType names the Java exception).
 */
export function calculateJobModel(job: JobSpec, previousInput: PreviousInput = emptyPrevious(), options: PlanOptions = {}): JobModelPlan {
  const warn = options.warn ?? (() => {});
  const mapper = options.mapper ?? 'base';
  const config = SamzaConfig.from(job.config);
  const partitionCounts = toMap(job.partitionCounts, 'partitions', VALUES.int(0));
  const previous = readPreviousInput(previousInput);
  const givenProcessors = options.processors === undefined ? undefined : toMap(options.processors, 'processors', VALUES.string);
  const settings = readSettings(config, warn);
  const processors = processorsOf(settings, previous, givenProcessors);
  const counts = settings.inputs.map((s) => {
    const name = systemStreamName(s);
    const c = partitionCounts.get(name);
    if (c === undefined) throw new AssignorError('E_SAMZA_PARTITIONS', `no partition count for input stream ${name}`, `partitions.${name}`);
    return c;
  });
  checkPlanSize(settings, counts, processors.size, givenProcessors === undefined ? KEYS.containerCount : 'processors', mapper);
  const streams = new StreamReports(settings, counts, previous.partitionCounts ?? previousPartitionCounts(previous.rows()));
  const mapperJob: MapperJob = { settings, counts, processors, previous, streams, options, warn };
  const grouping = mapper === 'samza' ? samzaMapperGrouping(mapperJob) : baseMapperGrouping(mapperJob);
  // Containers are grouped first (an error is raised after the changelog's, in Samza's order): the
  // container order is the order the store cycle wrote each task's records in, so it says which
  // stored row to try first for each task's changelog partition.
  const containerPath = givenProcessors !== undefined && settings.taskGrouper === 'GroupByContainerIds' ? 'processors' : KEYS.containerCount;
  let grouped: { assignment: ContainerAssignment; note?: string } | undefined;
  let groupError: unknown;
  try {
    grouped = located(() => groupTasks(grouping, settings, previous, processors, config), containerPath);
  } catch (e) {
    groupError = e;
  }
  const changelog = changelogPartitionsOf(taskNames(grouping), previous.changelog, grouped === undefined ? undefined : containerOrder(grouped.assignment));
  if (grouped === undefined) throw groupError;
  const { assignment, note } = grouped;
  let maxCl = -1;
  for (let i = 0; i < changelog.length; i++) if (changelog[i]! > maxCl) maxCl = changelog[i]!;
  return {
    config,
    settings,
    mapper,
    grouping,
    changelog,
    containers: assignment,
    ...(note !== undefined ? { containerNote: note } : {}),
    maxChangeLogStreamPartitions: maxCl + 1,
    streams: streams.reports,
    baseCounts: streams.baseCounts,
    processors,
  };
}

/** Processor id -> host: the given ones, or container ids 0..n-1 with their previous hosts. */
function processorsOf(settings: JobSettings, previous: Previous, given: ReadonlyMap<string, string> | undefined): Map<string, string> {
  if (given === undefined && settings.containerCount > PLAN_LIMITS.tasks) {
    throw new AssignorError('E_SAMZA_TOO_LARGE', `container count ${settings.containerCount} is more than the ${PLAN_LIMITS.tasks} tasks a plan can have`, KEYS.containerCount);
  }
  // Samza's JobModelHelper puts container ids 0..n-1 in a HashMap and hands the groupers its keys in
  // the HashMap's order (GroupByContainerIds deals tasks out in that order: 0, 11, 1, 2, ... for 12).
  return new Map<string, string>(
    given ?? javaHashMapKeyOrder(Array.from({ length: Math.max(0, settings.containerCount) }, (_, i) => String(i))).map((id) => [id, previous.containerHosts.get(id) ?? ANY_HOST] as [string, string]),
  );
}

/** The per-stream report and base counts, in input order. */
class StreamReports {
  readonly reports: StreamReport[] = [];
  readonly baseCounts = new Map<string, number>();

  constructor(
    private readonly settings: JobSettings,
    private readonly counts: readonly number[],
    private readonly prevPartitions: ReadonlyMap<string, number>,
  ) {}

  /** Input stream i: its base and how it was handled. */
  add(i: number, handling: StreamHandling, base: number, why: string, extra: Partial<StreamReport> = {}): void {
    const name = systemStreamName(this.settings.inputs[i]!);
    const prev = this.prevPartitions.get(name);
    this.baseCounts.set(name, base);
    this.reports.push({ name, partitions: this.counts[i]!, ...(prev !== undefined ? { previousPartitions: prev } : {}), base, handling, why, ...extra });
  }

  previousCount(i: number): number | undefined {
    return this.prevPartitions.get(systemStreamName(this.settings.inputs[i]!));
  }
}

/** What the mappers read: one job's settings, partition counts, processors and previous state; they report into streams. */
interface MapperJob {
  settings: JobSettings;
  counts: readonly number[];
  processors: Map<string, string>;
  previous: Previous;
  streams: StreamReports;
  options: PlanOptions;
  warn: (m: string) => void;
}

/** The samza mapper: Samza's grouper behind its SSPGrouperProxy (or the raw grouping where the proxy steps aside). */
function samzaMapperGrouping(job: MapperJob): Grouping {
  const { settings, counts, processors, previous, streams, options, warn } = job;
  if (options.allowKeyMovement) warn('allowKeyMovement applies to the base mapper only; the samza mapper ignores it');
  // Samza hands the processor ids to the grouper as processor.list, joined with commas and split again.
  const processorList = javaSplit([...processors.keys()].join(','), ',');
  const r = samzaGrouping({ settings, counts: counts as number[], processors: processorList, previous: previous.rows(), ...(options.engine !== undefined ? { engine: options.engine } : {}) });
  if (r.bypass === 'disabled') warn(`${KEYS.expansionEnabled} is false: SSPs are grouped without the SSPGrouperProxy`);
  const bypass =
    r.bypass === 'stateless'
      ? 'stateless job (no persistent store): the proxy returns the raw grouping'
      : r.bypass === 'first-run'
        ? 'no previous assignment: raw grouping'
        : r.bypass === 'disabled'
          ? `${KEYS.expansionEnabled} = false: raw grouping`
          : undefined;
  settings.inputs.forEach((s, i) => {
    const base = previous.baseCounts.get(systemStreamName(s)) ?? counts[i]!;
    const prev = streams.previousCount(i);
    const why = bypass ?? (prev !== undefined && prev !== counts[i] ? `samza mapper: partition n joins the previous task of n mod the previous count` : 'samza proxy: each SSP returns to its previous task');
    streams.add(i, bypass !== undefined ? 'samza-bypass' : 'samza-proxy', base, why);
  });
  return r.grouping;
}

/** The base mapper: each stream's slot rule from its base count (identity, fold, or a key-movement table), then the flat grouping. */
function baseMapperGrouping(job: MapperJob): Grouping {
  const { settings, counts, processors, previous, options } = job;
  const unknown = new Set(settings.inputs.map(systemStreamName).filter((name) => !previous.baseCounts.has(name)));
  const inferred = unknown.size === 0 ? new Map<string, number>() : inferBases(previous.rows(), settings.grouper, unknown);
  const rules = settings.inputs.map((s, i) => {
    const name = systemStreamName(s);
    return slotRule(job, i, previous.baseCounts.get(name) ?? inferred.get(name));
  });
  return groupFlat({
    grouper: settings.grouper,
    elasticityFactor: settings.elasticityFactor,
    streams: settings.inputs,
    counts: counts as number[],
    rules,
    broadcast: settings.broadcast,
    processors: [...processors.keys()],
    ...(options.engine !== undefined ? { engine: options.engine } : {}),
  });
}

/** Input stream i's slot rule from its known base (undefined: none), reported. */
function slotRule(job: MapperJob, i: number, known: number | undefined): SlotRule {
  const { settings, streams, options } = job;
  const name = systemStreamName(settings.inputs[i]!);
  const c = job.counts[i]!;
  // A SEP-5 `...WithFixedTaskNum` grouper asks for a fixed task set outright, stateful or not.
  const fixed = settings.stateful || settings.fixedTaskNum;
  if (!settings.expansionEnabled || !fixed || known === undefined) {
    if (known === undefined) streams.add(i, 'new', c, `first plan for this stream: grouped as is, base ${c} recorded`);
    else if (!settings.expansionEnabled) streams.add(i, 'rebased', c, `${KEYS.expansionEnabled} = false: grouped as is, base now ${c}`);
    else streams.add(i, 'rebased', c, `stateless job (no persistent store): grouped as is, base now ${c}`);
    return { kind: 'identity' };
  }
  if (c === known) {
    streams.add(i, 'unchanged', known, `partition count equals base ${known}`);
    return { kind: 'identity' };
  }
  if (c % known === 0) {
    streams.add(i, 'folded', known, `${c} is a multiple of base ${known}: partition p joins the task of partition p mod ${known}, every key stays on its task`);
    return { kind: 'fold', base: known };
  }
  const a = analyzeExpansion(known, c);
  const share = `${a.moved.numerator}/${a.moved.denominator} of keys (${formatPercent(a.movedShare)}) would change task (1 - gcd(${known}, ${c})/${known})`;
  if (!options.allowKeyMovement) {
    throw new AssignorError(
      'E_KEY_MOVEMENT',
      `cannot change ${name} from base ${known} to ${c} partitions without moving keys: ${share}; partition counts that keep every key: ${a.nearestSafe.join(' or ')}. Set allowKeyMovement (--allow-key-movement) to accept the movement`,
      `partitions.${name}`,
    );
  }
  const rule: SlotRule = { kind: 'table', base: known, slotOf: reassignWithKeyMovement(known, c).slotOf };
  streams.add(i, 'key-movement', known, `allowKeyMovement: ${c} is not a multiple of base ${known}; ${share.replace('would change', 'changed')}`, { movedShare: a.movedShare });
  return rule;
}

/** Per task, its position when tasks are listed container by container (containers in order, tasks ascending). */
function containerOrder(a: ContainerAssignment): Int32Array {
  const { ids, containerOf } = a;
  const start = new Int32Array(ids.length + 1);
  for (let t = 0; t < containerOf.length; t++) start[containerOf[t]! + 1]!++;
  for (let c = 0; c < ids.length; c++) start[c + 1]! += start[c]!;
  const out = new Int32Array(containerOf.length);
  for (let t = 0; t < containerOf.length; t++) out[t] = start[containerOf[t]!]!++;
  return out;
}

/**
 * Samza's own texts for an empty job or a bad container count carry no location; add the
 * setting to look at: the inputs for "no tasks", else `containerPath`.
 */
function located<T>(f: () => T, containerPath: string): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof SamzaError && e.path === undefined && (e.code === 'E_SAMZA_NO_TASKS' || e.code === 'E_SAMZA_CONTAINERS')) {
      throw new SamzaError(e.code, e.samzaType, e.message, e.code === 'E_SAMZA_NO_TASKS' ? KEYS.inputs : containerPath, e.cause);
    }
    throw e;
  }
}

/**
 * The largest plans computed. Past these the process would run out of memory
 * (a crash after minutes) instead of failing: (task, SSP) memberships, standby
 * copies included, per mapper (both work on flat rows), and tasks, standby
 * copies included. Measured: 10 million single-SSP tasks plan in about 2 GB.
 */
export const PLAN_LIMITS = { memberships: { base: 2 ** 25, samza: 2 ** 25 }, tasks: 2 ** 24 } as const;

/** Refuses, before any allocation, a job whose plan would exceed PLAN_LIMITS; the path names the setting that multiplies. */
function checkPlanSize(settings: JobSettings, counts: readonly number[], processorCount: number, processorsPath: string, mapper: MapperMode): void {
  const F = settings.elasticityFactor;
  const R = settings.replicationFactor;
  const b = settings.broadcast.length;
  let ssps = 0;
  let largest = 0;
  for (const c of counts) {
    ssps += c;
    largest = Math.max(largest, c);
  }
  const allSsp = settings.grouper === 'AllSspToSingleTask';
  const rows = ssps * (allSsp ? processorCount : F);
  // Upper bounds: folding only merges tasks.
  const rawTasks = allSsp ? 1 : settings.grouper === 'GroupByPartition' ? largest : ssps;
  const tasks = rawTasks * (allSsp ? processorCount : F);
  const what =
    `${ssps} input SSPs` +
    (allSsp ? ` in each of ${processorCount} processors' tasks` : F > 1 ? ` x elasticity factor ${F}` : '') +
    (b > 0 ? `, plus ${b} broadcast SSPs in each of up to ${tasks} tasks` : '') +
    (R > 1 ? `, x replication factor ${R}` : '');
  const multiplier = allSsp ? processorsPath : KEYS.elasticityFactor;
  const max = PLAN_LIMITS.tasks;
  if (tasks * R > max) {
    const path = R > 1 && tasks <= max ? KEYS.replicationFactor : tasks > rawTasks && rawTasks <= max ? multiplier : 'partitions';
    throw new AssignorError('E_SAMZA_TOO_LARGE', `this job would have up to ${tasks * R} tasks (${what}); a plan can have at most ${max}`, path);
  }
  const limit = PLAN_LIMITS.memberships[mapper];
  const active = rows + tasks * b;
  if (active * R > limit) {
    const path = R > 1 && active <= limit ? KEYS.replicationFactor : b > 0 && rows <= limit ? KEYS.broadcastInputs : rows > ssps && ssps <= limit ? multiplier : 'partitions';
    throw new AssignorError('E_SAMZA_TOO_LARGE', `this job would hold ${active * R} (task, SSP) memberships (${what}); the ${mapper} mapper plans at most ${limit}`, path);
  }
}

function groupTasks(
  grouping: Grouping,
  settings: JobSettings,
  previous: Pick<Previous, 'taskContainer' | 'taskModes'>,
  processors: Map<string, string>,
  config: SamzaConfig,
): { assignment: ContainerAssignment; note?: string } {
  // Only the host-affinity paths read the previous layout (at a million tasks, building it is not free).
  const previousActive = (): Map<string, string> => {
    const out = new Map<string, string>();
    for (const [t, c] of previous.taskContainer) if ((previous.taskModes.get(t) ?? 'Active') === 'Active') out.set(t, c);
    return out;
  };
  // The names are read only where a grouper needs them (a byte column makes its strings then).
  const tasks = (): string[] => grouping.tasks;
  switch (settings.taskGrouper) {
    case 'GroupByContainerCount': {
      if (!settings.hostAffinity) {
        // Names the planner made as bytes are sorted and distinct as made: no name is read.
        if (namesAreBytes(grouping)) return { assignment: groupByContainerCountSorted(taskNames(grouping).length, settings.containerCount) };
        return { assignment: groupByContainerCount(tasks(), settings.containerCount) };
      }
      const r = balanceByContainerCount(tasks(), settings.containerCount, previousActive());
      return { assignment: r, note: r.path === 'plain' ? `balance path fell back to round-robin: ${r.reason}` : r.path === 'reuse' ? 'balance path: previous layout reused' : 'balance path: surplus tasks moved to other containers' };
    }
    case 'GroupByContainerIds': {
      if (!settings.hostAffinity) return { assignment: groupByContainerIds(tasks(), [...processors.keys()]) };
      const taskLocality = new Map<string, string>();
      for (const [t, c] of previousActive()) if (processors.has(c)) taskLocality.set(t, processors.get(c)!);
      return { assignment: groupByContainerIdsWithLocality(tasks(), processors, taskLocality) };
    }
    case 'SingleContainer':
      return { assignment: singleContainer(tasks(), config.get(KEYS.processorId) ?? '0') };
  }
}
