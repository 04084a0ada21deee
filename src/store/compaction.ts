// Compaction's output: the live state as frame bodies, per type in first-write order, SSP rows in
// runs of one write (docs/store.md, "Compaction"). CoordinatorStore.compact writes them to a new
// file and swaps it in.
import { encodeBody, Sink, writeFields, writeMessages, writeSsps, type EncodedBody, type SspColumns } from './body.js';
import { encodeKey } from '../coordinator-stream/messages.js';
import { SspTable } from '../coordinator-stream/ssp-table.js';
import type { KeyedTable, StoreState } from './state.js';

/** Rows per section and records per frame when compacting: frames stay far below the body limit. */
const COMPACT_ROWS = 1 << 22;

/** The live state as frame bodies: per type in first-write order, canonical SSP rows first. */
export function* compactedBodies(state: StoreState, tally: { records: number }): Generator<EncodedBody> {
  const frame = new FrameBuilder(state, tally);
  for (const [type, ts] of state.types) {
    if (ts.ssp !== undefined && ts.ssp.live > 0) yield* sspSections(frame, ts.ssp);
    yield* keyedSections(frame, state, type, ts.keyed);
  }
  const b = frame.take();
  if (b !== undefined) yield b;
}

/** The frame being filled by compaction: its sections, its meta table (state meta id -> local) and record count. */
class FrameBuilder {
  sink = new Sink();
  records = 0;
  private metas: string[] = [];
  private local = new Map<number, number>();

  constructor(
    private readonly state: StoreState,
    private readonly tally: { records: number },
  ) {}

  /** The frame's id for the state's meta `global`, added to its table when new. */
  metaOf(global: number): number {
    let id = this.local.get(global);
    if (id === undefined) {
      id = this.metas.length;
      this.metas.push(this.state.metas[global]!);
      this.local.set(global, id);
    }
    return id;
  }

  /** True when rows without a meta column, which mean the frame's meta 0, can be of meta `global` here. */
  canBeMetaZero(global: number): boolean {
    return this.metas.length === 0 || this.local.get(global) === 0;
  }

  /** The frame's body, and a new empty frame; undefined when it holds nothing. */
  take(): EncodedBody | undefined {
    if (this.records === 0) return undefined;
    const body = encodeBody(this.metas, this.sink, this.records);
    this.tally.records += this.records;
    this.sink = new Sink();
    this.metas = [];
    this.local = new Map();
    this.records = 0;
    return body;
  }
}

/** A type's live canonical SSP rows as ssps sections: runs of one write without a meta column, overlays, or a meta column. */
function* sspSections(frame: FrameBuilder, t: SspTable): Generator<EncodedBody> {
  const localOf = new Int32Array(t.lists.length).fill(-1);
  for (let from = 0; from < t.n; ) {
    const cols = liveSspRows(t, from, COMPACT_ROWS, localOf);
    from = cols.next;
    const c = cols.c;
    if (c.n > 0) {
      const overlay = cols.single ? null : overlayRows(c);
      if (cols.single || overlay !== null) {
        // Rows without a meta column refer to the frame's meta 0: start a frame unless this one's meta 0 is theirs.
        const major = overlay === null ? c.meta![0]! : overlay.major;
        if (!frame.canBeMetaZero(major)) {
          const b = frame.take();
          if (b !== undefined) yield b;
        }
        frame.metaOf(major);
        c.meta = null;
      } else {
        for (let i = 0; i < c.n; i++) c.meta![i] = frame.metaOf(c.meta![i]!);
      }
      writeSsps(frame.sink, c);
      frame.records += c.n;
      if (overlay !== null) {
        // The other writes' rows again, with their metas: a key set again keeps its place.
        const o = overlay.rows;
        for (let i = 0; i < o.n; i++) o.meta![i] = frame.metaOf(o.meta![i]!);
        writeSsps(frame.sink, o);
        frame.records += o.n;
      }
    }
    if (frame.records >= COMPACT_ROWS) {
      const b = frame.take();
      if (b !== undefined) yield b;
    }
  }
}

/** A type's other live records, in order: fresh fields sections for runs of one field, messages sections for the rest. */
function* keyedSections(frame: FrameBuilder, state: StoreState, type: string, k: KeyedTable): Generator<EncodedBody> {
  let r = 0;
  while (r < k.n) {
    if (!k.isLive(r)) {
      r++;
      continue;
    }
    const kind = k.kind[r]!;
    if (kind >= 0) {
      const keys: string[] = [];
      const values: string[] = [];
      const meta: number[] = [];
      let oneMeta = true;
      for (; r < k.n && keys.length < COMPACT_ROWS && (!k.isLive(r) || k.kind[r] === kind); r++) {
        if (!k.isLive(r)) continue;
        keys.push(k.keys[r]!);
        values.push(k.vals[r]!);
        const m = frame.metaOf(k.meta[r]!);
        if (m !== 0) oneMeta = false;
        meta.push(m);
      }
      // Compaction writes each key of a type once: every fields section is fresh.
      writeFields(frame.sink, { type, field: state.fields[kind]!, keys, values, meta: oneMeta ? null : Int32Array.from(meta), fresh: true });
      frame.records += keys.length;
    } else {
      const msgs: Array<{ key: string; value: string }> = [];
      for (; r < k.n && msgs.length < COMPACT_ROWS && (!k.isLive(r) || k.kind[r]! < 0); r++) {
        if (!k.isLive(r)) continue;
        msgs.push({ key: encodeKey(type, k.keys[r]!), value: k.vals[r]! });
      }
      writeMessages(frame.sink, msgs);
      frame.records += msgs.length;
    }
    if (frame.records >= COMPACT_ROWS || frame.sink.length >= 64 << 20) {
      const b = frame.take();
      if (b !== undefined) yield b;
    }
  }
}

/** Bytes an overlay section costs besides its rows and lists: section and stream tables, and perhaps a frame of its own. */
const OVERLAY_OVERHEAD = 512;

/**
 * A section of rows from several writes needs a 4-byte meta id per row, which the writes
 * themselves did not (each frame's rows share its meta 0): compacting a log whose later writes
 * touched a few rows each could grow it by a third. Cheaper, when few rows are of other writes:
 * every row under the most common meta (no column), then the rows of other writes once more with
 * their metas; a key set again keeps its place, so the state is the same. Returns those rows (meta
 * ids still the state's) and the common meta, or null when the meta column is smaller.
 */
function overlayRows(c: SspColumns): { major: number; rows: SspColumns } | null {
  const meta = c.meta!;
  const count = new Map<number, number>();
  let major = meta[0]!;
  let best = 0;
  for (let i = 0; i < c.n; i++) {
    const k = (count.get(meta[i]!) ?? 0) + 1;
    count.set(meta[i]!, k);
    if (k > best) [best, major] = [k, meta[i]!];
  }
  const n = c.n - best;
  const rowBytes = 16 + (c.bucket === null ? 0 : 4);
  if (n * rowBytes + OVERLAY_OVERHEAD >= 4 * c.n) return null;
  const rows = { stream: new Int32Array(n), partition: new Int32Array(n), bucket: new Int32Array(n), list: new Int32Array(n), meta: new Int32Array(n) };
  const lists: string[] = [];
  const localOf = new Map<number, number>();
  let listBytes = 0;
  for (let i = 0, w = 0; i < c.n; i++) {
    if (meta[i] === major) continue;
    rows.stream[w] = c.stream[i]!;
    rows.partition[w] = c.partition[i]!;
    rows.bucket[w] = c.bucket === null ? -1 : c.bucket[i]!;
    let l = localOf.get(c.list[i]!);
    if (l === undefined) {
      l = lists.length;
      localOf.set(c.list[i]!, l);
      lists.push(c.lists[c.list[i]!]!);
      listBytes += 4 + 3 * lists[l]!.length;
    }
    rows.list[w] = l;
    rows.meta[w++] = meta[i]!;
  }
  if (n * rowBytes + listBytes + OVERLAY_OVERHEAD >= 4 * c.n) return null;
  return { major, rows: { streams: c.streams, lists, n, stream: rows.stream, partition: rows.partition, bucket: c.bucket === null ? null : rows.bucket, list: rows.list, meta: rows.meta } };
}

/**
 * A run of at least this many rows written by one frame (one envelope meta) becomes a section of
 * its own, with no per-row meta column: a column costs 4 bytes a row, a section a few dozen bytes
 * and the lists its rows use. Shorter runs share a section with a meta column.
 */
const META_RUN = 4096;

/**
 * The next section of live canonical rows from row `from` (at most `max` rows): a run of one meta
 * (`single`), or a stretch of short runs that needs a meta column. Its lists table holds only the lists its rows use
 * (`localOf` is scratch, -1 for every list id, and is left so), so cutting sections at meta runs
 * repeats no list text beyond the lists two sections share.
 */
function liveSspRows(t: SspTable, from: number, max: number, localOf: Int32Array): { c: SspColumns; single: boolean; next: number } {
  // Where the section ends: after the first run when it is long, else before the first long run.
  let n = 0;
  let r = from;
  let runStart = -1;
  let runMeta = -1;
  let runLength = 0;
  let firstRunLong = false;
  for (; r < t.n && n < max; r++) {
    if (t.list[r]! < 0) continue;
    const m = t.meta[r]!;
    if (m !== runMeta) {
      if (n > 0 && firstRunLong) break; // the long first run ends here
      runMeta = m;
      runStart = r;
      runLength = 0;
    }
    runLength++;
    n++;
    if (runLength === META_RUN) {
      if (n === runLength) firstRunLong = true;
      else {
        // A long run after short ones: the section ends where it starts.
        n -= runLength;
        r = runStart;
        break;
      }
    }
  }
  const c = { stream: new Int32Array(n), partition: new Int32Array(n), bucket: new Int32Array(n), list: new Int32Array(n), meta: new Int32Array(n) };
  const lists: string[] = [];
  let anyBucket = false;
  let oneMeta = true;
  let w = 0;
  for (let i = from; i < r; i++) {
    const l = t.list[i]!;
    if (l < 0) continue;
    c.stream[w] = t.stream[i]!;
    c.partition[w] = t.partition[i]!;
    c.bucket[w] = t.bucket[i]!;
    if (t.bucket[i] !== -1) anyBucket = true;
    if (localOf[l] === -1) {
      localOf[l] = lists.length;
      lists.push(t.lists[l]!);
    }
    c.list[w] = localOf[l]!;
    c.meta[w] = t.meta[i]!;
    if (c.meta[w] !== c.meta[0]) oneMeta = false;
    w++;
  }
  for (let i = from; i < r; i++) if (t.list[i]! >= 0) localOf[t.list[i]!] = -1;
  // The meta column holds the state's meta ids; the caller maps them to the frame's (or drops the column).
  return {
    c: { streams: t.streams, lists, n, stream: c.stream, partition: c.partition, bucket: anyBucket ? c.bucket : null, list: c.list, meta: c.meta },
    single: oneMeta,
    next: r,
  };
}
