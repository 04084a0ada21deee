// Samza's per-task records (container, mode, changelog partition: one record per task in each)
// read as columns over one shared key column and key index, instead of a Map per type. At a
// million tasks, building and probing three Maps of task names was most of an unchanged re-plan.
// The cycle walks its tasks in the order it wrote them, so a lookup first tries the row a hint
// names (no hashing when the order is unchanged) and falls back to the index.

/** Thrown when stored per-task keys turn out to repeat (a damaged log): the cycle reads them the Map way instead. */
export class RepeatedKeys extends Error {}

/**
 * One key column and its index (key -> row, -1 when absent), shared by every column over it. Rows
 * are read by position before anyone knows the keys are unique (only a damaged log repeats one);
 * `verify` settles it afterwards, and a caller discards what it read when it throws RepeatedKeys.
 */
export class TaskRows {
  private checked = false;

  constructor(
    readonly keys: readonly string[],
    private readonly lookup: (key: string) => number,
    private readonly unique: () => boolean,
  ) {}

  get n(): number {
    return this.keys.length;
  }

  /** The row of `key`, trying row `hint` first; -1 when absent. */
  rowOf(key: string, hint = -1): number {
    if (hint >= 0 && hint < this.keys.length && this.keys[hint] === key) return hint;
    this.check();
    return this.lookup(key);
  }

  private check(): void {
    if (this.checked) return;
    if (!this.unique()) throw new RepeatedKeys('a per-task key repeats in the store');
    this.checked = true;
  }

  /**
   * Throws RepeatedKeys unless the keys are unique; returns whether they are exactly `names` in
   * order (distinct names, such as a plan's tasks: then they are unique with no index, and row i
   * is names[i]).
   */
  verify(names: readonly string[]): boolean {
    let same = names.length === this.keys.length;
    for (let r = 0; r < names.length && same; r++) same = this.keys[r] === names[r];
    if (same) this.checked = true;
    else this.check();
    return same;
  }
}

/**
 * A read-only Map over one value column (undefined: no record in that row). Its values were checked
 * when it was built, so the planner takes it as it is (see `CHECKED` in inputs.ts).
 */
export class ColumnMap<V> implements ReadonlyMap<string, V> {
  readonly size: number;
  /** Every row has a value: iteration needs no test. */
  private readonly full: boolean;

  constructor(
    readonly rows: TaskRows,
    readonly vals: ReadonlyArray<V | undefined>,
  ) {
    let size = 0;
    for (let r = 0; r < rows.n; r++) if (vals[r] !== undefined) size++;
    this.size = size;
    this.full = size === rows.n;
  }

  /** The value of `key`, trying row `hint` first; `aligned`: `hint` is `key`'s row (TaskRows.verify said so). */
  getAt(key: string, hint: number, aligned = false): V | undefined {
    const r = aligned ? hint : this.rows.rowOf(key, hint);
    return r < 0 ? undefined : this.vals[r];
  }

  get(key: string): V | undefined {
    return this.getAt(key, -1);
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  forEach(cb: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (let r = 0; r < this.rows.n; r++) {
      const v = this.vals[r];
      if (v !== undefined) cb.call(thisArg, v, this.rows.keys[r]!, this);
    }
  }

  *entries(): MapIterator<[string, V]> {
    for (let r = 0; r < this.rows.n; r++) {
      const v = this.vals[r];
      if (v !== undefined) yield [this.rows.keys[r]!, v];
    }
  }

  keys(): MapIterator<string> {
    if (this.full) return this.rows.keys.values() as MapIterator<string>;
    return this.liveKeys();
  }

  private *liveKeys(): MapIterator<string> {
    for (let r = 0; r < this.rows.n; r++) if (this.vals[r] !== undefined) yield this.rows.keys[r]!;
  }

  values(): MapIterator<V> {
    if (this.full) return (this.vals as readonly V[]).values() as MapIterator<V>;
    return this.liveValues();
  }

  private *liveValues(): MapIterator<V> {
    for (let r = 0; r < this.rows.n; r++) {
      const v = this.vals[r];
      if (v !== undefined) yield v;
    }
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }
}
