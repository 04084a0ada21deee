// The order in which Kafka's tag-aware assignor revisits tasks whose standbys
// it could not place by tags (its fallback loop walks a java.util.HashMap
// <TaskId, Integer> filled in sorted TaskId order). We rebuild that order from
// HashMap's rules: table of 16 that doubles when size exceeds 0.75 * table;
// bucket = (h ^ (h >>> 16)) & (table - 1); a bucket keeps insertion order
// (resizes split buckets stably), so iteration = buckets ascending, then
// insertion order. A bucket that reaches 9 entries while the table is smaller
// than 64 doubles the table instead of becoming a tree (HashMap.treeifyBin).
import type { TaskId } from './task-id.js';

export interface HashOrder {
  /** Task indices (into the sorted list) in HashMap iteration order. */
  order: Int32Array;
  /**
   * False when some bucket became a red-black tree (>= 9 entries, table >= 64),
   * whose iteration order we do not model; the order is then only approximate.
   */
  exact: boolean;
}

export function javaHashMapOrder(sortedTasks: readonly TaskId[]): HashOrder {
  const n = sortedTasks.length;
  const subs = new Int32Array(n);
  const parts = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    subs[i] = sortedTasks[i]!.subtopology;
    parts[i] = sortedTasks[i]!.partition;
  }
  return javaHashMapOrderOf(subs, parts);
}

/** The same, for tasks given as (subtopology, partition) columns in TaskId order. */
export function javaHashMapOrderOf(subs: Int32Array, parts: Int32Array): HashOrder {
  const n = subs.length;
  const spread = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    // taskIdHash(subs[i], parts[i]), written out: a call across modules per task costs
    // an export getter under some loaders (tsx), a tenth of this function's time.
    const h = Math.imul((Math.imul(31 + subs[i]!, 31) + parts[i]!) | 0, 31);
    spread[i] = h ^ (h >>> 16);
  }
  let cap = 16;
  // Bucket sizes only matter up to 9 (a 9th entry is what treeifyBin reacts to), so
  // they saturate there and fit in bytes: a 2M-bucket table is 2 MB to walk, not 8.
  // One array for every table size (the load factor's final size, doubled for the small
  // tables' treeify resizes): no new array per resize.
  let most = 64;
  while (most * 0.75 < n) most *= 2;
  const room = new Uint8Array(most);
  let counts = room.subarray(0, cap);
  let exact = true;
  const rebuild = (upTo: number): void => {
    counts = room.subarray(0, cap);
    counts.fill(0);
    const m = cap - 1;
    for (let j = 0; j < upTo; j++) {
      const b = spread[j]! & m;
      const x = counts[b]!;
      if (x < 9) counts[b] = x + 1;
    }
  };
  for (let i = 0; i < n; i++) {
    // Once the table has 64 buckets a 9th entry no longer resizes it, so after the
    // first such bin nothing but the load factor changes the table.
    if (exact || cap < 64) {
      const b = spread[i]! & (cap - 1);
      const before = counts[b]!;
      if (before < 9) counts[b] = before + 1;
      if (before >= 8) {
        // putVal appended the 9th node of a bin: treeifyBin resizes small tables.
        if (cap < 64) {
          cap *= 2;
          rebuild(i + 1);
        } else exact = false;
      }
    }
    if (i + 1 > (cap * 3) / 4) {
      cap *= 2;
      if (exact || cap < 64) rebuild(i + 1);
    }
  }
  // Stable counting sort by final bucket.
  const start = new Int32Array(cap + 1);
  for (let i = 0; i < n; i++) start[(spread[i]! & (cap - 1)) + 1]!++;
  for (let b = 0; b < cap; b++) start[b + 1]! += start[b]!;
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[start[spread[i]! & (cap - 1)]!++] = i;
  return { order, exact };
}
