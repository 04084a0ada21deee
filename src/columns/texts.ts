import { INT32_MAX } from '../basics.js';
// A read-only column of strings that may still be bytes: the one string-column type that samza and
// store share (with StringIndex, the row index over one). A million-row store column (task names,
// per-task values, SSP task lists) read as JS strings costs a million objects that the garbage
// collector copies and walks for as long as the state lives; most readers only ask "is row i this
// string?", which bytes answer in place. Strings are made when someone asks for them (`at`,
// `toArray`). Two implementations: ArrayTexts over strings, AsciiColumn over ASCII bytes; readers
// use this interface only. (No Node imports: the planner runs in browsers too.)

export interface Texts {
  readonly length: number;
  /** Row i's string. */
  at(i: number): string;
  /** Whether row i is exactly `s`. */
  is(i: number, s: string): boolean;
  /** Row i's length in UTF-16 code units. */
  lengthOf(i: number): number;
  /** UTF-16 code unit k of row i (k < lengthOf(i)). */
  codeAt(i: number, k: number): number;
  /** Row i as a non-negative decimal int written plainly (no sign, no leading zero, at most 2^31-1), else -1. */
  plainInt(i: number): number;
  /** Whether code units [from, to) of row i are JSON string text needing no escape: no control character, quote or backslash. */
  plainJsonAt(i: number, from: number, to: number): boolean;
  /** Whether row i is row j of `other` (compared where both lie: byte for byte when both are bytes). */
  equals(i: number, other: Texts, j: number): boolean;
  /** Whether row i holds row j of `other` at UTF-16 offset `at` (anything may follow; `at` past the end stands at the end, as String#startsWith reads it). */
  holdsAt(i: number, at: number, other: Texts, j: number): boolean;
  /** Every row as a string, in a fresh array (its owner may change it). */
  toArray(): string[];
}

/** Whether UTF-16 code unit c may stand in a JSON string unescaped (see plainJsonAt). */
export const plainJsonUnit = (c: number): boolean => c >= 0x20 && c !== 34 && c !== 92;


/** Texts over an array of strings. */
export class ArrayTexts implements Texts {
  constructor(readonly strings: readonly string[]) {}

  get length(): number {
    return this.strings.length;
  }

  at(i: number): string {
    return this.strings[i]!;
  }

  is(i: number, s: string): boolean {
    return this.strings[i] === s;
  }

  lengthOf(i: number): number {
    return this.strings[i]!.length;
  }

  hasAt(i: number, at: number, s: string): boolean {
    return at >= 0 && this.strings[i]!.startsWith(s, at);
  }

  codeAt(i: number, k: number): number {
    return this.strings[i]!.charCodeAt(k);
  }

  plainInt(i: number): number {
    return plainIntOf(this.strings[i]!);
  }

  plainJsonAt(i: number, from: number, to: number): boolean {
    const s = this.strings[i]!;
    for (let k = from; k < to; k++) if (!plainJsonUnit(s.charCodeAt(k))) return false;
    return true;
  }

  equals(i: number, other: Texts, j: number): boolean {
    return other.is(j, this.strings[i]!);
  }

  holdsAt(i: number, at: number, other: Texts, j: number): boolean {
    if (other instanceof ArrayTexts) return this.hasAt(i, at, other.strings[j]!);
    // Unit by unit: no string made of the other row.
    const n = other.lengthOf(j);
    const from = Math.min(at, this.lengthOf(i));
    if (at < 0 || from + n > this.lengthOf(i)) return false;
    const s = this.strings[i]!;
    for (let k = 0; k < n; k++) if (s.charCodeAt(from + k) !== other.codeAt(j, k)) return false;
    return true;
  }

  toArray(): string[] {
    return this.strings.slice();
  }
}

/** `s` as a plain decimal int (see Texts.plainInt), else -1. */
export function plainIntOf(s: string): number {
  const n = s.length;
  if (n === 0 || n > 10 || (n > 1 && s.charCodeAt(0) === 48)) return -1;
  let v = 0;
  for (let k = 0; k < n; k++) {
    const c = s.charCodeAt(k) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v <= INT32_MAX ? v : -1;
}

/**
 * A table's string column: bytes taken over from the log (a Texts) until someone needs the
 * strings, then an array of strings its owner may change.
 */
export class StringColumn<B extends Texts = Texts> {
  private arr: string[] = [];
  private lazy: B | undefined;

  /** The strings (made now, once, if the column is still bytes). */
  get strings(): string[] {
    if (this.lazy !== undefined) {
      this.arr = this.lazy.toArray();
      this.lazy = undefined;
    }
    return this.arr;
  }

  set strings(v: string[]) {
    this.arr = v;
    this.lazy = undefined;
  }

  /** The column as bytes, while it still is. */
  get bytes(): B | undefined {
    return this.lazy;
  }

  set bytes(b: B) {
    this.lazy = b;
    this.arr = [];
  }

  get length(): number {
    return this.lazy !== undefined ? this.lazy.length : this.arr.length;
  }

  /** The rows without making strings. */
  texts(): Texts {
    return this.lazy ?? new ArrayTexts(this.arr);
  }
}
