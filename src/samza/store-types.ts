// The generic coordinator store contract (src/store/ implements it on disk);
// the Samza managers only use this shape, so tests can pass an in-memory store.
export interface StoreRecord {
  type: string;
  key: string;
  /** null deletes the key (a tombstone). */
  value: unknown | null;
}

export interface CoordinatorStoreLike {
  get(type: string, key: string): unknown | undefined;
  entries(type: string): Map<string, unknown>;
  put(type: string, key: string, value: unknown): void;
  delete(type: string, key: string): void;
  /** Applies all records with one durable write. */
  writeBatch(records: StoreRecord[]): void;
}

/** An in-memory store with the same semantics (last write wins, null deletes). */
export class MemoryCoordinatorStore implements CoordinatorStoreLike {
  private readonly types = new Map<string, Map<string, unknown>>();
  /** How many writeBatch calls ran (the cycle promises exactly one per computation). */
  batches = 0;
  readonly log: StoreRecord[] = [];

  get(type: string, key: string): unknown | undefined {
    return this.types.get(type)?.get(key);
  }

  entries(type: string): Map<string, unknown> {
    return new Map(this.types.get(type) ?? []);
  }

  put(type: string, key: string, value: unknown): void {
    this.apply({ type, key, value });
  }

  delete(type: string, key: string): void {
    this.apply({ type, key, value: null });
  }

  writeBatch(records: StoreRecord[]): void {
    this.batches++;
    for (const r of records) this.apply(r);
  }

  private apply(r: StoreRecord): void {
    this.log.push(r);
    let m = this.types.get(r.type);
    if (m === undefined) this.types.set(r.type, (m = new Map()));
    if (r.value === null) m.delete(r.key);
    else m.set(r.key, JSON.parse(JSON.stringify(r.value)));
  }
}
