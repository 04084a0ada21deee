// The coordinator-store interface every backend implements: the embedded log (CoordinatorStore,
// the default) now, a compacted Kafka topic in Samza's coordinator-stream layout next. The
// logical content is the same for both: Samza coordinator-stream messages, key [1,"<type>","<key>"]
// and a value envelope, last write wins per (type, key), a null value deletes. docs/store.md has
// the contract in prose.
import { fail } from '../errors.js';
import type { Envelope } from '../coordinator-stream/messages.js';
import type { SspAssignment, SspRows, SystemStream, TaskTable } from '../coordinator-stream/columns.js';
import type { CoordinatorStoreReader, StoreRecord } from '../samza/store-types.js';
import { INT32_MAX } from '../basics.js';

export type { SspAssignment, SspRows, StoreRecord, SystemStream, TaskTable };


/** What `assignor store inspect` shows. */
export interface StoreStats {
  /** The store's location: a directory, or kafka://host:port/topic. */
  location: string;
  /** The file (or topic) holding the log. */
  log: string;
  /** When the log is reached through a symbolic link: the link's target as written. */
  linkTarget?: string;
  formatVersion: number;
  /** Size of the log now. */
  fileBytes: number;
  /** Bytes of good, replayed data at open (the append position). */
  goodBytes: number;
  frames: number;
  /** Records in the log: live ones, overwritten ones, deleted ones and tombstones. */
  records: number;
  liveKeys: number;
  deadRecords: number;
  types: Array<{ type: string; keys: number }>;
  /** Newest envelope timestamp in the log (epoch ms), if any record carries one. */
  lastWrite: number | undefined;
  /** Modification time of the log file (epoch ms). */
  modified: number | undefined;
  /** Torn-tail bytes ignored (read-only) or dropped (writer) at open. */
  tornBytes: number;
}

/**
 * A coordinator store: the reader the Samza cycle needs (CoordinatorStoreReader, declared in
 * src/samza/store-types.ts) and the reads the CLI and tools use. Reads are served from memory: the log replayed at open plus this handle's
 * own writes, so they are synchronous for every backend. A write is one atomic, durable batch:
 * after a crash either all of it is visible or none of it. One writer per store; a second one is
 * refused (file store: the lock) or fenced (Kafka store: the transactional id).
 *
 * Errors are AssignorErrors with the E_STORE_* codes listed in docs/store.md.
 */
export interface CoordinatorStoreBackend extends CoordinatorStoreReader {
  /** Where the store lives: a directory, or kafka://host:port/topic. */
  readonly location: string;
  readonly readOnly: boolean;
  /** The `values` of the live message, a fresh copy; undefined when absent or deleted. */
  get(type: string, key: string): unknown | undefined;
  has(type: string, key: string): boolean;
  /** The whole value envelope of the live message. */
  message(type: string, key: string): Envelope | undefined;
  /** key -> values of one type, first-write order (canonical SSP rows first for the assignment type). */
  entries(type: string): Map<string, unknown>;
  /** Types holding at least one live key, in first-write order. */
  types(): string[];
  /** Live keys over all types. */
  readonly size: number;
  /**
   * key -> value of `field` for one type when every live record of it is exactly { [field]: "<string>" }
   * (Samza's usual shape), in first-write order; undefined when any record is not (read entries() then).
   */
  singleFields(type: string, field: string): Map<string, string> | undefined;
  /** set-task-partition-assignment with canonical keys, as columns (the one type that grows with the job). */
  sspAssignment(): SspAssignment;
  /**
   * Single-field types holding the same keys in the same order (Samza's per-task types), as
   * columns sharing one key index; empty when none holds a record, undefined when they do not (read
   * entries then). A live view.
   */
  taskTable(specs: ReadonlyArray<readonly [type: string, field: string]>): TaskTable | undefined;
  /**
   * Writes the records in order, then the SSP rows, as one atomic, durable batch. The file store
   * completes synchronously; a network backend returns a promise (await it either way).
   */
  commit(records: ReadonlyArray<StoreRecord>, ssps?: SspRows): void | Promise<void>;
  /** Every live message in Samza's layout: key JSON `[1,"<type>","<key>"]` and envelope JSON (export). */
  messages(): Iterable<{ key: string; value: string }>;
  stats(): StoreStats;
  close(): void | Promise<void>;
}


/** Validates caller-supplied SSP rows (both backends apply it before writing); returns the row count. */
export function checkSspRows(r: SspRows): number {
  if (typeof r !== 'object' || r === null) fail('E_STORE_ARG', 'ssps must be an object of SSP assignment columns', 'ssps');
  const n = r.n;
  if (!Number.isInteger(n) || n < 0) fail('E_STORE_ARG', `ssps.n must be a row count, got ${String(n)}`, 'ssps.n');
  for (const [name, col] of [['stream', r.stream], ['partition', r.partition], ['list', r.list]] as const) {
    if (!(col instanceof Int32Array) || col.length < n) fail('E_STORE_ARG', `ssps.${name} must be an Int32Array of at least ${n} rows`, `ssps.${name}`);
  }
  if (r.bucket !== null && (!(r.bucket instanceof Int32Array) || r.bucket.length < n)) fail('E_STORE_ARG', `ssps.bucket must be null or an Int32Array of at least ${n} rows`, 'ssps.bucket');
  for (let i = 0; i < r.streams.length; i++) {
    const s = r.streams[i]!;
    if (typeof s?.system !== 'string' || typeof s.stream !== 'string') fail('E_STORE_ARG', `ssps.streams[${i}] must be { system, stream } strings`, `ssps.streams[${i}]`);
  }
  for (let i = 0; i < r.lists.length; i++) {
    if (typeof r.lists[i] !== 'string') fail('E_STORE_ARG', `ssps.lists[${i}] must be a string (the taskNames JSON text)`, `ssps.lists[${i}]`);
  }
  for (let i = 0; i < n; i++) {
    const s = r.stream[i]!;
    const p = r.partition[i]!;
    const b = r.bucket === null ? -1 : r.bucket[i]!;
    const l = r.list[i]!;
    if (s < 0 || s >= r.streams.length || p < 0 || p > INT32_MAX || b < -1 || l < -1 || l >= r.lists.length) {
      fail('E_STORE_ARG', `ssps row ${i} is out of range (stream ${s}, partition ${p}, keyBucket ${b}, list ${l})`, `ssps[${i}]`);
    }
  }
  return n;
}
