// key -> row over a column of strings, for columns of a million task names: an open-addressing
// table of row numbers and 32-bit hashes (two typed arrays), so building it reads the keys in
// order and a probe touches a key string only when the hashes match. A JS Map of a million
// strings took seconds to build and probe (hashing into one object per entry, and the garbage
// collector walking them).

/** FNV-1a over UTF-16 code units, as an int32. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0; // an int32, as the Int32Array stores it (the empty string's hash is the offset basis, above 2^31)
}

export class StringIndex {
  /** row + 1 per slot; 0 is empty. */
  private readonly slots: Int32Array;
  private readonly hashes: Int32Array;
  private readonly mask: number;
  /** The first row whose key repeats an earlier row's, or -1 (rows with repeated keys are not indexed). */
  readonly repeated: number = -1;

  constructor(
    readonly keys: readonly string[],
    n: number,
  ) {
    let cap = 16;
    while (cap < 2 * n) cap *= 2;
    this.slots = new Int32Array(cap);
    this.hashes = new Int32Array(cap);
    this.mask = cap - 1;
    for (let r = 0; r < n; r++) {
      const k = keys[r]!;
      const h = hashString(k);
      let j = h & this.mask;
      let dup = false;
      for (let s = this.slots[j]!; s !== 0; s = this.slots[j]!) {
        if (this.hashes[j] === h && keys[s - 1] === k) {
          dup = true;
          break;
        }
        j = (j + 1) & this.mask;
      }
      if (dup) {
        if (this.repeated < 0) this.repeated = r;
        continue;
      }
      this.slots[j] = r + 1;
      this.hashes[j] = h;
    }
  }

  /** The row of `key`, or -1. */
  rowOf(key: string): number {
    const h = hashString(key);
    let j = h & this.mask;
    for (let s = this.slots[j]!; s !== 0; s = this.slots[j]!) {
      if (this.hashes[j] === h && this.keys[s - 1] === key) return s - 1;
      j = (j + 1) & this.mask;
    }
    return -1;
  }
}
