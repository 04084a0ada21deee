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
/** Return value of samzaProxy: an SSP has two previous tasks and no ranks were given. */
export const NEEDS_RANKS: i32 = -2;
/** Failure kinds written to fail[0]. */
export const FAIL_NOT_MULTIPLE: i32 = 1;
export const FAIL_NO_TASK: i32 = 2;

@inline function ld(base: usize, i: i32): i32 {
  return load<i32>(base + (<usize>i << 2));
}

@inline function st(base: usize, i: i32, v: i32): void {
  store<i32>(base + (<usize>i << 2), v);
}

// The problem, from the header samzaProxy reads (SAMZA_HEADER of src/engine/abi.ts: byte offsets
// of i32 slots; an array pointer of 0 is a null array).
let prevRows: i32 = 0; // previous (task, SSP) occurrences
let prevStream: usize = 0; // per previous row: index into prevStreamToCur
let prevStreamToCur: usize = 0; // previous stream -> current input stream, or -1
let prevPartition: usize = 0;
let prevBucket: usize = 0; // 0: every previous row has key bucket -1
let prevTask: usize = 0; // per previous row: its previous task
let prevRank: usize = 0; // per previous task: rank in Java String order (0: no ranks)
let prevToCur: usize = 0; // previous task -> current task, or -1
let nStreams: i32 = 0;
let limit: usize = 0; // per stream: partitions the table covers
let offset: usize = 0; // per stream: first table slot; offset[S] = table size
let width: i32 = 1; // slots per partition
let curCount: usize = 0; // per stream: (task, SSP) occurrences in the raw grouping
let exclude: usize = 0; // table slots of broadcast SSPs
let nExclude: i32 = 0;
let rows: i32 = 0; // the raw grouping's rows, in SSP order
let stream: usize = 0;
let partition: usize = 0;
let bucket: usize = 0; // 0: every row has key bucket -1
let rowTask: usize = 0; // per row: its raw task, or EVERY_TASK
let nTasks: i32 = 0;
let table: usize = 0; // out: the previous SSP -> task table
let prevCount: usize = 0; // out: per stream, its previous (task, SSP) occurrences
let out: usize = 0; // out: per row, its task after the proxy
let taskFirst: usize = 0; // scratch: per task, its first row
let fail: usize = 0; // out: the failure kind and the previous task (FAIL_NO_TASK)

function readHeader(h: usize): void {
  prevRows = ld(h, 0);
  prevStream = <usize>ld(h, 1);
  prevStreamToCur = <usize>ld(h, 2);
  prevPartition = <usize>ld(h, 3);
  prevBucket = <usize>ld(h, 4);
  prevTask = <usize>ld(h, 5);
  prevRank = <usize>ld(h, 6);
  prevToCur = <usize>ld(h, 7);
  nStreams = ld(h, 8);
  limit = <usize>ld(h, 9);
  offset = <usize>ld(h, 10);
  width = ld(h, 11);
  curCount = <usize>ld(h, 12);
  exclude = <usize>ld(h, 13);
  nExclude = ld(h, 14);
  rows = ld(h, 15);
  stream = <usize>ld(h, 16);
  partition = <usize>ld(h, 17);
  bucket = <usize>ld(h, 18);
  rowTask = <usize>ld(h, 19);
  nTasks = ld(h, 20);
  table = <usize>ld(h, 21);
  prevCount = <usize>ld(h, 22);
  out = <usize>ld(h, 23);
  taskFirst = <usize>ld(h, 24);
  fail = <usize>ld(h, 25);
}

/**
 * SSPGrouperProxy on the problem in the header: builds the previous table, then decides every
 * row's task. Returns NEEDS_RANKS, -1, or the row Samza fails at first (see remap()).
 */
export function samzaProxy(header: usize): i32 {
  readHeader(header);
  if (!previousTable()) return NEEDS_RANKS;
  return remap();
}

/**
 * Fills the table from the previous assignment and counts each stream's previous (task, SSP)
 * occurrences into prevCount. Previous row i: prevStream[i] (through prevStreamToCur to the
 * current input stream, or -1 for a stream that is no input now), prevPartition[i],
 * prevBucket[i], prevTask[i]. An SSP held by several previous tasks keeps the highest-ranked one
 * (Samza: the last one iterated); without ranks such an SSP gives false. Finally the broadcast
 * SSPs' slots are cleared.
 */
function previousTable(): bool {
  // Locals, not globals, in the loops.
  const count = prevRows, rank = prevRank, tableLen = ld(offset, nStreams), S = nStreams, w = width;
  const pStream = prevStream, toCur = prevStreamToCur, pPart = prevPartition, pBucket = prevBucket, pTask = prevTask;
  const tbl = table, counts = prevCount, lim = limit, off = offset;
  for (let s = 0; s < S; s++) st(counts, s, 0);
  for (let k = 0; k < tableLen; k++) st(tbl, k, NONE);
  for (let i = 0; i < count; i++) {
    const s = ld(toCur, ld(pStream, i));
    if (s < 0) continue;
    st(counts, s, ld(counts, s) + 1);
    const p = ld(pPart, i);
    if (p >= ld(lim, s)) continue;
    const b = pBucket == 0 ? -1 : ld(pBucket, i);
    let slot: i32;
    if (w == 1) {
      if (b != -1) continue;
      slot = ld(off, s) + p;
    } else {
      if (b < -1 || b >= w - 1) continue;
      slot = ld(off, s) + p * w + b + 1;
    }
    const t = ld(pTask, i);
    const held = ld(tbl, slot);
    if (held == NONE || held == t) {
      st(tbl, slot, t);
    } else if (rank == 0) {
      return false;
    } else if (ld(rank, t) > ld(rank, held)) {
      st(tbl, slot, t);
    }
  }
  for (let j = 0; j < nExclude; j++) st(table, ld(exclude, j), NONE);
  return true;
}

/**
 * Decides every current row's task as SSPGrouperProxy does: out[i] = row i's task after the
 * proxy. Per stream s with previous count P and current count C (occurrences): when P > 0 and
 * C != P the previous SSP is (s, p mod P, -1), and C must be a multiple of P; otherwise it is the
 * SSP itself. A previous task that is not a current task (prevToCur -1) cannot take the SSP:
 * Samza's NullPointerException. Returns -1, or the failing row Samza meets first (firstFailure).
 */
function remap(): i32 {
  // Locals, not globals, in the loop.
  const count = rows, w = width, tasks = rowTask, o = out, str = stream, part = partition, buck = bucket;
  const prevCounts = prevCount, curCounts = curCount, off = offset, tbl = table, toCur = prevToCur;
  let failed = 0;
  for (let i = 0; i < count; i++) {
    const t = ld(tasks, i);
    st(o, i, t);
    const s = ld(str, i);
    const prevN = ld(prevCounts, s);
    const curN = ld(curCounts, s);
    const p = ld(part, i);
    let slot: i32;
    if (prevN > 0 && curN != prevN) {
      if (<u32>curN % <u32>prevN != 0) {
        failed++;
        continue;
      }
      slot = ld(off, s) + <i32>(<u32>p % <u32>prevN) * w;
    } else {
      const b = buck == 0 ? -1 : ld(buck, i);
      slot = ld(off, s) + (w == 1 ? p : p * w + b + 1);
    }
    const held = ld(tbl, slot);
    if (held == NONE) continue;
    const target = ld(toCur, held);
    if (target == t) continue;
    if (target < 0) {
      failed++;
      continue;
    }
    st(o, i, target);
  }
  if (failed == 0) return -1;
  return firstFailure();
}

/**
 * The failing row with the smallest (first row of its task, row); only run when something
 * failed. Samza's raw grouping lists tasks in order of their first row, and each task's rows in
 * row order. fail[0] = the failure kind, fail[1] = the previous task (FAIL_NO_TASK).
 */
function firstFailure(): i32 {
  const count = rows;
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
