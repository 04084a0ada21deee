// Whether a key column repeats a key: asked of every section the log marks fresh (keys known to be
// new) as the store opens, so a damaged log that repeats one is read the way a Map would read it
// (see KeyedTable.appendFresh) and no reader ever sees a repeated key. A byte column is checked
// byte for byte (no million strings made), bucket by bucket (see bytesRepeat).
import { AsciiColumn } from '../columns/ascii-column.js';
import { StringIndex } from '../columns/string-index.js';
import type { Column } from './body.js';

/** Columns known to repeat no key: checked (the per-task types of a log share one byte column), or written so (markDistinct). */
const distinct = new WeakSet<object>();

export function repeatsAKey(keys: Column): boolean {
  if (distinct.has(keys)) return false;
  const repeats = keys instanceof AsciiColumn ? bytesRepeat(keys) : new StringIndex(keys, keys.length).repeated >= 0;
  if (!repeats) distinct.add(keys);
  return repeats;
}

/** Records that a key column repeats no key (the writer checked the section it marked fresh), so applying it checks nothing. */
export function markDistinct(keys: readonly string[]): void {
  distinct.add(keys);
}

/** Rows per bucket the hashes are spread into: each bucket's table stays in the processor's cache. */
const BUCKET_ROWS = 2048;

/**
 * Hashes every row (FNV-1a over its bytes), spreads the rows into buckets by their hash's top bits
 * (a counting sort: sequential passes), and looks for a repeat bucket by bucket in an open-addressing
 * table small enough to stay in cache. One table over a million rows missed the cache on nearly
 * every probe (about 5x slower).
 */
function bytesRepeat(c: AsciiColumn): boolean {
  const { bytes, off } = c;
  const n = c.length;
  const hash = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    let h = 0x811c9dc5;
    for (let i = off[r]!, end = off[r + 1]!; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
    hash[r] = h;
  }
  const bits = n <= BUCKET_ROWS ? 0 : Math.min(16, Math.ceil(Math.log2(n / BUCKET_ROWS)));
  const bucketOf = (h: number): number => (bits === 0 ? 0 : h >>> (32 - bits));
  const start = new Int32Array((1 << bits) + 1);
  for (let r = 0; r < n; r++) start[bucketOf(hash[r]!) + 1]!++;
  let widest = 0;
  for (let b = 0; b < 1 << bits; b++) {
    widest = Math.max(widest, start[b + 1]!);
    start[b + 1]! += start[b]!;
  }
  const order = new Int32Array(n);
  const at = start.slice(0, 1 << bits);
  for (let r = 0; r < n; r++) order[at[bucketOf(hash[r]!)]!++] = r;
  let cap = 16;
  while (cap < 2 * widest) cap *= 2;
  const slots = new Int32Array(cap); // row + 1; 0 is empty
  for (let b = 0; b < 1 << bits; b++) {
    const from = start[b]!;
    const to = start[b + 1]!;
    let size = 16;
    while (size < 2 * (to - from)) size *= 2;
    const mask = size - 1;
    slots.fill(0, 0, size);
    for (let k = from; k < to; k++) {
      const r = order[k]!;
      const h = hash[r]!;
      let j = h & mask;
      for (let s = slots[j]!; s !== 0; s = slots[j]!) {
        if (hash[s - 1] === h && sameBytes(bytes, off[s - 1]!, off[s]!, off[r]!, off[r + 1]!)) return true;
        j = (j + 1) & mask;
      }
      slots[j] = r + 1;
    }
  }
  return false;
}

function sameBytes(bytes: Uint8Array, a0: number, a1: number, b0: number, b1: number): boolean {
  if (a1 - a0 !== b1 - b0) return false;
  for (let i = 0; i < a1 - a0; i++) if (bytes[a0 + i] !== bytes[b0 + i]) return false;
  return true;
}
