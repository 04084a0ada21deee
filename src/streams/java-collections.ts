// The two Java collections whose order decides ties in Kafka's broker-side StickyTaskAssignor,
// rebuilt from their rules (JDK 17): the iteration order of a java.util.HashMap<String, _> filled by
// put or by computeIfAbsent (group/java-order.ts has the hash and the table sizes), and the binary
// heap of java.util.PriorityQueue. Used by ./broker-sticky.ts to answer exactly as that class.

import { javaStringHash } from '../basics.js';
import { tableSizeFor } from '../group/java-order.js';

/**
 * Indices of `keys` (distinct, inserted in this order) in the iteration order of a HashMap made
 * with `new HashMap<>(initialCapacity)` (16: the default) and filled by put (`lazy` false) or by
 * computeIfAbsent (`lazy` true). Iteration is buckets ascending, each bucket in insertion order
 * (resizes split buckets stably); bucket = (h ^ (h >>> 16)) & (table - 1). put resizes after an
 * insert that takes the size over 0.75 x table; computeIfAbsent before the next insert, and it links
 * the new node in front of its bin, so a bin lists its keys newest first. A bin that
 * reaches its treeify point while the table is under 64 doubles the table (HashMap.treeifyBin):
 * the 9th node with put, the 8th with computeIfAbsent. `exact` is false when a bin became a tree,
 * whose order is not modelled.
 */
export function javaHashMapOrder(keys: readonly string[], initialCapacity: number, lazy: boolean): { order: number[]; exact: boolean } {
  const spread = keys.map((k) => {
    const h = javaStringHash(k);
    return h ^ (h >>> 16);
  });
  let cap = tableSizeFor(initialCapacity);
  let exact = true;
  // Keys per bucket of the current table, for the first `filled` keys; recounted when it doubles.
  let bins = new Int32Array(cap);
  const resize = (filled: number): void => {
    cap *= 2;
    bins = new Int32Array(cap);
    for (let j = 0; j < filled; j++) bins[spread[j]! & (cap - 1)]!++;
  };
  for (let i = 0; i < keys.length; i++) {
    if (lazy && i > (cap * 3) / 4) resize(i);
    if (bins[spread[i]! & (cap - 1)]! >= (lazy ? 7 : 8)) {
      if (cap < 64) resize(i);
      else exact = false;
    }
    bins[spread[i]! & (cap - 1)]!++;
    if (!lazy && i + 1 > (cap * 3) / 4) resize(i + 1);
  }
  const order = keys.map((_, i) => i);
  // computeIfAbsent links a new node in front of its bin, put behind it.
  order.sort((a, b) => (spread[a]! & (cap - 1)) - (spread[b]! & (cap - 1)) || (lazy ? b - a : a - b));
  return { order, exact };
}

/** java.util.PriorityQueue's binary heap: add sifts up, poll moves the last element to the root and sifts it down; ties never move. */
export class JavaPriorityQueue<T> {
  private readonly heap: T[] = [];

  constructor(private readonly cmp: (a: T, b: T) => number) {}

  get size(): number {
    return this.heap.length;
  }

  add(x: T): void {
    const q = this.heap;
    let k = q.length;
    q.push(x);
    while (k > 0) {
      const parent = (k - 1) >>> 1;
      if (this.cmp(x, q[parent]!) >= 0) break;
      q[k] = q[parent]!;
      k = parent;
    }
    q[k] = x;
  }

  poll(): T | undefined {
    const q = this.heap;
    if (q.length === 0) return undefined;
    const result = q[0]!;
    const x = q.pop()!;
    const n = q.length;
    if (n === 0) return result;
    let k = 0;
    const half = n >>> 1;
    while (k < half) {
      let child = 2 * k + 1;
      const right = child + 1;
      if (right < n && this.cmp(q[child]!, q[right]!) > 0) child = right;
      if (this.cmp(x, q[child]!) <= 0) break;
      q[k] = q[child]!;
      k = child;
    }
    q[k] = x;
    return result;
  }
}
