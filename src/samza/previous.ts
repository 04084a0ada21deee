// The previous task -> SSPs assignment (Samza's previousTaskToSSPAssignment) in
// flat form: one row per (task, SSP) occurrence in typed arrays, read once from
// the caller's Map, so the planners never walk millions of SSP objects twice.
import { AssignorError, describe } from '../errors.js';
import { partitionTaskName } from './groupers.js';
import { sspToString, ssp, systemStreamId, systemStreamName, type SSP, type SspInput, type SystemStream } from './model.js';
import { entriesOf, type MapInput } from './inputs.js';
import type { Grouping } from './grouping.js';
import { INT32_MAX } from '../basics.js';

export interface PreviousRows {
  /** Previous task names, in the order given. */
  tasks: string[];
  /** Distinct streams of the rows, in order of first appearance. */
  streams: SystemStream[];
  task: Int32Array;
  stream: Int32Array;
  partition: Int32Array;
  /** null when every row has key bucket -1. */
  bucket: Int32Array | null;
}


/** Flattens task -> SSP lists; a partition must be an int32 >= 0 and a key bucket an int32 >= -1 (missing: -1). */
export function previousRows(taskToSsps: MapInput<readonly SspInput[]>, path = 'previous.taskToSsps'): PreviousRows {
  const tasks: string[] = [];
  let n = 0;
  for (const [t, list] of entriesOf(taskToSsps, path)) {
    if (!Array.isArray(list)) throw new AssignorError('E_SAMZA_PREVIOUS', `previous task ${JSON.stringify(t)} must list its SSPs in an array, got ${describe(list)}`, `${path}[${JSON.stringify(t)}]`);
    tasks.push(t);
    n += list.length;
  }
  const task = new Int32Array(n);
  const stream = new Int32Array(n);
  const partition = new Int32Array(n);
  let bucket: Int32Array | null = null;
  const streams: SystemStream[] = [];
  const bySystem = new Map<string, Map<string, number>>();
  const where = (t: string, k: number): string => `${path}[${JSON.stringify(t)}][${k}]`;
  let last: SystemStream | undefined;
  let lastIndex = -1;
  let i = 0;
  let ti = 0;
  for (const [t, list] of entriesOf(taskToSsps, path)) {
    for (let k = 0; k < list.length; k++) {
      const s = list[k]!;
      if (typeof s !== 'object' || s === null) throw new AssignorError('E_SAMZA_PREVIOUS', `previous task ${JSON.stringify(t)} lists ${describe(s)} where an SSP belongs`, where(t, k));
      const p = s.partition;
      if (!Number.isInteger(p) || p < 0 || p > INT32_MAX) {
        throw new AssignorError('E_SAMZA_PREVIOUS', `previous task ${JSON.stringify(t)} lists an SSP with partition ${describe(p)}: expected an integer in [0, ${INT32_MAX}]`, `${where(t, k)}.partition`);
      }
      const b = s.keyBucket ?? -1;
      if (b !== -1) {
        if (!Number.isInteger(b) || b < -1 || b > INT32_MAX) {
          throw new AssignorError('E_SAMZA_PREVIOUS', `previous task ${JSON.stringify(t)} lists an SSP with key bucket ${describe(b)}: expected an integer >= -1`, `${where(t, k)}.keyBucket`);
        }
        if (bucket === null) bucket = new Int32Array(n).fill(-1);
        bucket[i] = b;
      }
      if (last === undefined || s.stream !== last.stream || s.system !== last.system) {
        // Lists usually name the streams in the same order in every task: try the next one before the Maps.
        const next = streams[lastIndex + 1];
        if (next !== undefined && next.stream === s.stream && next.system === s.system) {
          lastIndex++;
        } else {
          if (typeof s.system !== 'string' || typeof s.stream !== 'string') {
            throw new AssignorError('E_SAMZA_PREVIOUS', `previous task ${JSON.stringify(t)} lists an SSP without a system and stream name`, where(t, k));
          }
          let byStream = bySystem.get(s.system);
          if (byStream === undefined) bySystem.set(s.system, (byStream = new Map()));
          let idx = byStream.get(s.stream);
          if (idx === undefined) {
            idx = streams.length;
            byStream.set(s.stream, idx);
            streams.push({ system: s.system, stream: s.stream });
          }
          lastIndex = idx;
        }
        last = streams[lastIndex]!;
      }
      task[i] = ti;
      stream[i] = lastIndex;
      partition[i] = p;
      i++;
    }
    ti++;
  }
  return { tasks, streams, task, stream, partition, bucket };
}

/** Distinct partitions per stream name (`system.stream`) in the previous assignment. */
export function previousPartitionCounts(prev: PreviousRows): Map<string, number> {
  const names = prev.streams.map(systemStreamName);
  const nameIndex = new Map<string, number>();
  const nameOf = Int32Array.from(names, (n) => {
    let k = nameIndex.get(n);
    if (k === undefined) nameIndex.set(n, (k = nameIndex.size));
    return k;
  });
  const K = nameIndex.size;
  const top = new Float64Array(K);
  for (let i = 0; i < prev.task.length; i++) {
    const k = nameOf[prev.stream[i]!]!;
    if (prev.partition[i]! + 1 > top[k]!) top[k] = prev.partition[i]! + 1;
  }
  // One bit per (stream name, partition) up to the largest partition seen, each name's bits starting
  // on a word: rows come task by task, so the marks jump between streams, and bits keep them in cache.
  const startWord = new Float64Array(K + 1);
  for (let k = 0; k < K; k++) startWord[k + 1] = startWord[k]! + Math.ceil(top[k]! / 32);
  const counts = new Int32Array(K);
  if (startWord[K]! <= 2 ** 24) {
    const bits = new Int32Array(startWord[K]!);
    const from = Int32Array.from(nameOf, (k) => startWord[k]! * 32);
    for (let i = 0; i < prev.task.length; i++) {
      const at = from[prev.stream[i]!]! + prev.partition[i]!;
      bits[at >>> 5]! |= 1 << (at & 31);
    }
    for (let k = 0; k < K; k++) {
      let c = 0;
      for (let w = startWord[k]!; w < startWord[k + 1]!; w++) c += popcount(bits[w]!);
      counts[k] = c;
    }
  } else {
    // Sparse partition ids (a few huge ones): Sets instead of a bit per possible partition.
    const sets = Array.from(top, () => new Set<number>());
    for (let i = 0; i < prev.task.length; i++) sets[nameOf[prev.stream[i]!]!]!.add(prev.partition[i]!);
    sets.forEach((set, k) => (counts[k] = set.size));
  }
  return new Map([...nameIndex].map(([name, k]) => [name, counts[k]!]));
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/**
 * A store written without base counts (by Samza, or the samza mapper): the base
 * of a stream is k when partitions 0..k-1 each still own the task named after
 * them (the tasks first created), else its number of distinct partitions.
 * Returns the base of every stream name that has rows.
 */
export function inferBases(prev: PreviousRows, grouper: 'GroupByPartition' | 'GroupBySystemStreamPartition' | 'AllSspToSingleTask', wanted: ReadonlySet<string>): Map<string, number> {
  const names = prev.streams.map(systemStreamName);
  const own = new Map<string, Set<number>>();
  const all = new Map<string, Set<number>>();
  for (const name of new Set(names)) {
    if (!wanted.has(name)) continue;
    own.set(name, new Set());
    all.set(name, new Set());
  }
  for (let i = 0; i < prev.task.length; i++) {
    const si = prev.stream[i]!;
    const name = names[si]!;
    const allSet = all.get(name);
    if (allSet === undefined) continue;
    const p = prev.partition[i]!;
    allSet.add(p);
    const b = prev.bucket === null ? -1 : prev.bucket[i]!;
    const s = prev.streams[si]!;
    const ownName = grouper === 'GroupBySystemStreamPartition' ? sspToString(ssp(s.system, s.stream, p, b)) : partitionTaskName(p, b);
    if (prev.tasks[prev.task[i]!] === ownName) own.get(name)!.add(p);
  }
  const out = new Map<string, number>();
  for (const [name, allSet] of all) {
    if (allSet.size === 0) continue;
    const ownSet = own.get(name)!;
    let k = 0;
    while (ownSet.has(k)) k++;
    out.set(name, k > 0 && k === ownSet.size ? k : allSet.size);
  }
  return out;
}

/** True for the flat form (a plan or store can hand it over without SSP objects). */
export function isPreviousRows(x: unknown): x is PreviousRows {
  return typeof x === 'object' && x !== null && !(x instanceof Map) && (x as PreviousRows).task instanceof Int32Array;
}

/**
 * A plan's active grouping as the next plan's previous assignment, in flat form:
 * what the store would hand back after persisting it (every-task SSPs listed
 * under each task, as Samza stores broadcast SSPs).
 */
export function previousRowsOfGrouping(g: Grouping): PreviousRows {
  const T = g.tasks.length;
  const rows = g.stream.length;
  const n = rows + T * g.everyTask.length;
  const streams = [...g.streams];
  const index = new Map<string, number>();
  streams.forEach((s, i) => index.set(systemStreamId(s), i));
  const everyStream = g.everyTask.map((s) => {
    let i = index.get(systemStreamId(s));
    if (i === undefined) {
      index.set(systemStreamId(s), (i = streams.length));
      streams.push({ system: s.system, stream: s.stream });
    }
    return i;
  });
  const task = new Int32Array(n);
  const stream = new Int32Array(n);
  const partition = new Int32Array(n);
  const anyBucket = g.bucket !== null || g.everyTask.some((s) => s.keyBucket !== -1);
  const bucket = anyBucket ? new Int32Array(n).fill(-1) : null;
  let r = 0;
  for (let t = 0; t < T; t++) {
    for (let k = g.taskStart[t]!; k < g.taskStart[t + 1]!; k++, r++) {
      const i = g.order[k]!;
      task[r] = t;
      stream[r] = g.stream[i]!;
      partition[r] = g.partition[i]!;
      if (bucket !== null && g.bucket !== null) bucket[r] = g.bucket[i]!;
    }
    g.everyTask.forEach((s, j) => {
      task[r] = t;
      stream[r] = everyStream[j]!;
      partition[r] = s.partition;
      if (bucket !== null) bucket[r] = s.keyBucket;
      r++;
    });
  }
  return { tasks: [...g.tasks], streams, task, stream, partition, bucket };
}
