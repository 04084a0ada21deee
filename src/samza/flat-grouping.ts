// The raw groupers and the base-mapper fold on flat arrays. Each input SSP is
// (stream index, partition); its "slot" is the partition whose task it joins:
// itself (raw), p mod base (fold, run by the WASM fold kernel), or a table
// (allowKeyMovement). Task names are built once per task, never per SSP.
import { foldPartitions } from '../expansion/index.js';
import type { EngineChoice } from '../engine/kernels.js';
import { SamzaError, MSG } from './errors.js';
import type { SspGrouperKind } from './config.js';
import { allSspTaskName, partitionTaskName, partitionTaskNameColumn } from './groupers.js';
import { fromRows, type Grouping } from './grouping.js';
import type { Texts } from '../columns/texts.js';
import { decimalStringOrder } from './java-order.js';
import { sspToString, ssp, systemStreamId, type SSP, type SystemStream } from './model.js';
import { byCodeUnits } from '../basics.js';

export type SlotRule =
  | { kind: 'identity' }
  | { kind: 'fold'; base: number }
  | { kind: 'table'; base: number; slotOf: Int32Array };

export interface FlatGroupInput {
  grouper: SspGrouperKind;
  elasticityFactor: number;
  /** Input streams sorted by (system, stream). */
  streams: SystemStream[];
  /** Partition count of each stream. */
  counts: ArrayLike<number>;
  /** How each stream's partitions map to slots. */
  rules: SlotRule[];
  broadcast: SSP[];
  /** Processor ids (AllSspToSingleTask). */
  processors: string[];
  engine?: EngineChoice;
}

function width(rule: SlotRule, count: number): number {
  return rule.kind === 'identity' ? count : rule.base;
}

/** Names sorted in Java order; returns rank[i] = position of names[i]. */
function rankNames(names: string[]): { sorted: string[]; rank: Int32Array } {
  const order = Array.from(names.keys()).sort((a, b) => byCodeUnits(names[a]!, names[b]!));
  const rank = new Int32Array(names.length);
  order.forEach((idx, r) => (rank[idx] = r));
  return { sorted: order.map((i) => names[i]!), rank };
}

/** A grouper's output before the sort by task: rows in SSP order, each with its task. */
export interface GroupRows<Names extends string[] | Texts = string[]> {
  streams: SystemStream[];
  /** Task names sorted in Java String order. */
  tasks: Names;
  rowTask: Int32Array;
  stream: Int32Array;
  partition: Int32Array;
  bucket: Int32Array | null;
  everyTask: SSP[];
}

export function groupFlat(input: FlatGroupInput): Grouping {
  if (input.grouper === 'AllSspToSingleTask') {
    const { stream, partition } = inputRows(input);
    return allSspToSingleTask(input, stream, partition);
  }
  const r = groupRows(input, true);
  return fromRows(r.streams, r.tasks, r, r.everyTask);
}

/** Broadcast SSPs that are also inputs are not grouped (they join every task instead): stream index -> partitions. */
function skippedPartitions(input: FlatGroupInput): Map<number, Set<number>> {
  const streamIndex = new Map<string, number>();
  input.streams.forEach((s, i) => streamIndex.set(systemStreamId(s), i));
  const skip = new Map<number, Set<number>>();
  for (const b of input.broadcast) {
    const si = streamIndex.get(systemStreamId(b));
    if (si === undefined || b.partition >= input.counts[si]!) continue;
    let set = skip.get(si);
    if (set === undefined) skip.set(si, (set = new Set()));
    set.add(b.partition);
  }
  return skip;
}

/** The input SSPs as (stream, partition) rows in SSP order, broadcast ones left out. */
export function inputRows(input: FlatGroupInput): { stream: Int32Array; partition: Int32Array; skip: Map<number, Set<number>> } {
  const { counts } = input;
  const S = input.streams.length;
  const skip = skippedPartitions(input);
  let n = 0;
  for (let s = 0; s < S; s++) n += counts[s]! - (skip.get(s)?.size ?? 0);
  const stream = new Int32Array(n);
  const partition = new Int32Array(n);
  let i = 0;
  for (let s = 0; s < S; s++) {
    const skipped = skip.get(s);
    const c = counts[s]!;
    if (skipped === undefined) {
      stream.fill(s, i, i + c);
      for (let p = 0; p < c; p++) partition[i + p] = p;
      i += c;
    } else {
      for (let p = 0; p < c; p++) if (!skipped.has(p)) { stream[i] = s; partition[i++] = p; }
    }
  }
  return { stream, partition, skip };
}

/**
 * GroupByPartition / GroupBySystemStreamPartition (with the base mapper's slot rules) as rows.
 * `bytes`: GroupByPartition's names may come as one byte column (see taskNames in grouping.ts).
 */
export function groupRows(input: FlatGroupInput): GroupRows;
export function groupRows(input: FlatGroupInput, bytes: boolean): GroupRows<string[] | Texts>;
export function groupRows(input: FlatGroupInput, bytes = false): GroupRows<string[] | Texts> {
  const { stream, partition, skip } = inputRows(input);
  const slot = slotsOf(input, stream, partition);
  const keys = taskKeys(input, skip, slot);
  const { sorted, taskOfKey } = keys.byPartition ? partitionTasks(input.elasticityFactor, keys.used, bytes) : sspTasks(input, keys);
  const rows = taskRows(input.elasticityFactor, keys, taskOfKey, { stream, partition, slot });
  // No task exists for broadcast SSPs alone, so with no rows there are no tasks to join.
  return { streams: input.streams, tasks: sorted, ...rows, everyTask: sorted.length === 0 ? [] : input.broadcast };
}

/** Per input row, its slot: p mod base[stream] (identity streams use their own count, so p mod C = p), or the rule's table. */
function slotsOf(input: FlatGroupInput, stream: Int32Array, partition: Int32Array): Int32Array {
  const { counts, rules } = input;
  const S = input.streams.length;
  const n = stream.length;
  const bases = new Int32Array(S);
  for (let s = 0; s < S; s++) bases[s] = rules[s]!.kind === 'fold' ? (rules[s] as { base: number }).base : Math.max(1, counts[s]!);
  // Identity rules need no fold: p mod count = p for every p < count.
  const slot = rules.every((r) => r.kind === 'identity') ? partition.slice() : n === 0 ? new Int32Array(0) : foldPartitions(stream, partition, bases, { engine: input.engine });
  for (let r = 0; r < n; ) {
    const s = stream[r]!;
    let end = r;
    while (end < n && stream[end] === s) end++;
    const rule = rules[s]!;
    if (rule.kind === 'table') for (let k = r; k < end; k++) slot[k] = rule.slotOf[partition[k]!]!;
    r = end;
  }
  return slot;
}

/** The task keys, one per (slot, bucket): shared across streams for GroupByPartition, per stream (from offset[s]) otherwise. */
interface TaskKeys {
  byPartition: boolean;
  offset: Int32Array;
  keys: number;
  /** 1 where a key's task exists. */
  used: Uint8Array;
}

function taskKeys(input: FlatGroupInput, skip: Map<number, Set<number>>, slot: Int32Array): TaskKeys {
  const { counts, rules } = input;
  const F = input.elasticityFactor;
  const S = input.streams.length;
  const byPartition = input.grouper === 'GroupByPartition';
  const offset = new Int32Array(S + 1);
  let keys = 0;
  if (byPartition) {
    for (let s = 0; s < S; s++) keys = Math.max(keys, width(rules[s]!, counts[s]!) * F);
  } else {
    for (let s = 0; s < S; s++) offset[s + 1] = offset[s]! + width(rules[s]!, counts[s]!) * F;
    keys = offset[S]!;
  }
  // Which task keys exist: whole ranges when a stream's slots are known to be 0..width-1, else marked row by row.
  const used = new Uint8Array(keys);
  for (let s = 0, r = 0; s < S; s++) {
    const rows = counts[s]! - (skip.get(s)?.size ?? 0);
    const rule = rules[s]!;
    const from = byPartition ? 0 : offset[s]!;
    if (rule.kind !== 'table' && !skip.has(s) && (rule.kind === 'identity' || counts[s]! >= rule.base)) {
      used.fill(1, from, from + width(rule, counts[s]!) * F);
    } else {
      for (let k = r; k < r + rows; k++) used.fill(1, from + slot[k]! * F, from + slot[k]! * F + F);
    }
    r += rows;
  }
  return { byPartition, offset, keys, used };
}

/** GroupByPartition's tasks, "Partition <p>[ <bucket>]": made in Java order directly, from the decimal order of p and bucket. */
function partitionTasks(F: number, used: Uint8Array, bytes: boolean): { sorted: string[] | Texts; taskOfKey: Int32Array } {
  const keys = used.length;
  const taskOfKey = new Int32Array(keys).fill(-1);
  const buckets = F === 1 ? null : decimalStringOrder(F);
  const nameP = new Int32Array(keys);
  const nameB = buckets === null ? null : new Int32Array(keys);
  let count = 0;
  for (const q of decimalStringOrder(keys / F)) {
    for (let j = 0; j < F; j++) {
      const b = buckets === null ? -1 : buckets[j]!;
      const k = q * F + (b === -1 ? 0 : b);
      if (used[k] === 0) continue;
      taskOfKey[k] = count;
      nameP[count] = q;
      if (nameB !== null) nameB[count] = b;
      count++;
    }
  }
  if (bytes) return { sorted: partitionTaskNameColumn(nameP, nameB, count), taskOfKey };
  const sorted = new Array<string>(count);
  for (let t = 0; t < count; t++) sorted[t] = partitionTaskName(nameP[t]!, nameB === null ? -1 : nameB[t]!);
  return { sorted, taskOfKey };
}

/** GroupBySystemStreamPartition's tasks: one per used key, named after its SSP, ranked in Java order. */
function sspTasks(input: FlatGroupInput, { offset, keys, used }: TaskKeys): { sorted: string[]; taskOfKey: Int32Array } {
  const F = input.elasticityFactor;
  const taskOfKey = new Int32Array(keys).fill(-1);
  const keyOfName: number[] = [];
  const names: string[] = [];
  for (let s = 0, k = 0; k < keys; k++) {
    while (offset[s + 1]! <= k) s++;
    if (used[k] === 0) continue;
    const st = input.streams[s]!;
    names.push(sspToString(ssp(st.system, st.stream, Math.floor((k - offset[s]!) / F), F === 1 ? -1 : k % F)));
    keyOfName.push(k);
  }
  const ranked = rankNames(names);
  keyOfName.forEach((k, idx) => (taskOfKey[k] = ranked.rank[idx]!));
  return { sorted: ranked.sorted, taskOfKey };
}

/** The grouping's rows: each input row's task (one row per key bucket when F > 1); input row r is (stream[r], partition[r]) with its slot. */
function taskRows(F: number, { byPartition, offset }: TaskKeys, taskOfKey: Int32Array, input: { stream: Int32Array; partition: Int32Array; slot: Int32Array }) {
  const { stream, partition, slot } = input;
  const n = stream.length;
  if (F === 1) {
    // The slot array becomes the row -> task array in place: no second 10M-entry array.
    const rowTask = slot;
    if (byPartition) for (let r = 0; r < n; r++) rowTask[r] = taskOfKey[slot[r]!]!;
    else for (let r = 0; r < n; r++) rowTask[r] = taskOfKey[offset[stream[r]!]! + slot[r]!]!;
    return { rowTask, stream, partition, bucket: null as Int32Array | null };
  }
  const rows = n * F;
  const rowTask = new Int32Array(rows);
  const rowStream = new Int32Array(rows);
  const rowPartition = new Int32Array(rows);
  const rowBucket = new Int32Array(rows);
  for (let r = 0; r < n; r++) {
    const base = (byPartition ? 0 : offset[stream[r]!]!) + slot[r]! * F;
    for (let b = 0; b < F; b++) {
      const o = r * F + b;
      rowTask[o] = taskOfKey[base + b]!;
      rowStream[o] = stream[r]!;
      rowPartition[o] = partition[r]!;
      rowBucket[o] = b;
    }
  }
  return { rowTask, stream: rowStream, partition: rowPartition, bucket: rowBucket as Int32Array | null };
}

function allSspToSingleTask(input: FlatGroupInput, stream: Int32Array, partition: Int32Array): Grouping {
  if (input.broadcast.length > 0) throw new SamzaError('E_SAMZA_ALLSSP_BROADCAST', 'ConfigException', MSG.allSspBroadcast, 'task.broadcast.inputs');
  if (stream.length === 0) throw new SamzaError('E_SAMZA_NO_SSPS', 'SamzaException', MSG.noInputSsps, 'task.inputs');
  const names = [...new Set(input.processors.map(allSspTaskName))].sort(byCodeUnits);
  const n = stream.length;
  const rowTask = new Int32Array(n * names.length);
  const rowStream = new Int32Array(n * names.length);
  const rowPartition = new Int32Array(n * names.length);
  names.forEach((_, t) => {
    rowTask.fill(t, t * n, (t + 1) * n);
    rowStream.set(stream, t * n);
    rowPartition.set(partition, t * n);
  });
  return fromRows(input.streams, names, { rowTask, stream: rowStream, partition: rowPartition, bucket: null });
}
