// A string column kept as ASCII bytes (the Texts of texts.ts): one buffer and an offset per row instead of
// a string object per row. For ASCII, a UTF-8 byte is a UTF-16 code unit, so rows compare and index
// byte for byte. The store keeps string tables that are ASCII throughout so; the Samza planner
// makes its task names so. (No Node imports: the planner runs in browsers too; a Node Buffer is
// used for its faster decoding when the bytes are one.)
import { plainJsonUnit, type Texts } from './texts.js';
import { INT32_MAX, sameItems } from '../basics.js';

const ascii = new TextDecoder();

/** `n` bytes to fill, as a Node Buffer where there is one (see latin1). */
export function asciiBytes(n: number): Uint8Array {
  return typeof Buffer === 'function' ? Buffer.allocUnsafeSlow(n) : new Uint8Array(n);
}

/** Bytes [a, b) as a string: ASCII, so Latin-1 and UTF-8 read them alike. */
function latin1(bytes: Uint8Array, a: number, b: number): string {
  return typeof Buffer === 'function' && Buffer.isBuffer(bytes) ? bytes.toString('latin1', a, b) : ascii.decode(bytes.subarray(a, b));
}


/** Short strings repeated on every row (container ids, task modes) are shared while few, as the decoder shares them. */
const SHARED_MAX = 256;
const SHARED_LENGTH = 12;

export class AsciiColumn implements Texts {
  private made: string[] | undefined;

  /** Row i is bytes [off[i], off[i + 1]) of `bytes` (the column's own copy, never written; all below 0x80). `share`: materialize short repeated values as one string. */
  constructor(
    readonly bytes: Uint8Array,
    readonly off: Int32Array,
    private readonly share = false,
  ) {}

  get length(): number {
    return this.off.length - 1;
  }

  at(i: number): string {
    return this.made !== undefined ? this.made[i]! : latin1(this.bytes, this.off[i]!, this.off[i + 1]!);
  }

  lengthOf(i: number): number {
    return this.off[i + 1]! - this.off[i]!;
  }

  codeAt(i: number, k: number): number {
    // (Outside the row: NaN, as charCodeAt gives; never the next row's byte.)
    return k >= 0 && k < this.lengthOf(i) ? this.bytes[this.off[i]! + k]! : Number.NaN;
  }

  is(i: number, s: string): boolean {
    const a = this.off[i]!;
    return this.off[i + 1]! - a === s.length && this.same(a, s);
  }

  hasAt(i: number, at: number, s: string): boolean {
    // An offset past the end stands at the end, as startsWith's does.
    const a = this.off[i]! + Math.min(at, this.lengthOf(i));
    return at >= 0 && a + s.length <= this.off[i + 1]! && this.same(a, s);
  }

  private same(a: number, s: string): boolean {
    const b = this.bytes;
    for (let k = 0; k < s.length; k++) if (b[a + k] !== s.charCodeAt(k)) return false;
    return true;
  }

  plainInt(i: number): number {
    const b = this.bytes;
    const a = this.off[i]!;
    const n = this.off[i + 1]! - a;
    if (n === 0 || n > 10 || (n > 1 && b[a] === 48)) return -1;
    let v = 0;
    for (let k = a; k < a + n; k++) {
      const c = b[k]! - 48;
      if (c < 0 || c > 9) return -1;
      v = v * 10 + c;
    }
    return v <= INT32_MAX ? v : -1;
  }

  plainJsonAt(i: number, from: number, to: number): boolean {
    // A unit outside the row is no JSON text (charCodeAt gives NaN there).
    if (from < to && (from < 0 || to > this.lengthOf(i))) return false;
    const b = this.bytes;
    const a = this.off[i]!;
    for (let k = a + from; k < a + to; k++) if (!plainJsonUnit(b[k]!)) return false;
    return true;
  }

  equals(i: number, other: Texts, j: number): boolean {
    return other instanceof AsciiColumn ? this.sameRowOf(i, other, j) : this.is(i, other.at(j));
  }

  holdsAt(i: number, at: number, other: Texts, j: number): boolean {
    return other instanceof AsciiColumn ? this.holdsRowAt(i, at, other, j) : this.hasAt(i, at, other.at(j));
  }

  /** Whether this column holds exactly the rows of `o` (one comparison of the bytes). */
  sameAs(o: AsciiColumn): boolean {
    if (o === this) return true;
    return o.length === this.length && sameBytes(this.bytes, o.bytes) && sameItems(this.off, o.off);
  }

  /** Whether row i is row j of `o`, byte for byte. */
  private sameRowOf(i: number, o: AsciiColumn, j: number): boolean {
    return this.off[i + 1]! - this.off[i]! === o.off[j + 1]! - o.off[j]! && this.holdsRowAt(i, 0, o, j);
  }

  /** Whether row i holds row j of `o` at offset `at` (anything may follow; `at` past the end stands at the end, as in hasAt), byte for byte. */
  private holdsRowAt(i: number, at: number, o: AsciiColumn, j: number): boolean {
    const a = this.off[i]! + Math.min(at, this.lengthOf(i));
    const from = o.off[j]!;
    const n = o.off[j + 1]! - from;
    if (at < 0 || a + n > this.off[i + 1]!) return false;
    const x = this.bytes;
    const y = o.bytes;
    for (let k = 0; k < n; k++) if (x[a + k] !== y[from + k]) return false;
    return true;
  }

  /** Every row as a string, in a fresh array (its owner may change it); the strings are made once. */
  toArray(): string[] {
    if (this.made === undefined) {
      const n = this.length;
      const out = new Array<string>(n);
      // One string for the whole column, rows sliced from it (as the decoder does), unless shared.
      const text = latin1(this.bytes, 0, this.bytes.length);
      const shared = this.share ? new Map<string, string>() : undefined;
      for (let i = 0; i < n; i++) {
        const a = this.off[i]!;
        const e = this.off[i + 1]!;
        if (shared !== undefined && e - a <= SHARED_LENGTH && shared.size <= SHARED_MAX) {
          const v = text.slice(a, e);
          let one = shared.get(v);
          if (one === undefined) shared.set(v, (one = v));
          out[i] = one;
        } else out[i] = text.slice(a, e);
      }
      this.made = out;
    }
    return this.made.slice();
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return typeof Buffer === 'function' && Buffer.isBuffer(a) ? a.equals(b) : sameItems(a, b);
}
