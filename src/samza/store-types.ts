// The coordinator-store contract the Samza layer declares: the reads its cycle needs and its one
// write. src/store/ implements it (the file store, the Kafka store, and MemoryCoordinatorStore, the
// file store's state without a file); CoordinatorStoreBackend there adds what the CLI and tools read.
// The column shapes it passes live below both, in src/coordinator-stream/.
import type { SspAssignment, SspRows, TaskTable } from '../coordinator-stream/columns.js';

export type { SspAssignment, SspRows, TaskTable };

/** One message to write: `value` is the envelope's `values` (null: a tombstone). The one record type of every store. */
export interface StoreRecord {
  type: string;
  key: string;
  /** null deletes the key (a tombstone). */
  value: unknown | null;
}

/** A per-task type as the task table reads it: the message type and the field of its value. */
export type TaskTableSpec = readonly [type: string, field: string];

/**
 * What the cycle reads from a store, and its one write. Reads are synchronous (a store serves them
 * from the state it replayed at open) and see a damaged log's repeated keys already resolved.
 */
export interface CoordinatorStoreReader {
  /** key -> values of one type, first-write order (canonical SSP rows first for the assignment type). */
  entries(type: string): Map<string, unknown>;
  /** set-task-partition-assignment with canonical keys, as columns. */
  sspAssignment(): SspAssignment;
  /**
   * Single-field types holding the same keys in the same order (Samza's per-task types, or one type
   * alone), as columns over one key column: empty when no type holds a record, undefined when a
   * record has another shape or the keys differ (read entries then).
   */
  taskTable(specs: ReadonlyArray<TaskTableSpec>): TaskTable | undefined;
  /**
   * Writes the records in order, then the SSP rows (each a set-task-partition-assignment record with
   * the canonical SSP key), as one atomic, durable batch. A network store returns a promise.
   */
  commit(records: ReadonlyArray<StoreRecord>, ssps?: SspRows): void | Promise<void>;
}

/** A store whose commit completes synchronously (the file and memory stores): what runCycle writes to. */
export interface SyncCoordinatorStore extends CoordinatorStoreReader {
  commit(records: ReadonlyArray<StoreRecord>, ssps?: SspRows): void;
}

/** @deprecated The former name of CoordinatorStoreReader (which writes with commit); goes in the next release. */
export type CoordinatorStoreLike = CoordinatorStoreReader;
