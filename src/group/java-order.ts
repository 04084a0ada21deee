// The order in which Java 17's HashMap and HashSet hand out their keys, for the broker's `uniform`
// assignor, whose answer depends on it (it walks a HashMap of members, a HashSet of topic ids and
// each member's HashSet of partitions). A HashMap keeps a power-of-two table of buckets; keys come
// out bucket by bucket, and within a bucket in the order they were put (a resize splits buckets
// without reordering them). The bucket of a key is (h ^ (h >>> 16)) & (capacity - 1), with h the
// key's hashCode. Not reproduced: a bucket of more than 8 keys, which Java turns into a tree with
// an order of its own (docs/group.md, "Which answers depend on order").

/** HashMap.tableSizeFor: the least power of two at least `n` (1 for n <= 1). */
export function tableSizeFor(n: number): number {
  let cap = 1;
  while (cap < n) cap *= 2;
  return cap;
}

/** The table of a HashMap (or HashSet) made with its default size and filled with `n` keys one by one. */
export function grownCapacity(n: number): number {
  let cap = 16;
  // It doubles when a put takes it past three quarters full.
  while (n > cap * 0.75) cap *= 2;
  return cap;
}

/** The table of `new HashSet<>(collection)` of `n` keys (Java 17: max(n / .75f + 1, 16), rounded up). */
export function copiedCapacity(n: number): number {
  return tableSizeFor(Math.max(Math.trunc(Math.fround(n / 0.75)) + 1, 16));
}

/**
 * Indices 0..n-1 of keys put in that order into a table of `capacity` buckets, in the order Java
 * iterates them: by bucket, then by position (a stable counting sort).
 */
export function iterationOrder(hashes: Int32Array, capacity: number): Int32Array {
  const n = hashes.length;
  const bucket = new Int32Array(n);
  const start = new Int32Array(capacity + 1);
  for (let i = 0; i < n; i++) {
    const h = hashes[i]!;
    bucket[i] = (h ^ (h >>> 16)) & (capacity - 1);
    start[bucket[i]! + 1]!++;
  }
  for (let b = 0; b < capacity; b++) start[b + 1]! += start[b]!;
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[start[bucket[i]!]!++] = i;
  return order;
}
