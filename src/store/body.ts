// The body of a version-2 frame: a table of envelope metas, then sections of records. Three
// section kinds carry the same logical thing (Samza coordinator-stream messages) in three
// encodings: plain messages (key JSON + envelope JSON, any value), single-field records of one
// type (Samza's usual { "<field>": "<string>" } values, as string tables), and canonical SSP
// assignment rows (columns). Everything inside a body is little-endian. docs/store.md is normative.
import os from 'node:os';
import { isAscii } from 'node:buffer';
import { fail } from '../errors.js';
import { AsciiColumn } from '../columns/ascii-column.js';
import type { SspRows, SystemStream } from '../coordinator-stream/columns.js';
import { sameItems } from '../basics.js';

export const SECTION_MESSAGES = 1;
export const SECTION_FIELDS = 2;
export const SECTION_SSPS = 3;
/** Section flag: a u32 meta id per row follows (otherwise every row uses meta 0). */
export const FLAG_ROW_META = 1;
/** SSPS flag: a key-bucket column is present (otherwise every bucket is -1). */
export const FLAG_BUCKET = 2;
/** FIELDS flag: no key of this section is in the state when it is applied, and none repeats (compaction, a type's first write). */
export const FLAG_FRESH = 4;
export const TOMBSTONE = 0xffffffff;
/** Largest frame body written or accepted (1 GiB): keeps a garbage length from looking plausible. */
export const MAX_BODY = 1 << 30;
/** UTF-16 units per string-table block: far below V8's longest string, so any table decodes. */
const BLOCK_UNITS = 1 << 24;
const LITTLE_ENDIAN_HOST = os.endianness() === 'LE';

const EMPTY = Buffer.alloc(0);

/** Collects bytes: small writes in a scratch buffer, large ones as chunks (no copy). */
export class Sink {
  readonly chunks: Buffer[] = [];
  length = 0;
  private cur = EMPTY;
  private pos = 0;

  flush(): void {
    if (this.pos === 0) return;
    this.chunks.push(this.cur.subarray(0, this.pos));
    this.cur = this.cur.subarray(this.pos);
    this.pos = 0;
  }

  /** Scratch space for n more bytes: what is left of the current buffer, else a new one (4 KiB, growing to 64 KiB). */
  private room(n: number): void {
    if (this.pos + n <= this.cur.length) return;
    this.flush();
    this.cur = Buffer.allocUnsafe(Math.max(n, Math.min(1 << 16, 4096 << this.chunks.length)));
  }

  u8(v: number): void {
    this.room(1);
    this.cur[this.pos++] = v;
    this.length += 1;
  }

  u32(v: number): void {
    this.room(4);
    this.cur.writeUInt32LE(v >>> 0, this.pos);
    this.pos += 4;
    this.length += 4;
  }

  bytes(b: Buffer): void {
    if (b.length < 4096) {
      this.room(b.length);
      b.copy(this.cur, this.pos);
      this.pos += b.length;
    } else {
      this.flush();
      this.chunks.push(b);
    }
    this.length += b.length;
  }

  /** u32 byte length, then UTF-8. */
  text(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u32(b.length);
    this.bytes(b);
  }

  /** The first n elements as little-endian i32 (or u32). On a little-endian host a view, not a copy: write before changing `a`. */
  ints(a: Int32Array | Uint32Array, n: number): void {
    if (LITTLE_ENDIAN_HOST) {
      this.bytes(Buffer.from(a.buffer, a.byteOffset, n * 4));
      return;
    }
    const b = Buffer.allocUnsafe(n * 4);
    for (let i = 0; i < n; i++) b.writeUInt32LE(a[i]! >>> 0, i * 4);
    this.bytes(b);
  }

  append(other: Sink): void {
    this.flush();
    other.flush();
    this.chunks.push(...other.chunks);
    this.length += other.length;
  }

  /** All bytes as one buffer. */
  done(): Buffer {
    this.flush();
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.length);
  }
}

/**
 * A string table: u32 count, then blocks until that many strings are read. A block is u32 count,
 * u32 UTF-8 byte length, count u32 UTF-16 lengths, then the strings' UTF-8 back to back. Callers
 * only store well-formed strings (no lone surrogates), so the UTF-8 round trip is exact.
 */
export function writeStrings(sink: Sink, strings: readonly string[]): void {
  sink.u32(strings.length);
  let i = 0;
  while (i < strings.length) {
    let j = i;
    let units = 0;
    do units += strings[j++]!.length;
    while (j < strings.length && units + strings[j]!.length <= BLOCK_UNITS);
    const lengths = new Uint32Array(j - i);
    for (let k = i; k < j; k++) lengths[k - i] = strings[k]!.length;
    const bytes = Buffer.from(strings.slice(i, j).join(''), 'utf8');
    sink.u32(j - i);
    sink.u32(bytes.length);
    sink.ints(lengths, lengths.length);
    sink.bytes(bytes);
    i = j;
  }
}

/** A decoded string table: strings, or ASCII bytes kept as they are (ascii-column.ts). */
export type Column = readonly string[] | AsciiColumn;

/** A decoded string table and its bytes' range in the buffer it was read from. */
export interface DecodedTable {
  column: Column;
  start: number;
  end: number;
}

/** A column's strings in a fresh array (the caller may change it). */
export function columnStrings(c: Column): string[] {
  return Array.isArray(c) ? (c as string[]) : (c as AsciiColumn).toArray();
}

/** Tables shorter than this are decoded to strings: the byte form only pays for big columns. */
const COLUMN_MIN = 1024;

/** Strings.strings shares short strings of a table while it has seen at most this many distinct ones. */
const SHARED_MAX = 256;
const SHARED_LENGTH = 12;

/**
 * A fields section's value column: the live values placed around its tombstones (flag 1: null). A
 * section without tombstones (what compaction writes) keeps the decoded column as it is.
 */
function withTombstones(column: Column, tomb: Uint8Array): Column | Array<string | null> {
  const n = tomb.length;
  let k = 0;
  while (k < n && k < column.length && tomb[k] === 0) k++;
  if (k === n && column.length === n) return column;
  const live = columnStrings(column);
  const values = new Array<string | null>(n);
  k = 0;
  for (let i = 0; i < n; i++) {
    if (tomb[i] === 0) {
      if (k >= live.length) throw new Malformed('fields has fewer values than live rows');
      values[i] = live[k++]!;
    } else if (tomb[i] === 1) values[i] = null;
    else throw new Malformed('fields tombstone flag is not 0 or 1');
  }
  if (k !== live.length) throw new Malformed('fields has more values than live rows');
  return values;
}

/** A CRC-valid body that does not parse: written by something broken, never by a crash. */
export class Malformed extends Error {}

export class Reader {
  constructor(
    readonly buf: Buffer,
    public p: number,
    readonly end: number,
  ) {}

  need(n: number, what: string): void {
    if (n < 0 || this.p + n > this.end) throw new Malformed(`${what} runs past its section`);
  }

  u8(what: string): number {
    this.need(1, what);
    return this.buf[this.p++]!;
  }

  u32(what: string): number {
    this.need(4, what);
    const v = this.buf.readUInt32LE(this.p);
    this.p += 4;
    return v;
  }

  text(what: string): string {
    const n = this.u32(what);
    this.need(n, what);
    const s = this.buf.toString('utf8', this.p, this.p + n);
    this.p += n;
    return s;
  }

  /** n little-endian i32 values, copied into a fresh array. */
  i32s(n: number, what: string): Int32Array {
    this.need(n * 4, what);
    const out = new Int32Array(n);
    if (LITTLE_ENDIAN_HOST) new Uint8Array(out.buffer).set(this.buf.subarray(this.p, this.p + n * 4));
    else for (let i = 0; i < n; i++) out[i] = this.buf.readInt32LE(this.p + i * 4);
    this.p += n * 4;
    return out;
  }

  /** A string table; `shared`: see decodeStrings. */
  strings(what: string, shared?: Map<string, string>): string[] {
    return this.decodeStrings(what, undefined, shared);
  }

  /**
   * A string table and where its bytes lie in `buf`. When `like` (a table decoded earlier from the
   * same buffer) has exactly these bytes, its strings are taken over, copied into a new array, with
   * one comparison of the bytes instead of a million strings made and compared.
   */
  table(what: string, like?: DecodedTable): DecodedTable {
    const start = this.p;
    if (like !== undefined) {
      const end = this.tableEnd();
      if (end >= 0 && end - start === like.end - like.start && this.buf.compare(this.buf, like.start, like.end, start, end) === 0) {
        this.p = end;
        // A byte column is never changed: both tables hold the one object.
        return { column: Array.isArray(like.column) ? like.column.slice() : like.column, start, end };
      }
    }
    const column = this.column(what, false, like !== undefined && Array.isArray(like.column) ? like.column : undefined);
    return { column, start, end: this.p };
  }

  /**
   * A string table as an AsciiColumn when it is big and ASCII throughout (its bytes copied out of
   * the log buffer, so the state's memory follows the state, not the log), else as strings (decodeStrings; `share` gives it a shared
   * map). Any header that does not add up is left to decodeStrings, which says what is wrong.
   */
  column(what: string, share: boolean, like?: readonly string[]): Column {
    const start = this.p;
    const lazy = this.asciiTable(what, share);
    if (lazy !== undefined) return lazy;
    this.p = start;
    return this.decodeStrings(what, like, share ? new Map() : undefined);
  }

  private asciiTable(what: string, share: boolean): AsciiColumn | undefined {
    const { buf, end } = this;
    let p = this.p;
    if (p + 4 > end) return undefined;
    const n = buf.readUInt32LE(p);
    p += 4;
    if (n < COLUMN_MIN || n > end - p) return undefined;
    const off = new Int32Array(n + 1);
    const ranges: number[] = [];
    let total = 0;
    for (let i = 0; i < n; ) {
      if (p + 8 > end) return undefined;
      const count = buf.readUInt32LE(p);
      const bytes = buf.readUInt32LE(p + 4);
      p += 8;
      if (count === 0 || count > n - i || p + 4 * count + bytes > end) return undefined;
      // The lengths copied out at once (a read call per row costs more than the rest of the loop).
      const lengths = new Reader(buf, p, end).i32s(count, what);
      p += 4 * count;
      let units = 0;
      for (let k = 0; k < count; k++) {
        off[i + k] = total + units;
        units += lengths[k]! >>> 0;
      }
      // ASCII: each UTF-16 unit is one byte, so the lengths must add up to the bytes exactly.
      if (units !== bytes || !isAscii(buf.subarray(p, p + bytes))) return undefined;
      ranges.push(p, p + bytes);
      p += bytes;
      total += bytes;
      i += count;
    }
    off[n] = total;
    const out = Buffer.allocUnsafeSlow(total);
    for (let k = 0, at = 0; k < ranges.length; k += 2) at += buf.copy(out, at, ranges[k]!, ranges[k + 1]!);
    this.p = p;
    return new AsciiColumn(out, off, share);
  }

  /** Where the string table at p ends, without decoding it; -1 when its headers do not add up (decoding then says why). */
  private tableEnd(): number {
    const { buf, end } = this;
    let p = this.p;
    if (p + 4 > end) return -1;
    const n = buf.readUInt32LE(p);
    p += 4;
    for (let i = 0; i < n; ) {
      if (p + 8 > end) return -1;
      const count = buf.readUInt32LE(p);
      const bytes = buf.readUInt32LE(p + 4);
      if (count === 0 || count > n - i) return -1;
      p += 8 + 4 * count + bytes;
      if (p > end) return -1;
      i += count;
    }
    return p;
  }

  /**
   * A string table. Decoding a million-row table makes a million strings that live as long as the
   * state, and the garbage collector copies and walks each one, so two kinds are shared instead of
   * made again: a string equal to `like[i]` (Samza's per-task types repeat one key column) is
   * `like[i]` itself, and short strings are taken from `shared` (a few distinct values, such as
   * container ids and task modes, repeated on every row) while it holds at most SHARED_MAX.
   */
  private decodeStrings(what: string, like?: readonly string[], shared?: Map<string, string>): string[] {
    const n = this.u32(what);
    if (n > this.end - this.p) throw new Malformed(`${what} claims ${n} strings`);
    const out = new Array<string>(n);
    let i = 0;
    while (i < n) {
      const count = this.u32(what);
      const bytes = this.u32(what);
      if (count === 0 || count > n - i) throw new Malformed(`${what} has a block of ${count} strings where ${n - i} remain`);
      const lengths = this.i32s(count, what);
      this.need(bytes, what);
      const text = this.buf.toString('utf8', this.p, this.p + bytes);
      this.p += bytes;
      let at = 0;
      for (let k = 0; k < count; k++) {
        const len = lengths[k]! >>> 0;
        const same = like?.[i];
        // (A slice compared whole is faster here than startsWith(same, at) on a long text.)
        if (same !== undefined && same.length === len && text.slice(at, at + len) === same) out[i++] = same;
        else if (shared !== undefined && len <= SHARED_LENGTH && shared.size <= SHARED_MAX) {
          const v = text.slice(at, at + len);
          let one = shared.get(v);
          if (one === undefined) shared.set(v, (one = v));
          out[i++] = one;
        } else out[i++] = text.slice(at, at + len);
        at += len;
      }
      if (at !== text.length) throw new Malformed(`${what} string lengths do not add up to its text`);
    }
    return out;
  }
}

// ---- sections ------------------------------------------------------------------------------

function section(out: Sink, kind: number, flags: number, payload: Sink): void {
  out.u8(kind);
  out.u8(flags);
  out.u8(0);
  out.u8(0);
  out.u32(payload.length);
  out.append(payload);
}

/**
 * The section writers return what they wrote in decoded form (what decodeBody would give back),
 * so a writer applies exactly that to its state without decoding its own bytes again.
 */

/** Plain messages: the key JSON `[1,"type","key"]` and the envelope JSON (null: tombstone). */
export function writeMessages(out: Sink, entries: ReadonlyArray<{ key: string; value: string | null }>): Section {
  const p = new Sink();
  p.u32(entries.length);
  for (const e of entries) {
    p.text(e.key);
    if (e.value === null) p.u32(TOMBSTONE);
    else p.text(e.value);
  }
  section(out, SECTION_MESSAGES, 0, p);
  return { kind: 'messages', keys: entries.map((e) => e.key), values: entries.map((e) => e.value) };
}

/** The key table writeFields wrote last, written again as it is for the same keys (Samza's per-task types share them). */
export interface KeyTableMemo {
  keys: readonly string[];
  table: Sink | undefined;
}

/**
 * Records of one type whose value is { [field]: string }, keys[i] -> values[i] (null: tombstone);
 * meta: per-row meta ids, or null for meta 0; fresh: no key repeats one stored before.
 */
export interface FieldRows {
  type: string;
  field: string;
  keys: readonly string[];
  values: ReadonlyArray<string | null>;
  meta: Int32Array | null;
  fresh: boolean;
}

/** Writes the rows as one fields section; `memo` keeps the last key table, for runs of the same keys. */
export function writeFields(out: Sink, rows: FieldRows, memo?: KeyTableMemo): Section {
  const { type, field, keys, values, meta, fresh } = rows;
  const p = new Sink();
  p.text(type);
  p.text(field);
  p.u32(keys.length);
  let table = memo?.table;
  if (table === undefined || !sameItems(memo!.keys, keys)) {
    table = new Sink();
    writeStrings(table, keys);
    if (memo !== undefined) {
      memo.keys = keys;
      memo.table = table;
    }
  }
  p.append(table);
  const tomb = Buffer.alloc(keys.length);
  const live: string[] = [];
  for (let i = 0; i < keys.length; i++) {
    const v = values[i]!;
    if (v === null) tomb[i] = 1;
    else live.push(v);
  }
  p.bytes(tomb);
  writeStrings(p, live);
  if (meta !== null) p.ints(meta, keys.length);
  section(out, SECTION_FIELDS, (meta !== null ? FLAG_ROW_META : 0) | (fresh ? FLAG_FRESH : 0), p);
  return { kind: 'fields', type, field, keys: keys.slice(), values: values.slice(), meta, fresh };
}

/** SSP rows (list -1: a tombstone) with their per-row meta ids, as a section holds them. */
export interface SspColumns extends SspRows {
  /** Per-row meta ids, or null for meta 0 everywhere. */
  meta: Int32Array | null;
}

/** Canonical set-task-partition-assignment rows as columns. The returned section shares `c`'s arrays. */
export function writeSsps(out: Sink, c: SspColumns): Section {
  const p = new Sink();
  const names: string[] = [];
  for (const s of c.streams) names.push(s.system, s.stream);
  writeStrings(p, names);
  writeStrings(p, c.lists);
  p.u32(c.n);
  p.ints(c.stream, c.n);
  p.ints(c.partition, c.n);
  if (c.bucket !== null) p.ints(c.bucket, c.n);
  p.ints(c.list, c.n);
  if (c.meta !== null) p.ints(c.meta, c.n);
  section(out, SECTION_SSPS, (c.bucket !== null ? FLAG_BUCKET : 0) | (c.meta !== null ? FLAG_ROW_META : 0), p);
  return { kind: 'ssps', ...c, streams: c.streams.slice(), lists: c.lists.slice() };
}

/** An encoded body: its bytes in chunks (large columns are not copied into one buffer). */
export interface EncodedBody {
  chunks: Buffer[];
  length: number;
}

/** A body: the meta table, then the sections. Fails with E_STORE_TOO_LARGE past MAX_BODY. */
export function encodeBody(metas: readonly string[], sections: Sink, records: number): EncodedBody {
  const head = new Sink();
  writeStrings(head, metas);
  const total = head.length + sections.length;
  if (total > MAX_BODY) fail('E_STORE_TOO_LARGE', `a single write of ${records} records is ${total} bytes; the limit is ${MAX_BODY}`);
  head.append(sections);
  head.flush();
  return { chunks: head.chunks, length: head.length };
}

// ---- decoding ------------------------------------------------------------------------------

export type Section =
  | { kind: 'messages'; keys: string[]; values: Array<string | null> }
  | { kind: 'fields'; type: string; field: string; keys: Column; values: Column | Array<string | null>; meta: Int32Array | null; fresh: boolean }
  | ({ kind: 'ssps' } & Omit<SspColumns, 'lists'> & { streams: SystemStream[]; lists: Column });

export interface Body {
  metas: string[];
  sections: Section[];
  /** Records (messages, field rows, SSP rows), tombstones included. */
  records: number;
}

function checkMeta(meta: Int32Array, metas: number): void {
  for (let i = 0; i < meta.length; i++) if (meta[i]! >>> 0 >= metas) throw new Malformed(`row ${i} names meta ${meta[i]! >>> 0} of ${metas}`);
}

/** The meta table: JSON objects only. */
function checkMetaTable(metas: readonly string[]): void {
  for (const m of metas) {
    let v: unknown;
    try {
      v = JSON.parse(m);
    } catch {
      v = undefined;
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Malformed('a meta is not a JSON object');
  }
}

/** Decodes and checks a body; throws Malformed. Keys and envelopes of plain messages are checked by the caller. */
export function decodeBody(buf: Buffer, start: number, end: number): Body {
  const r = new Reader(buf, start, end);
  const metas = r.strings('meta table');
  checkMetaTable(metas);
  const sections: Section[] = [];
  let records = 0;
  const keysByCount = new Map<number, DecodedTable>();
  while (r.p < end) {
    const kind = r.u8('section header');
    const flags = r.u8('section header');
    r.u8('section header');
    r.u8('section header');
    const len = r.u32('section header');
    r.need(len, 'section');
    const s = new Reader(buf, r.p, r.p + len);
    r.p += len;
    let section: Section;
    if (kind === SECTION_MESSAGES) section = decodeMessages(buf, s);
    else if (kind === SECTION_FIELDS) section = decodeFields(buf, s, flags, metas.length, keysByCount);
    else if (kind === SECTION_SSPS) section = decodeSsps(s, flags, metas.length);
    else throw new Malformed(`unknown section kind ${kind}`);
    if (s.p !== s.end) throw new Malformed(`${s.end - s.p} stray bytes at the end of a section`);
    sections.push(section);
    records += section.kind === 'messages' ? section.keys.length : section.kind === 'fields' ? section.keys.length : section.n;
  }
  if (metas.length === 0 && sections.some((x) => x.kind !== 'messages')) throw new Malformed('records refer to meta 0 but the meta table is empty');
  return { metas, sections, records };
}

function decodeMessages(buf: Buffer, s: Reader): Section {
  const n = s.u32('messages');
  const keys: string[] = [];
  const values: Array<string | null> = [];
  for (let i = 0; i < n; i++) {
    keys.push(s.text('message key'));
    const vLen = s.u32('message value');
    if (vLen === TOMBSTONE) values.push(null);
    else {
      s.need(vLen, 'message value');
      values.push(buf.toString('utf8', s.p, s.p + vLen));
      s.p += vLen;
    }
  }
  return { kind: 'messages', keys, values };
}

/** `keysByCount`: the key column of an earlier section with as many rows, the likely twin (per-task types). */
function decodeFields(buf: Buffer, s: Reader, flags: number, metas: number, keysByCount: Map<number, DecodedTable>): Section {
  const type = s.text('fields type');
  const field = s.text('fields name');
  const n = s.u32('fields count');
  const keyTable = s.table('fields keys', keysByCount.get(n));
  keysByCount.set(n, keyTable);
  const keys = keyTable.column;
  if (keys.length !== n) throw new Malformed('fields key count differs from the row count');
  s.need(n, 'fields tombstones');
  const tomb = buf.subarray(s.p, s.p + n);
  s.p += n;
  const values = withTombstones(s.column('fields values', true), tomb);
  const meta = (flags & FLAG_ROW_META) !== 0 ? s.i32s(n, 'fields metas') : null;
  if (meta !== null) checkMeta(meta, metas);
  return { kind: 'fields', type, field, keys, values, meta, fresh: (flags & FLAG_FRESH) !== 0 };
}

function decodeSsps(s: Reader, flags: number, metas: number): Section {
  const names = s.strings('ssps streams');
  if (names.length % 2 !== 0) throw new Malformed('ssps stream table has an odd number of names');
  const streams: SystemStream[] = [];
  for (let i = 0; i < names.length; i += 2) streams.push({ system: names[i]!, stream: names[i + 1]! });
  const lists = s.column('ssps lists', false);
  const n = s.u32('ssps count');
  const stream = s.i32s(n, 'ssps streams column');
  const partition = s.i32s(n, 'ssps partitions column');
  const bucket = (flags & FLAG_BUCKET) !== 0 ? s.i32s(n, 'ssps buckets column') : null;
  const list = s.i32s(n, 'ssps lists column');
  const meta = (flags & FLAG_ROW_META) !== 0 ? s.i32s(n, 'ssps metas') : null;
  for (let i = 0; i < n; i++) {
    if (stream[i]! < 0 || stream[i]! >= streams.length) throw new Malformed(`ssps row ${i} names stream ${stream[i]} of ${streams.length}`);
    if (partition[i]! < 0) throw new Malformed(`ssps row ${i} has partition ${partition[i]}`);
    if (bucket !== null && bucket[i]! < -1) throw new Malformed(`ssps row ${i} has key bucket ${bucket[i]}`);
    if (list[i]! < -1 || list[i]! >= lists.length) throw new Malformed(`ssps row ${i} names list ${list[i]} of ${lists.length}`);
  }
  if (meta !== null) checkMeta(meta, metas);
  return { kind: 'ssps', streams, lists, n, stream, partition, bucket, list, meta };
}
