// The coordinator stream's records in columns, as the Samza planner and every store backend pass
// them: SSP rows to write, the stored SSP assignment to read, per-task fields sharing one key index
// (the task table).
// (Declared here, below both samza and store, so neither builds its contract from the other.)
import type { Texts } from '../columns/texts.js';

export interface SystemStream {
  system: string;
  stream: string;
}

/**
 * set-task-partition-assignment records in columns: row i stands for the message with key
 * {"system":S,"partition":P,"stream":T,"keyBucket":B} (the canonical SSP key) and value
 * { taskNames: lists[list[i]] }, or a tombstone when list[i] is -1. Logically the same as one
 * record per SSP; backends store them however they like (the file store as columns, a Kafka
 * store as one message per SSP, as Samza does).
 */
export interface SspRows {
  streams: readonly SystemStream[];
  /** Distinct taskNames values: the JSON array text Samza stores, e.g. `["Partition 0"]`. */
  lists: readonly string[];
  /** Rows used in the columns below. */
  n: number;
  stream: Int32Array;
  partition: Int32Array;
  /** null: every key bucket is -1. */
  bucket: Int32Array | null;
  list: Int32Array;
}

/**
 * The stored canonical SSP assignment (read side). Row order is first-write order; rows whose
 * list is -1 are dead and skipped. The arrays may be longer than `rows`.
 */
export interface SspAssignment {
  streams: readonly SystemStream[];
  /** The distinct taskNames texts (made into strings on first use where the store holds them as bytes). */
  readonly lists: readonly string[];
  /** The same texts read in place, without making strings (optional: readers use `lists` without it). */
  listTexts?(): Texts;
  rows: number;
  /** Live rows. */
  live: number;
  stream: Int32Array;
  partition: Int32Array;
  bucket: Int32Array;
  list: Int32Array;
  /** The live row of an SSP, or -1. */
  find(system: string, stream: string, partition: number, bucket: number): number;
  /** The same with a stream id from streamId(). */
  findById(streamId: number, partition: number, bucket: number): number;
  /** The id of a (system, stream) pair in `streams`, or -1. */
  streamId(system: string, stream: string): number;
  /** The type's other records: keys in another form (older Samza) or values of another shape. */
  others(): Map<string, unknown>;
}

/**
 * Per-task records of one or more single-field types as columns (taskTable): row r stands for the
 * record with key keys[r] in every type. Keys never repeat: a damaged log's repeated keys are
 * resolved when the store opens, as a Map would resolve them (first position, last value).
 */
export interface TaskTable {
  /** Rows (live records per type). */
  n: number;
  /** Row -> key, the same for every type (first-write order of the first type), read in place. */
  keys: Texts;
  /** Key -> row, or -1; the index is built on first use. */
  rowOf(key: string): number;
  /** Per type asked for, row -> the field's string. */
  values: readonly Texts[];
}
