// Samza's SSPGrouperProxy with its HashSystemStreamPartitionMapper (the `samza`
// mapper mode) on flat rows. Pointer ABI: i32 arrays allocated by the TypeScript
// engine; arena memory is not zeroed, so every output is written in full here.
// The reference twin is src/engine/reference/samza.ts; the rules are spec §5-§6.
//
// A lookup table stands in for Samza's previous SSP -> task HashMap: the slot of
// SSP (stream s, partition p, key bucket b) is offset[s] + p (width 1, b = -1)
// or offset[s] + p * width + b + 1. Only partitions below the stream's current
// count can ever be looked up (a current SSP, or one the mapper derived from it),
// so the table covers exactly those.

/** Table entry of an SSP that no previous task held. */
const NONE: i32 = -1;
/** rowTask value of a row whose SSP is in every task (AllSspToSingleTask). */
export const EVERY_TASK: i32 = -2;
/** Return value of samzaPreviousTable: an SSP has two previous tasks and no ranks were given. */
export const NEEDS_RANKS: i32 = -2;
/** Failure kinds written by samzaRemap. */
export const FAIL_NOT_MULTIPLE: i32 = 1;
export const FAIL_NO_TASK: i32 = 2;

@inline function ld(base: usize, i: i32): i32 {
  return load<i32>(base + (<usize>i << 2));
}

@inline function st(base: usize, i: i32, v: i32): void {
  store<i32>(base + (<usize>i << 2), v);
}

/**
 * Fills `table` (tableLen entries) from the previous assignment and counts each
 * stream's previous (task, SSP) occurrences into prevCount (nStreams entries).
 * Row i: stream[i] (an index into streamToCur, which gives the current input
 * stream, or -1 for a stream that is no input now), partition[i],
 * bucket[i] (bucket 0: every row has key bucket -1), task[i].
 * An SSP held by several previous tasks keeps the highest-ranked one (Samza:
 * the last one iterated). Without ranks (rank 0) such an SSP returns NEEDS_RANKS.
 * Finally the `nExclude` slots in `exclude` (broadcast SSPs) are cleared.
 */
export function samzaPreviousTable(
  count: i32,
  stream: usize,
  streamToCur: usize,
  partition: usize,
  bucket: usize,
  task: usize,
  rank: usize,
  nStreams: i32,
  limit: usize,
  offset: usize,
  width: i32,
  table: usize,
  tableLen: i32,
  exclude: usize,
  nExclude: i32,
  prevCount: usize,
): i32 {
  for (let s = 0; s < nStreams; s++) st(prevCount, s, 0);
  for (let k = 0; k < tableLen; k++) st(table, k, NONE);
  for (let i = 0; i < count; i++) {
    const s = ld(streamToCur, ld(stream, i));
    if (s < 0) continue;
    st(prevCount, s, ld(prevCount, s) + 1);
    const p = ld(partition, i);
    if (p >= ld(limit, s)) continue;
    const b = bucket == 0 ? -1 : ld(bucket, i);
    let slot: i32;
    if (width == 1) {
      if (b != -1) continue;
      slot = ld(offset, s) + p;
    } else {
      if (b < -1 || b >= width - 1) continue;
      slot = ld(offset, s) + p * width + b + 1;
    }
    const t = ld(task, i);
    const held = ld(table, slot);
    if (held == NONE || held == t) {
      st(table, slot, t);
    } else if (rank == 0) {
      return NEEDS_RANKS;
    } else if (ld(rank, t) > ld(rank, held)) {
      st(table, slot, t);
    }
  }
  for (let j = 0; j < nExclude; j++) st(table, ld(exclude, j), NONE);
  return -1;
}

/**
 * Decides every current row's task as SSPGrouperProxy does. Row i (SSP order):
 * stream[i], partition[i], bucket[i] (bucket 0: all -1), rowTask[i] = its task
 * in the raw grouping, or EVERY_TASK. out[i] = its task after the proxy.
 * Per stream s with previous count P and current count C (occurrences): when
 * P > 0 and C != P the previous SSP is (s, p mod P, -1), and C must be a
 * multiple of P; otherwise it is the SSP itself. A previous task that is not a
 * current task (prevToCur -1) cannot take the SSP: Samza's NullPointerException.
 * Returns -1, or the failing row Samza meets first: its raw grouping lists tasks
 * in order of their first row, and each task's rows in row order (taskFirst is
 * nTasks entries of scratch). fail[0] = the failure kind, fail[1] = the previous
 * task (FAIL_NO_TASK).
 */
export function samzaRemap(
  count: i32,
  stream: usize,
  partition: usize,
  bucket: usize,
  rowTask: usize,
  nTasks: i32,
  prevCount: usize,
  curCount: usize,
  offset: usize,
  width: i32,
  table: usize,
  prevToCur: usize,
  out: usize,
  taskFirst: usize,
  fail: usize,
): i32 {
  let failed = 0;
  for (let i = 0; i < count; i++) {
    const t = ld(rowTask, i);
    st(out, i, t);
    const s = ld(stream, i);
    const prevN = ld(prevCount, s);
    const curN = ld(curCount, s);
    const p = ld(partition, i);
    let slot: i32;
    if (prevN > 0 && curN != prevN) {
      if (<u32>curN % <u32>prevN != 0) {
        failed++;
        continue;
      }
      slot = ld(offset, s) + <i32>(<u32>p % <u32>prevN) * width;
    } else {
      const b = bucket == 0 ? -1 : ld(bucket, i);
      slot = ld(offset, s) + (width == 1 ? p : p * width + b + 1);
    }
    const held = ld(table, slot);
    if (held == NONE) continue;
    const target = ld(prevToCur, held);
    if (target == t) continue;
    if (target < 0) {
      failed++;
      continue;
    }
    st(out, i, target);
  }
  if (failed == 0) return -1;
  return firstFailure(count, stream, partition, bucket, rowTask, nTasks, prevCount, curCount, offset, width, table, prevToCur, taskFirst, fail);
}

/** The failing row with the smallest (first row of its task, row); only run when something failed. */
function firstFailure(
  count: i32,
  stream: usize,
  partition: usize,
  bucket: usize,
  rowTask: usize,
  nTasks: i32,
  prevCount: usize,
  curCount: usize,
  offset: usize,
  width: i32,
  table: usize,
  prevToCur: usize,
  taskFirst: usize,
  fail: usize,
): i32 {
  for (let t = 0; t < nTasks; t++) st(taskFirst, t, -1);
  for (let i = 0; i < count; i++) {
    const t = ld(rowTask, i);
    if (t >= 0 && ld(taskFirst, t) < 0) st(taskFirst, t, i);
  }
  let best = -1;
  let bestKey = 0;
  for (let i = 0; i < count; i++) {
    const s = ld(stream, i);
    const prevN = ld(prevCount, s);
    const curN = ld(curCount, s);
    const p = ld(partition, i);
    let kind = 0;
    let held = NONE;
    if (prevN > 0 && curN != prevN) {
      if (<u32>curN % <u32>prevN != 0) kind = FAIL_NOT_MULTIPLE;
      else held = ld(table, ld(offset, s) + <i32>(<u32>p % <u32>prevN) * width);
    } else {
      const b = bucket == 0 ? -1 : ld(bucket, i);
      held = ld(table, ld(offset, s) + (width == 1 ? p : p * width + b + 1));
    }
    const t = ld(rowTask, i);
    if (kind == 0 && held != NONE) {
      const target = ld(prevToCur, held);
      if (target < 0 && target != t) kind = FAIL_NO_TASK;
    }
    if (kind == 0) continue;
    const key = t >= 0 ? ld(taskFirst, t) : 0;
    if (best < 0 || key < bestKey) {
      best = i;
      bestKey = key;
      st(fail, 0, kind);
      st(fail, 1, held);
    }
  }
  return best;
}
