// Whether a key column repeats a key: asked of every section the log marks fresh (keys known to be
// new) as the store opens, so a damaged log that repeats one is read the way a Map would read it
// (see KeyedTable.appendFresh) and no reader ever sees a repeated key. A byte column is checked
// byte for byte (no million strings made): an open-addressing table of row numbers and hashes.
import { AsciiColumn } from './ascii-column.js';
import { StringIndex } from './string-index.js';
import type { Column } from './body.js';

/** Byte columns already checked (the per-task types of a log share one key column object). */
const distinct = new WeakSet<AsciiColumn>();

export function repeatsAKey(keys: Column): boolean {
  if (!(keys instanceof AsciiColumn)) return new StringIndex(keys, keys.length).repeated >= 0;
  if (distinct.has(keys)) return false;
  const repeats = bytesRepeat(keys);
  if (!repeats) distinct.add(keys);
  return repeats;
}

function bytesRepeat(c: AsciiColumn): boolean {
  const { bytes, off } = c;
  const n = c.length;
  let cap = 16;
  while (cap < 2 * n) cap *= 2;
  const mask = cap - 1;
  const slots = new Int32Array(cap); // row + 1; 0 is empty
  const hashes = new Int32Array(cap);
  for (let r = 0; r < n; r++) {
    const a = off[r]!;
    const b = off[r + 1]!;
    let h = 0x811c9dc5;
    for (let i = a; i < b; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
    h |= 0;
    let j = h & mask;
    for (let s = slots[j]!; s !== 0; s = slots[j]!) {
      if (hashes[j] === h && sameBytes(bytes, off[s - 1]!, off[s]!, a, b)) return true;
      j = (j + 1) & mask;
    }
    slots[j] = r + 1;
    hashes[j] = h;
  }
  return false;
}

function sameBytes(bytes: Uint8Array, a0: number, a1: number, b0: number, b1: number): boolean {
  if (a1 - a0 !== b1 - b0) return false;
  for (let i = 0; i < a1 - a0; i++) if (bytes[a0 + i] !== bytes[b0 + i]) return false;
  return true;
}
