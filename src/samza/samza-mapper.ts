// The `samza` mapper mode on flat rows: Samza's raw grouper, then its
// SSPGrouperProxy with the HashSystemStreamPartitionMapper, run by the samza
// kernel (WASM by default). Same results and errors as the object-based
// sspGrouperProxy (samza-proxy.ts), which stays the readable statement of the
// rules; this path plans 10 million SSPs without an object per SSP.
import { loadKernels, EVERY_TASK, FAIL_NOT_MULTIPLE, type EngineChoice, type SamzaProxyInput } from '../engine/kernels.js';
import { SamzaError, MSG } from './errors.js';
import { KEYS, type JobSettings } from './config.js';
import { allSspTaskName } from './groupers.js';
import { groupFlat, groupRows, inputRows, type FlatGroupInput, type SlotRule } from './flat-grouping.js';
import { fromRows, withNames, type Grouping, type TaskSspRows } from './grouping.js';
import { ssp, systemStreamId } from './model.js';
import type { PreviousRows } from './previous.js';
import { byCodeUnits } from '../basics.js';

export interface SamzaMapperInput {
  settings: JobSettings;
  /** Partition count of each input stream (settings.inputs order). */
  counts: readonly number[];
  /** The processor ids processor.list names (AllSspToSingleTask), split as Samza splits it (javaSplit). */
  processors: readonly string[];
  previous: PreviousRows;
  engine?: EngineChoice;
}

export interface SamzaMapperResult {
  grouping: Grouping;
  /** Why the raw grouping was returned unchanged, when it was. */
  bypass?: 'disabled' | 'stateless' | 'first-run';
}

/** JobModelCalculator's grouping step: the raw grouper, through the proxy when expansion is enabled. */
export function samzaGrouping(input: SamzaMapperInput): SamzaMapperResult {
  const { settings } = input;
  const flat: FlatGroupInput = {
    grouper: settings.grouper,
    elasticityFactor: settings.elasticityFactor,
    streams: settings.inputs,
    counts: input.counts,
    rules: settings.inputs.map((): SlotRule => ({ kind: 'identity' })),
    broadcast: settings.broadcast,
    processors: [...input.processors],
    ...(input.engine !== undefined ? { engine: input.engine } : {}),
  };
  const allSsp = settings.grouper === 'AllSspToSingleTask';
  // The grouper's own errors come first: AllSspToSingleTask refuses broadcast streams and an empty input.
  if (allSsp && settings.broadcast.length > 0) throw new SamzaError('E_SAMZA_ALLSSP_BROADCAST', 'ConfigException', MSG.allSspBroadcast, KEYS.broadcastInputs);
  if (allSsp && input.processors.length === 0) throw new SamzaError('E_SAMZA_PROCESSORS', 'SamzaException', MSG.processorListEmpty, KEYS.processorList);
  const rawGrouping = (): Grouping => groupFlat(flat);
  // (No broadcast SSPs here, so the input is empty exactly when every count is 0.)
  if (allSsp && input.counts.every((c) => c === 0)) throw new SamzaError('E_SAMZA_NO_SSPS', 'SamzaException', MSG.noInputSsps, KEYS.inputs);
  if (!settings.expansionEnabled) return { grouping: rawGrouping(), bypass: 'disabled' };
  if (!settings.stateful) return { grouping: rawGrouping(), bypass: 'stateless' };
  if (input.previous.tasks.length === 0) return { grouping: rawGrouping(), bypass: 'first-run' };
  return { grouping: allSsp ? proxyAllSsp(input, flat) : proxyGrouped(input, flat) };
}

/** GroupByPartition / GroupBySystemStreamPartition through the proxy. */
function proxyGrouped(input: SamzaMapperInput, flat: FlatGroupInput): Grouping {
  const raw = groupRows(flat);
  const T = raw.tasks.length;
  // Occurrences per stream: its rows (partitions not broadcast, times the factor), plus each broadcast SSP in every task.
  const { settings } = input;
  const broadcastStream = streamIndices(input, settings.broadcast);
  const curCount = Int32Array.from(input.counts);
  settings.broadcast.forEach((b, j) => {
    const s = broadcastStream[j]!;
    if (s >= 0 && b.partition < input.counts[s]!) curCount[s]!--;
  });
  for (let s = 0; s < curCount.length; s++) curCount[s]! *= settings.elasticityFactor;
  if (T > 0) for (const s of broadcastStream) if (s >= 0) curCount[s]! += T;
  const task = runProxy(input, raw.tasks, { stream: raw.stream, partition: raw.partition, bucket: raw.bucket, rowTask: raw.rowTask }, curCount);
  const g = fromRows(raw.streams, raw.tasks, { ...raw, rowTask: task }, raw.everyTask);
  // Tasks left without rows disappear, unless broadcast SSPs keep them non-empty.
  return raw.everyTask.length === 0 ? dropEmptyTasks(g) : g;
}

/** AllSspToSingleTask through the proxy: each SSP stays in every task, or moves to its one previous task. */
function proxyAllSsp(input: SamzaMapperInput, flat: FlatGroupInput): Grouping {
  const { stream, partition } = inputRows(flat);
  const names = [...new Set(input.processors.map(allSspTaskName))].sort(byCodeUnits);
  const T = names.length;
  const curCount = rowsPerStream(stream, input.counts.length);
  for (let s = 0; s < curCount.length; s++) curCount[s]! *= T;
  const rowTask = new Int32Array(stream.length).fill(EVERY_TASK);
  const task = runProxy(input, names, { stream, partition, bucket: null, rowTask }, curCount);
  let rows = 0;
  for (let i = 0; i < task.length; i++) rows += task[i] === EVERY_TASK ? T : 1;
  const outTask = new Int32Array(rows);
  const outStream = new Int32Array(rows);
  const outPartition = new Int32Array(rows);
  for (let i = 0, r = 0; i < task.length; i++) {
    const t = task[i]!;
    const from = t === EVERY_TASK ? 0 : t;
    const to = t === EVERY_TASK ? T : t + 1;
    for (let k = from; k < to; k++, r++) {
      outTask[r] = k;
      outStream[r] = stream[i]!;
      outPartition[r] = partition[i]!;
    }
  }
  return dropEmptyTasks(fromRows(input.settings.inputs, names, { rowTask: outTask, stream: outStream, partition: outPartition, bucket: null }));
}

/** Runs the kernel and turns a failure into Samza's exception; returns each row's task. */
function runProxy(input: SamzaMapperInput, tasks: readonly string[], rows: TaskSspRows, curCount: Int32Array): Int32Array {
  const { settings, previous } = input;
  const S = settings.inputs.length;
  const F = settings.elasticityFactor;
  const width = F > 1 ? F + 1 : 1;
  const limit = Int32Array.from(input.counts);
  const offset = new Int32Array(S + 1);
  for (let s = 0; s < S; s++) offset[s + 1] = offset[s]! + limit[s]! * width;

  const broadcastStream = streamIndices(input, settings.broadcast);
  const exclude: number[] = [];
  settings.broadcast.forEach((b, j) => {
    const s = broadcastStream[j]!;
    if (s >= 0 && b.partition < limit[s]!) exclude.push(offset[s]! + b.partition * width);
  });

  const current = new Map<string, number>();
  tasks.forEach((t, i) => current.set(t, i));
  const prevToCur = Int32Array.from(previous.tasks, (t) => current.get(t) ?? -1);

  const kernelInput: SamzaProxyInput = {
    prevStream: previous.stream,
    prevStreamToCur: streamIndices(input, previous.streams),
    prevPartition: previous.partition,
    prevBucket: previous.bucket,
    prevTask: previous.task,
    prevRank: null,
    prevToCur,
    limit,
    offset,
    width,
    curCount,
    exclude: Int32Array.from(exclude),
    ...rows,
    nTasks: tasks.length,
  };
  const kernels = loadKernels(input.engine !== undefined ? { engine: input.engine } : {});
  let r = kernels.samzaProxy(kernelInput);
  // An SSP listed under several previous tasks: Samza keeps the last one iterated; we iterate in name order.
  if (r.needsRanks) r = kernels.samzaProxy({ ...kernelInput, prevRank: javaRanks(previous.tasks) });
  if (r.needsRanks) throw new Error('samza kernel asked for ranks twice');
  if (r.failedRow >= 0) {
    const i = r.failedRow;
    const s = rows.stream[i]!;
    let cause: SamzaError;
    if (r.failKind === FAIL_NOT_MULTIPLE) {
      cause = new SamzaError('E_SAMZA_NOT_MULTIPLE', 'IllegalArgumentException', MSG.notMultiple(curCount[s]!, r.prevCount[s]!));
    } else {
      const st = settings.inputs[s]!;
      const current = ssp(st.system, st.stream, rows.partition[i]!, rows.bucket === null ? -1 : rows.bucket[i]!);
      // Java dereferences a missing group here: NullPointerException, wrapped below.
      cause = new SamzaError('E_SAMZA_NULL', 'NullPointerException', `previous task ${JSON.stringify(previous.tasks[r.failPrevTask])} of ${JSON.stringify(current)} is not a task of the current grouping`);
    }
    throw new SamzaError('E_SAMZA_PROXY', 'SamzaException', MSG.proxy, undefined, cause);
  }
  return r.task;
}

/** Index in settings.inputs of each stream (by system and stream), or -1. */
function streamIndices(input: SamzaMapperInput, streams: ReadonlyArray<{ system: string; stream: string }>): Int32Array {
  const index = new Map<string, number>();
  input.settings.inputs.forEach((s, i) => index.set(systemStreamId(s), i));
  return Int32Array.from(streams, (s) => index.get(systemStreamId(s)) ?? -1);
}

function rowsPerStream(stream: Int32Array, S: number): Int32Array {
  const out = new Int32Array(S);
  for (let i = 0; i < stream.length; i++) out[stream[i]!]!++;
  return out;
}

/** The grouping without its tasks that have no rows (rows keep their positions). */
function dropEmptyTasks(g: Grouping): Grouping {
  const tasks: string[] = [];
  const starts: number[] = [];
  for (let t = 0; t < g.tasks.length; t++) {
    if (g.taskStart[t + 1]! === g.taskStart[t]!) continue;
    tasks.push(g.tasks[t]!);
    starts.push(g.taskStart[t]!);
  }
  if (tasks.length === g.tasks.length) return g;
  starts.push(g.taskStart[g.tasks.length]!);
  const { streams, order, stream, partition, bucket, everyTask } = g;
  return withNames({ streams, taskStart: Int32Array.from(starts), order, stream, partition, bucket, everyTask }, tasks);
}

/** rank[i] = position of names[i] in Java String order. */
function javaRanks(names: readonly string[]): Int32Array {
  const order = Array.from(names.keys()).sort((a, b) => byCodeUnits(names[a]!, names[b]!));
  const rank = new Int32Array(names.length);
  order.forEach((idx, r) => (rank[idx] = r));
  return rank;
}
