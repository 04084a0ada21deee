// Task ids as integer columns: the fast path of normalizeCluster reads every
// task-id string once into a packed number (packTaskId in task-id.ts:
// subtopology * 2^32 + partition) and looks tasks up by number, without a TaskId
// object or a string key per list entry.

const SHIFT = 4294967296;

/** The distinct keys of `keys` in order, as columns; undefined when `distinctOnly` and two are equal. Sorts `keys` in place. */
export function sortedDistinct(keys: Float64Array, distinctOnly: boolean): { subs: Int32Array; parts: Int32Array } | undefined {
  keys.sort();
  const n = keys.length;
  let m = 0;
  for (let i = 0; i < n; i++) {
    if (i > 0 && keys[i] === keys[i - 1]) {
      if (distinctOnly) return undefined;
      continue;
    }
    keys[m++] = keys[i]!;
  }
  return unpack(keys, m);
}

/** The first n packed keys as (subtopology, partition) columns. */
export function unpack(keys: Float64Array, n: number): { subs: Int32Array; parts: Int32Array } {
  const subs = new Int32Array(n);
  const parts = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const s = Math.floor(keys[i]! / SHIFT);
    subs[i] = s;
    parts[i] = keys[i]! - s * SHIFT;
  }
  return { subs, parts };
}

/**
 * Index of a task in sorted, distinct columns. Tasks come in runs of one
 * subtopology; a run whose partitions are contiguous (the usual 0..n-1) is
 * looked up by subtraction, any other by binary search within the run.
 */
export class TaskIndex {
  private readonly runSub: Int32Array;
  private readonly runStart: Int32Array;
  private readonly runEnd: Int32Array;
  /** Per run: its first partition when its partitions are contiguous, else -1. */
  private readonly runBase: Int32Array;
  /** Subtopology -> run, when subtopologies are small enough for a table (else binary search over runSub). */
  private readonly runOf: Int32Array | undefined;

  constructor(
    private readonly subs: Int32Array,
    private readonly parts: Int32Array,
  ) {
    const T = subs.length;
    let runs = 0;
    for (let t = 0; t < T; t++) if (t === 0 || subs[t] !== subs[t - 1]) runs++;
    this.runSub = new Int32Array(runs);
    this.runStart = new Int32Array(runs);
    this.runEnd = new Int32Array(runs);
    this.runBase = new Int32Array(runs);
    let r = -1;
    for (let t = 0; t < T; t++) {
      if (t === 0 || subs[t] !== subs[t - 1]) {
        r++;
        this.runSub[r] = subs[t]!;
        this.runStart[r] = t;
      }
      this.runEnd[r] = t + 1;
    }
    for (let q = 0; q < runs; q++) {
      const a = this.runStart[q]!, b = this.runEnd[q]!;
      this.runBase[q] = parts[b - 1]! - parts[a]! === b - a - 1 ? parts[a]! : -1;
    }
    const maxSub = runs > 0 ? this.runSub[runs - 1]! : -1;
    if (maxSub < 4 * runs + 1024) {
      this.runOf = new Int32Array(maxSub + 1).fill(-1);
      for (let q = 0; q < runs; q++) this.runOf[this.runSub[q]!] = q;
    }
  }

  /** The index of the task with packed key `key` (packTaskId), or -1. */
  indexOfKey(key: number): number {
    const s = Math.floor(key / SHIFT);
    return this.indexOf(s, key - s * SHIFT);
  }

  /** The task's index, or -1 when it is not among the columns. */
  indexOf(s: number, p: number): number {
    let r: number;
    const runOf = this.runOf;
    if (runOf !== undefined) {
      if (s >= runOf.length) return -1;
      r = runOf[s]!;
      if (r < 0) return -1;
    } else {
      r = -1;
      let lo = 0, hi = this.runSub.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const x = this.runSub[mid]!;
        if (x === s) {
          r = mid;
          break;
        }
        if (x < s) lo = mid + 1;
        else hi = mid - 1;
      }
      if (r < 0) return -1;
    }
    const a = this.runStart[r]!, b = this.runEnd[r]!;
    const base = this.runBase[r]!;
    if (base >= 0) {
      const i = p - base;
      return i >= 0 && i < b - a ? a + i : -1;
    }
    const parts = this.parts;
    let lo = a, hi = b - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const x = parts[mid]!;
      if (x === p) return mid;
      if (x < p) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}
