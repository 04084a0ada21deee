// The coordinator store contract the Samza layer needs, declared here (src/store/ implements it on
// disk and in Kafka; CoordinatorStoreBackend there is the full interface); tests can pass an
// in-memory store. The column shapes it passes live below both, in src/coordinator-stream/.
import type { SharedFields, SspAssignment, SspRows } from '../coordinator-stream/columns.js';
import { canonicalSspKey } from '../coordinator-stream/ssp-key.js';
import { MessageType } from '../coordinator-stream/messages.js';

export type { SharedFields, SspAssignment, SspRows };

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
  /**
   * Applies all records, then the SSP rows (each row is a set-task-partition-assignment record with
   * the canonical SSP key), with one durable write.
   */
  writeBatch(records: StoreRecord[], ssps?: SspRows): void;
  /** Optional fast path: the canonical SSP assignment records as columns (the file store has it). */
  sspAssignment?(): SspAssignment;
  /** Optional fast path: key -> value of `field` when every record of the type is exactly { [field]: string }, else undefined. */
  singleFields?(type: string, field: string): Map<string, string> | undefined;
  /** Optional fast path: several single-field types with the same keys in the same order, as columns sharing one key index. */
  sharedFields?(specs: ReadonlyArray<readonly [type: string, field: string]>): SharedFields | undefined;
}

/** The records SSP rows stand for, in order (for stores that keep one record per SSP). */
export function sspRowRecords(r: SspRows): StoreRecord[] {
  const out: StoreRecord[] = [];
  for (let i = 0; i < r.n; i++) {
    const s = r.streams[r.stream[i]!]!;
    const l = r.list[i]!;
    out.push({
      type: MessageType.TaskPartitionAssignment,
      key: canonicalSspKey(s.system, s.stream, r.partition[i]!, r.bucket === null ? -1 : r.bucket[i]!),
      value: l < 0 ? null : { taskNames: r.lists[l]! },
    });
  }
  return out;
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

  writeBatch(records: StoreRecord[], ssps?: SspRows): void {
    this.batches++;
    for (const r of records) this.apply(r);
    if (ssps !== undefined) for (const r of sspRowRecords(ssps)) this.apply(r);
  }

  private apply(r: StoreRecord): void {
    this.log.push(r);
    let m = this.types.get(r.type);
    if (m === undefined) this.types.set(r.type, (m = new Map()));
    if (r.value === null) m.delete(r.key);
    else m.set(r.key, JSON.parse(JSON.stringify(r.value)));
  }
}
