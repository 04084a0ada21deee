// Two Java library behaviours Samza's results depend on: String.split dropping
// trailing empty strings, and the iteration order of a java.util.HashMap of
// strings (Samza hands processor ids to groupers in that order).
import { javaStringHash } from '../basics.js';

/** Java's `s.split(sep)` for a one-character, non-regex separator: trailing empty strings are dropped. */
export function javaSplit(s: string, sep: string): string[] {
  const parts = s.split(sep);
  if (parts.length === 1) return parts; // no separator: the input itself, even when empty
  let end = parts.length;
  while (end > 0 && parts[end - 1] === '') end--;
  return parts.slice(0, end);
}

/**
 * The order in which `new HashMap<String, V>()` filled with `keys` (in this order) iterates them:
 * by bucket (spread hash & (capacity - 1)), then in insertion order within a bucket, which every
 * resize keeps. The capacity starts at 16 and doubles whenever the size passes 3/4 of it.
 * Exact while no bucket holds 8 or more keys (Java then turns it into a tree, whose iteration order
 * this does not model); decimal ids and other short distinct strings stay far below that.
 */
export function javaHashMapKeyOrder(keys: readonly string[]): string[] {
  const distinct = [...new Set(keys)];
  let capacity = 16;
  while (distinct.length > capacity * 0.75) capacity *= 2;
  const bucket = (k: string): number => {
    const h = javaStringHash(k);
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  const buckets = distinct.map(bucket);
  // A stable sort by bucket keeps insertion order inside each bucket.
  return distinct.map((k, i) => ({ k, b: buckets[i]!, i })).sort((x, y) => x.b - y.b || x.i - y.i).map((e) => e.k);
}

/**
 * 0..n-1 in the order Java sorts their decimal strings ("0", "1", "10", "100", ..., "11", ..., "2"):
 * a walk of the digit trie in preorder, O(n) with no strings. GroupByPartition's task names are
 * "Partition <p>" (and "Partition <p> <bucket>"), so their Java order is this order of p (a space
 * sorts before every digit, so "Partition 1 ..." comes before "Partition 10").
 */
export function decimalStringOrder(n: number): Int32Array {
  const out = new Int32Array(Math.max(0, n));
  if (n <= 0) return out;
  out[0] = 0; // "0" comes first: no other number starts with the digit 0
  let cur = 1;
  for (let i = 1; i < n; i++) {
    out[i] = cur;
    if (cur * 10 < n) cur *= 10; // the next string extends this one with a 0
    else {
      // The next sibling: step past the last digit; when that wraps past 9 or past n-1, climb.
      if (cur + 1 >= n) cur = Math.floor(cur / 10);
      cur++;
      while (cur % 10 === 0) cur /= 10;
    }
  }
  return out;
}
