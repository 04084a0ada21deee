// A coordinator store in memory, for tests and dry runs: the file store's state without a file. A
// write is encoded as the file store encodes its frame and applied as a reopened store reads it
// back, so what it holds (byte columns, the SSP table, fresh sections, repeated keys resolved) and
// what its reads hand out are what the file store's are. Nothing is durable.
import { fail } from '../errors.js';
import { checkSspRows, type SspRows } from './backend.js';
import { decodeBody } from './body.js';
import { encodeBatch } from './frame-encoding.js';
import { ReplayedState } from './replayed-state.js';
import { canonicalSspKey } from '../coordinator-stream/ssp-key.js';
import type { StoreRecord, SyncCoordinatorStore } from '../samza/store-types.js';

export interface MemoryStoreOptions {
  /** The envelope's host and username (defaults: "memory" and "assignor"). */
  host?: string;
  username?: string;
  /** The clock stamped on every envelope (ms). */
  now?: () => number;
}

export class MemoryCoordinatorStore extends ReplayedState implements SyncCoordinatorStore {
  readonly location = 'memory';
  readonly readOnly = false;
  /** How many writes ran (the cycle promises exactly one per computation). */
  batches = 0;
  /** Every record written, in order (SSP rows as one record each). */
  readonly log: StoreRecord[] = [];
  private readonly meta: { host: string; username: string; now: () => number };

  constructor(options: MemoryStoreOptions = {}) {
    super();
    this.meta = { host: options.host ?? 'memory', username: options.username ?? 'assignor', now: options.now ?? Date.now };
  }

  put(type: string, key: string, value: unknown): void {
    this.commit([{ type, key, value }]);
  }

  delete(type: string, key: string): void {
    this.commit([{ type, key, value: null }]);
  }

  /** Applies the records in order, then the SSP rows, with the file store's checks and errors. */
  commit(records: ReadonlyArray<StoreRecord>, ssps?: SspRows): void {
    if (!Array.isArray(records)) fail('E_STORE_ARG', 'commit expects an array of { type, key, value }');
    const rows = ssps === undefined ? 0 : checkSspRows(ssps);
    this.batches++;
    if (records.length === 0 && rows === 0) return;
    const meta = { host: this.meta.host, username: this.meta.username, timestamp: this.meta.now() };
    const { body } = encodeBatch(records, ssps, rows, meta, (type) => this.state.liveOf(type) === 0);
    const bytes = Buffer.concat(body.chunks, body.length);
    const ts = this.state.applyBody(decodeBody(bytes, 0, bytes.length));
    if (ts !== undefined && (this.lastTimestamp === undefined || ts > this.lastTimestamp)) this.lastTimestamp = ts;
    for (const r of records) this.log.push({ type: r.type, key: r.key, value: r.value === null ? null : (JSON.parse(JSON.stringify(r.value)) as unknown) });
    if (ssps !== undefined) for (const r of sspRowRecords(ssps)) this.log.push(r);
  }
}

/** The records SSP rows stand for, in order (for stores that keep one record per SSP). */
export function sspRowRecords(r: SspRows): StoreRecord[] {
  const out: StoreRecord[] = [];
  for (let i = 0; i < r.n; i++) {
    const s = r.streams[r.stream[i]!]!;
    const l = r.list[i]!;
    out.push({
      type: 'set-task-partition-assignment',
      key: canonicalSspKey(s.system, s.stream, r.partition[i]!, r.bucket === null ? -1 : r.bucket[i]!),
      value: l < 0 ? null : { taskNames: r.lists[l]! },
    });
  }
  return out;
}
