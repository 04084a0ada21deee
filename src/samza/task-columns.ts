// Samza's per-task records (container, mode, changelog partition: one record per task in each)
// read as columns over one shared key column and key index, instead of a Map per type. At a
// million tasks, building and probing three Maps of task names was most of an unchanged re-plan.
// The cycle walks its tasks in the order it wrote them, so a lookup first tries the row a hint
// names (no hashing when the order is unchanged) and falls back to the index.

import { ArrayTexts, type Texts } from '../columns/texts.js';

/**
 * One key column and its index (key -> row, -1 when absent), shared by every column over it. Keys
 * never repeat (the store resolved a damaged log's repeats when it opened).
 */
export class TaskRows {
  /** Rows' keys (compared in place: the store may hold them as bytes). */
  constructor(
    readonly keys: Texts,
    private readonly lookup: (key: string) => number,
  ) {}

  get n(): number {
    return this.keys.length;
  }

  /** The row of `key`, trying row `hint` first; -1 when absent. */
  rowOf(key: string, hint = -1): number {
    if (hint >= 0 && hint < this.keys.length && this.keys.is(hint, key)) return hint;
    return this.lookup(key);
  }

  /** Per row, the row of the names found equal to its key by rowOfName (-1: none), for isName. */
  private matchedName: Int32Array | undefined;
  private matchedNames: Texts | undefined;

  /** The row of `names` row j, trying row `hint` first (compared where both lie: no string made); -1 when absent. */
  rowOfName(names: Texts, j: number, hint: number): number {
    if (hint >= 0 && hint < this.keys.length && this.keys.equals(hint, names, j)) {
      if (this.matchedNames !== names) {
        this.matchedNames = names;
        this.matchedName = new Int32Array(this.keys.length).fill(-1);
      }
      this.matchedName![hint] = j;
      return hint;
    }
    return this.lookup(names.at(j));
  }

  /** Whether row r's key is `names` row j (a match rowOfName found is not compared again). */
  isName(r: number, names: Texts, j: number): boolean {
    return (this.matchedNames === names && this.matchedName![r] === j) || this.keys.equals(r, names, j);
  }


  /**
   * Whether the keys are exactly n names in order, row r's key being the name `isRow(r)` accepts
   * (a plan's tasks: then row r is task r, with no lookups).
   */
  verify(n: number, isRow: (r: number) => boolean): boolean {
    let same = n === this.keys.length;
    for (let r = 0; r < n && same; r++) same = isRow(r);
    return same;
  }
}

/**
 * A read-only Map over one value column (undefined: no record in that row). Its values were checked
 * when it was built, so the planner takes it as it is (see `CHECKED` in inputs.ts). The column is
 * a store's Texts (strings that may still be bytes; a value in every row) or, for other values,
 * an array.
 */
export class ColumnMap<V> implements ReadonlyMap<string, V> {
  readonly size: number;
  /** Every row has a value: iteration needs no test. */
  private readonly full: boolean;
  private readonly texts: Texts | undefined;
  private readonly array: ReadonlyArray<V | undefined> | undefined;

  constructor(
    readonly rows: TaskRows,
    vals: (V extends string ? Texts : never) | ReadonlyArray<V | undefined>,
  ) {
    if (Array.isArray(vals)) this.array = vals as ReadonlyArray<V | undefined>;
    else this.texts = vals as Texts;
    let size = rows.n;
    if (this.array !== undefined) {
      size = 0;
      for (let r = 0; r < rows.n; r++) if (this.array[r] !== undefined) size++;
    }
    this.size = size;
    this.full = size === rows.n;
  }

  /** Row r's value. */
  at(r: number): V | undefined {
    return this.array !== undefined ? this.array[r] : (this.texts!.at(r) as V);
  }

  /** Whether row r's value is `v` (compared in place when the column is bytes). */
  isAt(r: number, v: V): boolean {
    return this.array !== undefined ? this.array[r] === v : this.texts!.is(r, v as string);
  }

  /** The same Map as columns: rows in its order, looked up through an index of its keys. */
  static of<V>(map: ReadonlyMap<string, V>): ColumnMap<V> {
    const keys = [...map.keys()];
    const index = new Map(keys.map((k, r) => [k, r]));
    return new ColumnMap(new TaskRows(new ArrayTexts(keys), (k) => index.get(k) ?? -1), [...map.values()]);
  }

  /** The value of `names` row j, trying row `hint` first (see TaskRows.rowOfName). */
  getNamed(names: Texts, j: number, hint: number): V | undefined {
    const r = this.rows.rowOfName(names, j, hint);
    return r < 0 ? undefined : this.at(r);
  }

  /** The value of `key`, trying row `hint` first; `aligned`: `hint` is `key`'s row (TaskRows.verify said so). */
  getAt(key: string, hint: number, aligned = false): V | undefined {
    const r = aligned ? hint : this.rows.rowOf(key, hint);
    return r < 0 ? undefined : this.at(r);
  }

  /** Whether `key` has a value and it is not `v` (see getAt), without making the value. */
  differsAt(key: string, hint: number, aligned: boolean, v: V): boolean {
    return this.differsAtRow(aligned ? hint : this.rows.rowOf(key, hint), v);
  }

  /** Whether row r (-1: none) has a value and it is not `v`. */
  differsAtRow(r: number, v: V): boolean {
    return r >= 0 && (this.full || this.at(r) !== undefined) && !this.isAt(r, v);
  }

  /** Whether row r has a value. */
  hasRow(r: number): boolean {
    return this.full || this.at(r) !== undefined;
  }

  /** Rows found holding a value, by value (keysOf: the map is read-only, so each is looked for once). */
  private readonly found = new Map<V, Int32Array>();

  private rowsOf(v: V): Int32Array {
    let rows = this.found.get(v);
    if (rows === undefined) {
      const out: number[] = [];
      for (let r = 0; r < this.rows.n; r++) if (this.isAt(r, v)) out.push(r);
      this.found.set(v, (rows = Int32Array.from(out)));
    }
    return rows;
  }

  /** Whether some row's value is `v`. */
  includes(v: V): boolean {
    return this.rowsOf(v).length > 0;
  }

  /** How many rows hold `v`. */
  count(v: V): number {
    return this.rowsOf(v).length;
  }

  /** The keys of the rows whose value is `v`, in row order. */
  keysOf(v: V): string[] {
    return Array.from(this.rowsOf(v), (r) => this.rows.keys.at(r));
  }

  get(key: string): V | undefined {
    return this.getAt(key, -1);
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  forEach(cb: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (let r = 0; r < this.rows.n; r++) {
      const v = this.at(r);
      if (v !== undefined) cb.call(thisArg, v, this.rows.keys.at(r), this);
    }
  }

  *entries(): MapIterator<[string, V]> {
    for (let r = 0; r < this.rows.n; r++) {
      const v = this.at(r);
      if (v !== undefined) yield [this.rows.keys.at(r), v];
    }
  }

  *keys(): MapIterator<string> {
    for (let r = 0; r < this.rows.n; r++) if (this.full || this.at(r) !== undefined) yield this.rows.keys.at(r);
  }

  values(): MapIterator<V> {
    // A full array column is its own iterator (a generator's yield per row costs more than the loop over it).
    if (this.full && this.array !== undefined) return (this.array as readonly V[]).values() as MapIterator<V>;
    return this.liveValues();
  }

  private *liveValues(): MapIterator<V> {
    for (let r = 0; r < this.rows.n; r++) {
      const v = this.at(r);
      if (v !== undefined) yield v;
    }
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }
}
