// The replayed state of a coordinator stream: per message type, key -> value, last write wins,
// null deletes, first-write order (exactly a JS Map). Values are held compactly where they have
// Samza's usual shape: a { "<field>": "<string>" } value is its string plus a shared envelope head
// (host, username, source, timestamp), and canonical SSP assignment records live in columns
// (ssp-table.ts). Any other value is kept as its envelope JSON, verbatim.
import { decodeEnvelope, decodeKey, joinEnvelope, MessageType, splitEnvelope, type Envelope } from '../coordinator-stream/messages.js';
import { sspAssignmentOf, SspTable } from '../coordinator-stream/ssp-table.js';
import { canonicalSspKey, parseCanonical } from '../coordinator-stream/ssp-key.js';
import { columnStrings, Malformed, type Body, type Column, type SspColumns } from './body.js';
import { StringIndex } from '../columns/string-index.js';
import { AsciiColumn } from '../columns/ascii-column.js';
import { ArrayTexts, StringColumn, type Texts } from '../columns/texts.js';
import { repeatsAKey } from './key-repeats.js';
import type { SspAssignment, TaskTable } from './backend.js';
import { sameItems } from '../basics.js';

const DEAD = -2;
const ENVELOPE = -1;
export const SSP_TYPE: string = MessageType.TaskPartitionAssignment;
export const SSP_FIELD = 'taskNames';

function growI32(a: Int32Array, need: number): Int32Array {
  if (need <= a.length) return a;
  const b = new Int32Array(Math.max(need, a.length * 2, 16));
  b.set(a);
  return b;
}

/**
 * Keys of one type in first-write order; a row holds a field id and string, or an envelope. The
 * key -> row index is built on first use: rows loaded from a section whose keys are known to be
 * new (compaction output, a type's first write) are appended without it, so a read-only pass
 * over a million task records costs no hashing.
 */
export class KeyedTable {
  private index = new Map<string, number>();
  /** Rows [0, indexed) are in the index. */
  private indexed = 0;
  /** Keys, and the field's string (kind >= 0) or the envelope JSON (kind ENVELOPE): bytes from the log until someone needs the strings. */
  private readonly keyCol = new StringColumn<AsciiColumn>();
  private readonly valCol = new StringColumn<AsciiColumn>();
  /** Field id, ENVELOPE, or DEAD. */
  kind: Int32Array = new Int32Array(16);
  meta: Int32Array = new Int32Array(16);
  n = 0;
  live = 0;

  get keys(): string[] {
    return this.keyCol.strings;
  }

  set keys(v: string[]) {
    this.keyCol.strings = v;
  }

  get vals(): string[] {
    return this.valCol.strings;
  }

  set vals(v: string[]) {
    this.valCol.strings = v;
  }

  /** Rows' keys without making strings where they are still bytes. */
  keyTexts(): Texts {
    return this.keyCol.texts();
  }

  valTexts(): Texts {
    return this.valCol.texts();
  }

  /** Whether this table's keys are row for row those of `o` (compared as bytes when both still are). */
  sameKeys(o: KeyedTable): boolean {
    if (this.n !== o.n) return false;
    const a = this.keyCol.bytes;
    const b = o.keyCol.bytes;
    return (a !== undefined && b !== undefined && a.sameAs(b)) || sameItems(this.keys, o.keys);
  }

  /** Indexes the appended rows, with a JS Map's semantics should a key repeat (first row kept, later value). */
  private ensureIndex(): void {
    for (let r = this.indexed; r < this.n; r++) {
      if (this.kind[r] === DEAD) continue;
      const k = this.keys[r]!;
      const first = this.index.get(k);
      if (first === undefined) {
        this.index.set(k, r);
        continue;
      }
      this.kind[first] = this.kind[r]!;
      this.vals[first] = this.vals[r]!;
      this.meta[first] = this.meta[r]!;
      this.kind[r] = DEAD;
      this.vals[r] = '';
      this.live--;
    }
    this.indexed = this.n;
  }

  row(key: string): number {
    this.ensureIndex();
    return this.index.get(key) ?? -1;
  }

  /**
   * Appends rows whose keys are not in the table (a fresh section), without indexing them.
   * `constMeta`: every row's meta, when the section has one for all (then `meta` is not called).
   * A damaged log may mark a section fresh that repeats a key, or one of the table's live keys: it
   * is then applied row by row, as a Map reads it (first position, last value), so no reader ever
   * sees a repeated key.
   */
  appendFresh(keyColumn: Column, kind: number, valColumn: Column | ReadonlyArray<string | null>, meta: (i: number) => number, constMeta?: number): void {
    if (this.live > 0 || repeatsAKey(keyColumn)) return this.applyRows(keyColumn, kind, valColumn, meta);
    if (this.n === 0 && this.keyCol.length === 0 && (valColumn instanceof AsciiColumn || !(valColumn as ReadonlyArray<string | null>).includes(null))) {
      // An empty table takes the section's columns over (the caller hands them off): no copy of a million rows.
      const keys = keyColumn;
      if (keys instanceof AsciiColumn) this.keyCol.bytes = keys;
      else this.keys = keys as string[];
      if (valColumn instanceof AsciiColumn) this.valCol.bytes = valColumn;
      else this.vals = valColumn as string[];
      this.kind = new Int32Array(Math.max(16, keys.length)).fill(kind, 0, keys.length);
      this.meta = new Int32Array(this.kind.length);
      if (constMeta !== undefined) this.meta.fill(constMeta, 0, keys.length);
      else for (let i = 0; i < keys.length; i++) this.meta[i] = meta(i);
      this.n = this.live = keys.length;
      return;
    }
    const keys = columnStrings(keyColumn);
    const vals = valColumn instanceof AsciiColumn ? valColumn.toArray() : valColumn;
    const need = this.n + keys.length;
    if (need > this.kind.length) {
      this.kind = growI32(this.kind, need);
      this.meta = growI32(this.meta, need);
    }
    for (let i = 0; i < keys.length; i++) {
      const v = vals[i]!;
      if (v === null) continue;
      const r = this.n++;
      this.keys[r] = keys[i]!;
      this.vals[r] = v;
      this.kind[r] = kind;
      this.meta[r] = meta(i);
      this.live++;
    }
  }

  /** Rows set one by one (null: a tombstone). */
  private applyRows(keyColumn: Column, kind: number, valColumn: Column | ReadonlyArray<string | null>, meta: (i: number) => number): void {
    const keys = columnStrings(keyColumn);
    const vals = valColumn instanceof AsciiColumn ? valColumn.toArray() : valColumn;
    for (let i = 0; i < keys.length; i++) {
      const v = vals[i]!;
      if (v === null) this.delete(keys[i]!);
      else this.set(keys[i]!, kind, v, meta(i));
    }
  }

  set(key: string, kind: number, val: string, meta: number): void {
    this.ensureIndex();
    const r = this.index.get(key);
    if (r !== undefined) {
      this.kind[r] = kind;
      this.vals[r] = val;
      this.meta[r] = meta;
      return;
    }
    const i = this.n++;
    if (i >= this.kind.length) {
      this.kind = growI32(this.kind, i + 1);
      this.meta = growI32(this.meta, i + 1);
    }
    this.keys[i] = key;
    this.vals[i] = val;
    this.kind[i] = kind;
    this.meta[i] = meta;
    this.index.set(key, i);
    this.indexed = this.n;
    this.live++;
  }

  delete(key: string): void {
    this.ensureIndex();
    const r = this.index.get(key);
    if (r === undefined) return;
    this.index.delete(key);
    this.kind[r] = DEAD;
    this.vals[r] = '';
    this.live--;
    if (this.n - this.live > this.live && this.n >= 4096) this.shrink();
  }

  isLive(r: number): boolean {
    return this.kind[r] !== DEAD;
  }

  /** Drops dead rows now (they are otherwise kept until they outnumber live ones): row r is then the r-th live record. */
  pack(): void {
    if (this.n === this.live) return;
    this.ensureIndex();
    if (this.n !== this.live) this.shrink();
  }

  /** key -> row over every row, repeated keys resolved first (a live view: rows are positions once packed). */
  keyIndex(): ReadonlyMap<string, number> {
    this.ensureIndex();
    return this.index;
  }

  private shrink(): void {
    const keys: string[] = [];
    const vals: string[] = [];
    const kind = new Int32Array(Math.max(16, this.live));
    const meta = new Int32Array(kind.length);
    this.index = new Map();
    for (let r = 0; r < this.n; r++) {
      if (this.kind[r] === DEAD) continue;
      const w = keys.length;
      keys.push(this.keys[r]!);
      vals.push(this.vals[r]!);
      kind[w] = this.kind[r]!;
      meta[w] = this.meta[r]!;
      this.index.set(this.keys[r]!, w);
    }
    this.keys = keys;
    this.vals = vals;
    this.kind = kind;
    this.meta = meta;
    this.n = keys.length;
    this.indexed = this.n;
  }
}

export interface TypeState {
  keyed: KeyedTable;
  /** Only for set-task-partition-assignment. */
  ssp: SspTable | undefined;
}

export class StoreState {
  /**
   * Types in first-write order. Only a write makes an entry, so a read never gives a type its
   * place; compaction drops empty ones, as a reopened log would not know them.
   */
  readonly types = new Map<string, TypeState>();
  /** The SSP rows: one table for the store's life, so reading it needs no type entry. */
  private readonly ssps = new SspTable();
  /** Envelope heads (JSON without `values`); compact rows refer to them by id. */
  readonly metas: string[] = [];
  readonly fields: string[] = [];
  /** Records applied since the log was last rewritten: live, overwritten and deleted ones, and tombstones. */
  logRecords = 0;
  private readonly metaIds = new Map<string, number>();
  private readonly fieldIds = new Map<string, number>();

  metaId(head: string): number {
    let id = this.metaIds.get(head);
    if (id === undefined) {
      id = this.metas.length;
      this.metas.push(head);
      this.metaIds.set(head, id);
    }
    return id;
  }

  fieldId(name: string): number {
    let id = this.fieldIds.get(name);
    if (id === undefined) {
      id = this.fields.length;
      this.fields.push(name);
      this.fieldIds.set(name, id);
    }
    return id;
  }

  typeState(type: string, create: boolean): TypeState | undefined {
    let t = this.types.get(type);
    if (t === undefined && create) this.types.set(type, (t = { keyed: new KeyedTable(), ssp: type === SSP_TYPE ? this.ssps : undefined }));
    return t;
  }

  /** The canonical SSP assignment rows (empty when the type was never written). */
  sspTable(): SspTable {
    return this.ssps;
  }

  get size(): number {
    let n = 0;
    for (const t of this.types.values()) n += t.keyed.live + (t.ssp?.live ?? 0);
    return n;
  }

  liveOf(type: string): number {
    const t = this.types.get(type);
    return t === undefined ? 0 : t.keyed.live + (t.ssp?.live ?? 0);
  }

  // ---- applying records ------------------------------------------------------------------

  /** A record whose value is { [field]: value } (value null: a tombstone). */
  applyField(type: string, key: string, field: number, value: string | null, meta: number): void {
    const t = this.typeState(type, value !== null);
    this.logRecords++;
    if (t === undefined) return;
    if (t.ssp !== undefined) {
      const c = parseCanonical(key);
      if (c !== undefined) {
        if (value !== null && this.fields[field] === SSP_FIELD && value.isWellFormed()) {
          const s = t.ssp.streamId(c.system, c.stream, true);
          t.ssp.set(s, c.partition, c.bucket, t.ssp.listId(value), meta);
          t.keyed.delete(key);
          return;
        }
        const s = t.ssp.streamId(c.system, c.stream, false);
        if (s >= 0) t.ssp.set(s, c.partition, c.bucket, -1, 0);
      }
    }
    if (value === null) t.keyed.delete(key);
    else t.keyed.set(key, field, value, meta);
  }

  /** A plain message: key JSON and envelope JSON (null: tombstone). Compacted when it has the usual shape. */
  applyMessage(type: string, key: string, envelope: string | null, parsed?: Envelope): void {
    if (envelope === null) return this.applyField(type, key, 0, null, 0);
    // Compact rows are written as UTF-8 string tables, so only well-formed names qualify.
    const split = type.isWellFormed() && key.isWellFormed() ? splitEnvelope(envelope, parsed ?? decodeEnvelope(envelope)!) : undefined;
    if (split !== undefined) return this.applyField(type, key, this.fieldId(split.field), split.value, this.metaId(split.head));
    const t = this.typeState(type, true)!;
    this.logRecords++;
    if (t.ssp !== undefined) {
      const c = parseCanonical(key);
      const s = c === undefined ? -1 : t.ssp.streamId(c.system, c.stream, false);
      if (s >= 0) t.ssp.set(s, c!.partition, c!.bucket, -1, 0);
    }
    t.keyed.set(key, ENVELOPE, envelope, 0);
  }

  /** Canonical SSP rows (list -1: tombstone); `metaIds` maps the rows' meta ids to the state's. */
  applySsps(c: Omit<SspColumns, 'lists'> & { lists: Column }, metaIds: Int32Array): void {
    this.logRecords += c.n;
    const t = this.typeState(SSP_TYPE, true)!;
    const table = t.ssp!;
    const streams = new Int32Array(c.streams.length);
    for (let i = 0; i < streams.length; i++) streams[i] = table.streamId(c.streams[i]!.system, c.streams[i]!.stream, true);
    const lists = table.adoptLists(c.lists);
    const keyed = t.keyed.live > 0 ? t.keyed : undefined;
    if (table.n === 0 && keyed === undefined) {
      // The common first section (a compacted log, a first plan): take the columns over.
      const identity = (m: Int32Array): boolean => {
        for (let i = 0; i < m.length; i++) if (m[i] !== i) return false; // (a loop: every() calls back a million times)
        return true;
      };
      const remap = (col: Int32Array, m: Int32Array): Int32Array => (identity(m) ? col : col.map((v) => (v < 0 ? v : m[v]!)));
      const meta = c.meta === null ? new Int32Array(c.n).fill(metaIds[0]!) : remap(c.meta, metaIds);
      table.adopt({ n: c.n, stream: remap(c.stream, streams), partition: c.partition, bucket: c.bucket ?? new Int32Array(c.n).fill(-1), list: remap(c.list, lists), meta });
      return;
    }
    table.reserve(table.n + c.n);
    for (let i = 0; i < c.n; i++) {
      const b = c.bucket === null ? -1 : c.bucket[i]!;
      const l = c.list[i]!;
      const s = streams[c.stream[i]!]!;
      if (keyed !== undefined) keyed.delete(canonicalSspKey(c.streams[c.stream[i]!]!.system, c.streams[c.stream[i]!]!.stream, c.partition[i]!, b));
      table.set(s, c.partition[i]!, b, l < 0 ? -1 : lists[l]!, c.meta === null ? metaIds[0]! : metaIds[c.meta[i]!]!);
    }
    table.maybeShrink();
  }

  /**
   * Applies a decoded frame body in order and returns the newest envelope timestamp in it. Every
   * plain message is checked first, so a malformed frame (Malformed is thrown) changes nothing.
   */
  applyBody(body: Body): number | undefined {
    let newest: number | undefined;
    const seen = (ts: unknown): void => {
      if (typeof ts === 'number' && (newest === undefined || ts > newest)) newest = ts;
    };
    const parsed: Array<Array<{ type: string; key: string; envelope: Envelope | undefined }>> = [];
    for (const s of body.sections) {
      if (s.kind !== 'messages') continue;
      const out: Array<{ type: string; key: string; envelope: Envelope | undefined }> = [];
      for (let i = 0; i < s.keys.length; i++) {
        const k = decodeKey(s.keys[i]!);
        if (k === undefined) throw new Malformed(`message ${i} key is not [1, "<type>", "<key>"]`);
        const v = s.values[i]!;
        const envelope = v === null ? undefined : decodeEnvelope(v);
        if (v !== null && envelope === undefined) throw new Malformed(`message ${i} value is not a JSON object with "values"`);
        seen(envelope?.timestamp);
        out.push({ type: k.type, key: k.key, envelope });
      }
      parsed.push(out);
    }
    const metaIds = new Int32Array(Math.max(1, body.metas.length));
    for (let i = 0; i < body.metas.length; i++) {
      metaIds[i] = this.metaId(body.metas[i]!);
      seen((JSON.parse(body.metas[i]!) as { timestamp?: unknown }).timestamp);
    }
    let m = 0;
    for (const s of body.sections) {
      if (s.kind === 'messages') {
        const msgs = parsed[m++]!;
        for (let i = 0; i < msgs.length; i++) this.applyMessage(msgs[i]!.type, msgs[i]!.key, s.values[i]!, msgs[i]!.envelope);
      } else if (s.kind === 'fields') {
        const f = this.fieldId(s.field);
        const meta = (i: number): number => (s.meta === null ? metaIds[0]! : metaIds[s.meta[i]!]!);
        const t = s.fresh ? this.typeState(s.type, true)! : undefined;
        if (t !== undefined && t.ssp === undefined) {
          // Keys known to be new: appended without hashing (the index is built if someone asks by key).
          this.logRecords += s.keys.length;
          t.keyed.appendFresh(s.keys, f, s.values, meta, s.meta === null ? metaIds[0]! : undefined);
        } else {
          const keys = columnStrings(s.keys);
          const values = s.values instanceof AsciiColumn ? s.values.toArray() : s.values;
          for (let i = 0; i < keys.length; i++) this.applyField(s.type, keys[i]!, f, values[i]!, meta(i));
        }
      } else {
        this.applySsps(s, metaIds);
      }
    }
    return newest;
  }

  // ---- reading ---------------------------------------------------------------------------

  /**
   * Single-field types that hold the same keys in the same order (Samza's per-task types: one
   * record per task in each; or one type alone) as columns: one key column and key index shared by
   * all, and one value column per type. Keys never repeat (appendFresh sees to it). Empty when no
   * type holds a record; undefined when one holds another shape, or keys differ. A live view of the
   * state: read it before writing.
   */
  taskTable(specs: ReadonlyArray<readonly [type: string, field: string]>): TaskTable | undefined {
    const tables: Array<KeyedTable | undefined> = [];
    for (const [type] of specs) {
      const t = this.types.get(type);
      if (t !== undefined && t.ssp !== undefined && t.ssp.live > 0) return undefined;
      tables.push(t === undefined || t.keyed.live === 0 ? undefined : t.keyed);
    }
    if (tables.every((t) => t === undefined)) return { n: 0, keys: new ArrayTexts([]), values: specs.map(() => new ArrayTexts([])), rowOf: () => -1 };
    if (tables.some((t) => t === undefined)) return undefined;
    // One index over the first type's keys, built on first use (an unchanged re-plan finds every
    // task at the row it was written in and never needs it); the others are checked key by key
    // against those keys, so they need no index of their own.
    const first = tables[0]!;
    first.pack();
    const n = first.n;
    let index: StringIndex | undefined;
    const built = (): StringIndex => (index ??= new StringIndex(first.keys, n));
    const values: Texts[] = [];
    for (let i = 0; i < tables.length; i++) {
      const kt = tables[i]!;
      kt.pack();
      const f = this.fieldIds.get(specs[i]![1]);
      if (f === undefined || kt.n !== n) return undefined;
      for (let r = 0; r < n; r++) if (kt.kind[r] !== f) return undefined;
      if (kt !== first && !kt.sameKeys(first)) return undefined;
      values.push(kt.valTexts());
    }
    return { n, keys: first.keyTexts(), values, rowOf: (key) => built().rowOf(key) };
  }

  /** The envelope JSON of a live record, or undefined. */
  envelope(type: string, key: string): string | undefined {
    const t = this.types.get(type);
    if (t === undefined) return undefined;
    const s = sspRow(t, key);
    if (s >= 0) return joinEnvelope(this.metas[t.ssp!.meta[s]!]!, JSON.stringify({ [SSP_FIELD]: t.ssp!.lists[t.ssp!.list[s]!]! }));
    const r = t.keyed.row(key);
    return r < 0 ? undefined : this.rowEnvelope(t, r);
  }

  /** The `values` of a live record as a fresh object, or undefined. */
  values(type: string, key: string): unknown {
    const t = this.types.get(type);
    if (t === undefined) return undefined;
    const s = sspRow(t, key);
    if (s >= 0) return { [SSP_FIELD]: t.ssp!.lists[t.ssp!.list[s]!]! };
    const r = t.keyed.row(key);
    return r < 0 ? undefined : this.rowValues(t, r);
  }

  has(type: string, key: string): boolean {
    const t = this.types.get(type);
    if (t === undefined) return false;
    return sspRow(t, key) >= 0 || t.keyed.row(key) >= 0;
  }

  private rowValues(t: TypeState, r: number): unknown {
    const k = t.keyed.kind[r]!;
    if (k === ENVELOPE) return (JSON.parse(t.keyed.vals[r]!) as Envelope).values;
    return { [this.fields[k]!]: t.keyed.vals[r]! };
  }

  private rowEnvelope(t: TypeState, r: number): string {
    const k = t.keyed.kind[r]!;
    if (k === ENVELOPE) return t.keyed.vals[r]!;
    return joinEnvelope(this.metas[t.keyed.meta[r]!]!, JSON.stringify({ [this.fields[k]!]: t.keyed.vals[r]! }));
  }

  /**
   * key -> the string, when every live record of the type is exactly { [field]: "<string>" };
   * undefined otherwise (the caller then reads entries). Saves an object per record.
   */
  singleFields(type: string, field: string): Map<string, string> | undefined {
    const out = new Map<string, string>();
    const t = this.types.get(type);
    if (t === undefined) return out;
    if (t.ssp !== undefined && t.ssp.live > 0) return undefined;
    const kt = t.keyed;
    const f = this.fieldIds.get(field);
    for (let r = 0; r < kt.n; r++) {
      const k = kt.kind[r]!;
      if (k === DEAD) continue;
      if (k !== f) return undefined;
      out.set(kt.keys[r]!, kt.vals[r]!);
    }
    return out;
  }

  /**
   * Live records of a type: canonical SSP rows first (set-task-partition-assignment only), then the
   * others, each in first-write order. `envelopes` yields the envelope JSON instead of `values`.
   */
  *records(type: string, envelopes: boolean): Generator<[string, unknown]> {
    const t = this.types.get(type);
    if (t === undefined) return;
    const ssp = t.ssp;
    if (ssp !== undefined) {
      for (let r = 0; r < ssp.n; r++) {
        const l = ssp.list[r]!;
        if (l < 0) continue;
        const s = ssp.streams[ssp.stream[r]!]!;
        const key = canonicalSspKey(s.system, s.stream, ssp.partition[r]!, ssp.bucket[r]!);
        const taskNames = ssp.lists[l]!;
        yield [key, envelopes ? joinEnvelope(this.metas[ssp.meta[r]!]!, JSON.stringify({ [SSP_FIELD]: taskNames })) : { [SSP_FIELD]: taskNames }];
      }
    }
    const kt = t.keyed;
    for (let r = 0; r < kt.n; r++) {
      if (!kt.isLive(r)) continue;
      yield [kt.keys[r]!, envelopes ? this.rowEnvelope(t, r) : this.rowValues(t, r)];
    }
  }
}

/** The SSP-column row holding `key` (a canonical SSP key with a live row), or -1. */
function sspRow(t: TypeState, key: string): number {
  if (t.ssp === undefined || t.ssp.live === 0) return -1;
  const c = parseCanonical(key);
  return c === undefined ? -1 : t.ssp.find(t.ssp.streamId(c.system, c.stream, false), c.partition, c.bucket);
}

/** The read-only SSP-assignment view both backends hand out (columns plus lookups). */
export function sspView(t: SspTable, state: StoreState): SspAssignment {
  return sspAssignmentOf(t, () => {
    const ts = state.types.get(SSP_TYPE);
    const out = new Map<string, unknown>();
    if (ts === undefined) return out;
    const k = ts.keyed;
    for (let r = 0; r < k.n; r++) if (k.isLive(r)) out.set(k.keys[r]!, state.values(SSP_TYPE, k.keys[r]!));
    return out;
  });
}
