// The one large message type, `set-task-partition-assignment`, held in columns: one row per SSP
// (stream id, partition, key bucket, task-list id, envelope-meta id) instead of one key string and
// one JSON envelope per SSP. Only records whose key is the canonical SSP JSON and whose value is
// exactly { taskNames: "<string>" } live here; the store keeps any other record of the type as a
// plain message. A row keeps its first-write position (a JS Map's order), as plain messages do.
import { StringColumn, type Texts } from '../columns/texts.js';
import type { SspAssignment, SspRows, SystemStream } from './columns.js';

/** Grows a typed array to hold at least `need` elements (doubling), copying the used part. */
export function growI32(a: Int32Array, need: number): Int32Array {
  if (need <= a.length) return a;
  const b = new Int32Array(Math.max(need, a.length * 2, 16));
  b.set(a);
  return b;
}

/**
 * partition -> row for one (stream, key bucket). Dense while partitions are about 0..n-1 (a typed
 * array, no hashing); a Map once they are sparse, so partition 2^31-1 alone costs one entry.
 */
class PartitionIndex {
  private dense: Int32Array | null = new Int32Array(16); // row + 1; 0 = absent
  private sparse: Map<number, number> | null = null;
  private count = 0;

  get(p: number): number {
    if (this.dense !== null) return p < this.dense.length ? this.dense[p]! - 1 : -1;
    return this.sparse!.get(p) ?? -1;
  }

  set(p: number, row: number): void {
    if (this.dense !== null) {
      if (p < this.dense.length) {
        if (this.dense[p] === 0) this.count++;
        this.dense[p] = row + 1;
        return;
      }
      if (p < 2 * this.count + 1024) {
        const d = new Int32Array(Math.max(p + 1, this.dense.length * 2));
        d.set(this.dense);
        this.dense = d;
        this.dense[p] = row + 1;
        this.count++;
        return;
      }
      this.sparse = new Map();
      for (let i = 0; i < this.dense.length; i++) if (this.dense[i] !== 0) this.sparse.set(i, this.dense[i]! - 1);
      this.dense = null;
    }
    if (!this.sparse!.has(p)) this.count++;
    this.sparse!.set(p, row);
  }

  delete(p: number): void {
    if (this.dense !== null) {
      if (p < this.dense.length && this.dense[p] !== 0) {
        this.dense[p] = 0;
        this.count--;
      }
    } else if (this.sparse!.delete(p)) this.count--;
  }
}

/** SSP rows SspTable.adopt takes over, streams and lists already in the table's ids: every bucket given, and each row's meta id. */
export type AdoptedRows = Pick<SspRows, 'n' | 'stream' | 'partition' | 'list'> & { bucket: Int32Array; meta: Int32Array };

export class SspTable {
  /** Distinct (system, stream) pairs; a row's stream id indexes this. */
  readonly streams: SystemStream[] = [];
  /** Distinct `taskNames` strings (JSON array text, as stored); a row's list id indexes this. Bytes from the log until someone needs the strings. */
  private readonly listCol = new StringColumn();

  get lists(): string[] {
    return this.listCol.strings;
  }

  set lists(v: string[]) {
    this.listCol.strings = v;
  }

  /** The lists without making strings where they are still bytes. */
  listTexts(): Texts {
    return this.listCol.texts();
  }

  /** How many lists there are. */
  get listCount(): number {
    return this.listCol.length;
  }
  /** Rows used (live and dead). */
  n = 0;
  live = 0;
  stream: Int32Array = new Int32Array(0);
  partition: Int32Array = new Int32Array(0);
  bucket: Int32Array = new Int32Array(0);
  /** List id, or -1 for a dead row (deleted or moved). */
  list: Int32Array = new Int32Array(0);
  /** Envelope-meta id (the store's meta table). */
  meta: Int32Array = new Int32Array(0);

  private readonly streamIds = new Map<string, number>();
  private listIds: Map<string, number> | undefined;
  /** Per stream id, per key bucket. */
  private index: Array<Map<number, PartitionIndex> | undefined> = [];
  private lastStream = -1;
  private lastBucket = 0;
  private lastIndex: PartitionIndex | undefined;

  streamId(system: string, stream: string, create: boolean): number {
    const k = `${system.length}:${system}${stream}`;
    let id = this.streamIds.get(k);
    if (id === undefined) {
      if (!create) return -1;
      id = this.streams.length;
      this.streams.push({ system, stream });
      this.streamIds.set(k, id);
    }
    return id;
  }

  listId(taskNames: string): number {
    if (this.listIds === undefined) {
      this.listIds = new Map();
      for (let i = 0; i < this.lists.length; i++) this.listIds.set(this.lists[i]!, i);
    }
    let id = this.listIds.get(taskNames);
    if (id === undefined) {
      id = this.lists.length;
      this.lists.push(taskNames);
      this.listIds.set(taskNames, id);
    }
    return id;
  }

  /** Maps a section's list table into this table's ids (adopted as is while the table has none). */
  adoptLists(column: readonly string[] | Texts): Int32Array {
    const out = new Int32Array(column.length);
    if (this.listCount === 0 && this.listIds === undefined) {
      if (Array.isArray(column)) this.lists = column.slice();
      else this.listCol.bytes = column as Texts;
      for (let i = 0; i < out.length; i++) out[i] = i;
      // Duplicate strings in the section would only mean two ids for one list: harmless.
      return out;
    }
    const lists = Array.isArray(column) ? (column as readonly string[]) : (column as Texts).toArray();
    for (let i = 0; i < lists.length; i++) out[i] = this.listId(lists[i]!);
    return out;
  }

  private partIndex(stream: number, bucket: number, create: boolean): PartitionIndex | undefined {
    if (stream === this.lastStream && bucket === this.lastBucket && this.lastIndex !== undefined) return this.lastIndex;
    let byBucket = this.index[stream];
    if (byBucket === undefined) {
      if (!create) return undefined;
      this.index[stream] = byBucket = new Map();
    }
    let pi = byBucket.get(bucket);
    if (pi === undefined) {
      if (!create) return undefined;
      byBucket.set(bucket, (pi = new PartitionIndex()));
    }
    this.lastStream = stream;
    this.lastBucket = bucket;
    this.lastIndex = pi;
    return pi;
  }

  /** The live row of an SSP, or -1. */
  find(stream: number, partition: number, bucket: number): number {
    if (stream < 0) return -1;
    return this.partIndex(stream, bucket, false)?.get(partition) ?? -1;
  }

  /** Sets (list >= 0) or deletes (list < 0) one SSP's row, with a JS Map's order semantics. */
  set(stream: number, partition: number, bucket: number, list: number, meta: number): void {
    const pi = this.partIndex(stream, bucket, list >= 0)!;
    const row = pi === undefined ? -1 : pi.get(partition);
    if (list < 0) {
      if (row >= 0) {
        this.list[row] = -1;
        pi.delete(partition);
        this.live--;
      }
      return;
    }
    if (row >= 0) {
      this.list[row] = list;
      this.meta[row] = meta;
      return;
    }
    const r = this.n++;
    if (r >= this.list.length) this.reserve(r + 1);
    this.stream[r] = stream;
    this.partition[r] = partition;
    this.bucket[r] = bucket;
    this.list[r] = list;
    this.meta[r] = meta;
    pi.set(partition, r);
    this.live++;
  }

  /** Inserts a row for an SSP not present yet and returns -1; returns the SSP's row, unchanged, when it is. */
  add(stream: number, partition: number, bucket: number, list: number, meta: number): number {
    const pi = this.partIndex(stream, bucket, true)!;
    const row = pi.get(partition);
    if (row >= 0) return row;
    const r = this.n++;
    if (r >= this.list.length) this.reserve(r + 1);
    this.stream[r] = stream;
    this.partition[r] = partition;
    this.bucket[r] = bucket;
    this.list[r] = list;
    this.meta[r] = meta;
    pi.set(partition, r);
    this.live++;
    return -1;
  }

  /**
   * Loads rows into an EMPTY table, taking the columns over (no copy) and indexing them in one
   * pass with a JS Map's semantics: a repeated SSP keeps its first row and takes the later list;
   * a tombstone removes an earlier row. `stream` and `list` must already be in this table's ids.
   */
  adopt(rows: AdoptedRows): void {
    const { n, stream, partition, bucket, list, meta } = rows;
    if (this.n !== 0) throw new Error('SspTable.adopt needs an empty table');
    this.stream = stream;
    this.partition = partition;
    this.bucket = bucket;
    this.list = list;
    this.meta = meta;
    this.n = n;
    let live = 0;
    let curS = -1;
    let curB = 0;
    let pi: PartitionIndex | undefined;
    for (let r = 0; r < n; r++) {
      const s = stream[r]!;
      const b = bucket[r]!;
      if (s !== curS || b !== curB || pi === undefined) {
        pi = this.partIndex(s, b, true)!;
        curS = s;
        curB = b;
      }
      const p = partition[r]!;
      const l = list[r]!;
      const earlier = pi.get(p);
      if (l < 0) {
        if (earlier >= 0) {
          list[earlier] = -1;
          pi.delete(p);
          live--;
        }
        continue;
      }
      if (earlier >= 0) {
        list[earlier] = l;
        meta[earlier] = meta[r]!;
        list[r] = -1;
        continue;
      }
      pi.set(p, r);
      live++;
    }
    this.live = live;
  }

  /** Makes room for `rows` rows in total. */
  reserve(rows: number): void {
    if (rows <= this.list.length) return;
    const size = Math.max(rows, this.list.length * 2, 16);
    this.stream = growTo(this.stream, size);
    this.partition = growTo(this.partition, size);
    this.bucket = growTo(this.bucket, size);
    this.list = growTo(this.list, size);
    this.meta = growTo(this.meta, size);
  }

  /** Drops dead rows and unused lists when they outnumber the live ones (keeps memory proportional to the state). */
  maybeShrink(): void {
    if (this.n - this.live <= this.live || this.n < 4096) return;
    this.rebuild();
  }

  /** Rewrites the columns with live rows only, in order, and rebuilds the index. */
  rebuild(): void {
    const used = new Int32Array(this.lists.length).fill(-1);
    const lists: string[] = [];
    const live = this.live;
    const cols = { stream: new Int32Array(live), partition: new Int32Array(live), bucket: new Int32Array(live), list: new Int32Array(live), meta: new Int32Array(live) };
    let w = 0;
    for (let r = 0; r < this.n; r++) {
      const l = this.list[r]!;
      if (l < 0) continue;
      let nl = used[l]!;
      if (nl < 0) {
        nl = used[l] = lists.length;
        lists.push(this.lists[l]!);
      }
      cols.stream[w] = this.stream[r]!;
      cols.partition[w] = this.partition[r]!;
      cols.bucket[w] = this.bucket[r]!;
      cols.list[w] = nl;
      cols.meta[w] = this.meta[r]!;
      w++;
    }
    this.stream = cols.stream;
    this.partition = cols.partition;
    this.bucket = cols.bucket;
    this.list = cols.list;
    this.meta = cols.meta;
    this.lists = lists;
    this.listIds = undefined;
    this.n = w;
    this.index = [];
    this.lastIndex = undefined;
    this.lastStream = -1;
    for (let r = 0; r < w; r++) this.partIndex(this.stream[r]!, this.bucket[r]!, true)!.set(this.partition[r]!, r);
  }
}

function growTo(a: Int32Array, size: number): Int32Array {
  const b = new Int32Array(size);
  b.set(a.subarray(0, Math.min(a.length, size)));
  return b;
}

/**
 * An SspAssignment over a table's columns; `others` gives the records that are not canonical SSP
 * rows.
 */
export function sspAssignmentOf(t: SspTable, others: () => Map<string, unknown>): SspAssignment {
  return {
    streams: t.streams,
    get lists() {
      return t.lists;
    },
    listTexts: () => t.listTexts(),
    rows: t.n,
    live: t.live,
    stream: t.stream,
    partition: t.partition,
    bucket: t.bucket,
    list: t.list,
    find: (system, stream, partition, bucket) => t.find(t.streamId(system, stream, false), partition, bucket),
    findById: (streamId, partition, bucket) => t.find(streamId, partition, bucket),
    streamId: (system, stream) => t.streamId(system, stream, false),
    others,
  };
}
