// Wire formats of the sticky assigner, shared by every client adapter (KafkaJS and
// @platformatic/kafka members of one group read each other's claims). Plain Uint8Arrays, no
// Buffer, so this runs wherever src/group/ does; an adapter wraps the bytes as its client wants.
// The outer layout is the classic consumer protocol v0 that KafkaJS's AssignerProtocol writes (MemberMetadata: int16 version, array<string> topics, bytes
// userData; MemberAssignment: int16 version, array<{string topic, array<int32>}>, bytes userData),
// byte for byte: test/kafkajs/group-assigner.test.ts encodes with both and compares. It is
// written out here, not imported, so that `assignor/kafkajs` loads without kafkajs at run time and
// so that a leader can encode a million partitions without a JS object per partition.
//
// Our own state travels in userData, behind a magic and a major version; readers accept any minor
// (newer minors only append fields) and treat anything they cannot read as "owns nothing".
//
// Subscription userData (member -> leader):
//   'A' 'S' u8 major=1 u8 minor=0
//   uvarint generation + 1   (0: no assignment to claim)
//   uvarint rack length, rack UTF-8
//   8 bytes fingerprint of the group the claimed assignment was made for (zeros: none)
//   uvarint claims; per claim: uvarint topic index (into this subscription's topics),
//     uvarint partition count when assigned (0: unknown), uvarint n,
//     n uvarint partitions, ascending, each as the difference to the previous (the first as is)
// Assignment userData (leader -> member):
//   'A' 'S' u8 major=1 u8 minor=0, 8 bytes fingerprint,
//   uvarint topics (the assignment's topics, in order), per topic uvarint partition count

export const USERDATA_MAJOR = 1;
export const USERDATA_MINOR = 0;
const MAGIC0 = 0x41; // 'A'
const MAGIC1 = 0x53; // 'S'

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8');

/** A growable big-endian byte writer. */
export class Writer {
  buf: Uint8Array;
  at = 0;
  constructor(size = 256) {
    this.buf = new Uint8Array(size);
  }
  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.at + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.at));
    this.buf = next;
  }
  int16(v: number): this {
    this.room(2);
    this.buf[this.at] = v >> 8;
    this.buf[this.at + 1] = v;
    this.at += 2;
    return this;
  }
  int32(v: number): this {
    this.room(4);
    const b = this.buf;
    b[this.at] = v >>> 24;
    b[this.at + 1] = v >>> 16;
    b[this.at + 2] = v >>> 8;
    b[this.at + 3] = v;
    this.at += 4;
    return this;
  }
  u8(v: number): this {
    this.room(1);
    this.buf[this.at++] = v;
    return this;
  }
  uvarint(v: number): this {
    this.room(5);
    while (v >= 0x80) {
      this.buf[this.at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.at++] = v;
    return this;
  }
  raw(bytes: Uint8Array): this {
    this.room(bytes.length);
    this.buf.set(bytes, this.at);
    this.at += bytes.length;
    return this;
  }
  /** Kafka STRING: int16 byte length, then UTF-8 (WHATWG's, as KafkaJS writes it with Node's Buffer). */
  string(s: string): this {
    this.room(2 + 3 * s.length);
    const n = utf8.encodeInto(s, this.buf.subarray(this.at + 2)).written;
    if (n > 0x7fff) throw new RangeError(`a Kafka STRING holds at most 32767 bytes, got ${n}`);
    this.buf[this.at] = n >> 8;
    this.buf[this.at + 1] = n;
    this.at += 2 + n;
    return this;
  }
  /** Kafka BYTES: int32 length, then the bytes. */
  bytes(b: Uint8Array): this {
    this.int32(b.length);
    return this.raw(b);
  }
  done(): Uint8Array {
    return this.buf.subarray(0, this.at);
  }
}

/** A bounds-checked reader: every read past the end throws ReadError, caught by the decoders. */
class ReadError extends Error {}

export class Reader {
  at = 0;
  constructor(readonly buf: Uint8Array) {}
  get left(): number {
    return this.buf.length - this.at;
  }
  private need(n: number): void {
    if (n < 0 || this.at + n > this.buf.length) throw new ReadError('short buffer');
  }
  int16(): number {
    this.need(2);
    const v = (this.buf[this.at]! << 8) | this.buf[this.at + 1]!;
    this.at += 2;
    return (v << 16) >> 16;
  }
  int32(): number {
    this.need(4);
    const b = this.buf;
    const v = (b[this.at]! << 24) | (b[this.at + 1]! << 16) | (b[this.at + 2]! << 8) | b[this.at + 3]!;
    this.at += 4;
    return v;
  }
  u8(): number {
    this.need(1);
    return this.buf[this.at++]!;
  }
  uvarint(): number {
    let v = 0;
    // A multiplier, not 2 ** shift: exponentiation is slow on this path (1M varints per leader call).
    for (let unit = 1; unit <= 0x10000000; unit *= 128) {
      const b = this.u8();
      v += (b & 0x7f) * unit;
      if ((b & 0x80) === 0) {
        if (v > 0x7fffffff) throw new ReadError('varint out of range');
        return v;
      }
    }
    throw new ReadError('varint too long');
  }
  raw(n: number): Uint8Array {
    this.need(n);
    const out = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  string(): string | null {
    const n = this.int16();
    if (n === -1) return null;
    return utf8Decoder.decode(this.raw(n));
  }
  bytes(): Uint8Array | null {
    const n = this.int32();
    if (n === -1) return null;
    return this.raw(n);
  }
}

// ---------------------------------------------------------------- consumer protocol v0

export interface Subscription {
  version: number;
  topics: string[];
  userData: Uint8Array;
}

/** MemberMetadata exactly as KafkaJS's AssignerProtocol.MemberMetadata.encode writes it. */
export function encodeSubscription(version: number, topics: readonly string[], userData: Uint8Array): Uint8Array {
  const w = new Writer(64 + userData.length);
  w.int16(version).int32(topics.length);
  for (const t of topics) w.string(t);
  return w.bytes(userData).done();
}

/**
 * Remembers the last topic list decoded, by its bytes: members of a group usually subscribe the
 * same topics, so the leader decodes those strings once and every member shares one array.
 */
export class TopicListCache {
  private count = -1;
  private bytes: Uint8Array | null = null;
  private topics: string[] = [];
  /** The cached list when `buf` holds the same `count` strings at `at`, byte for byte. */
  get(buf: Uint8Array, at: number, count: number): { topics: string[]; end: number } | null {
    const b = this.bytes;
    if (b === null || count !== this.count || at + b.length > buf.length) return null;
    for (let i = 0; i < b.length; i++) if (b[i] !== buf[at + i]) return null;
    return { topics: this.topics, end: at + b.length };
  }
  set(bytes: Uint8Array, count: number, topics: string[]): void {
    this.bytes = bytes;
    this.count = count;
    this.topics = topics;
  }
}

/** MemberMetadata, or null when the bytes are not one (a null topic or userData reads as absent). */
export function decodeSubscription(buf: Uint8Array, cache?: TopicListCache): Subscription | null {
  try {
    const r = new Reader(buf);
    const version = r.int16();
    const n = r.int32();
    if (n < -1 || n > r.left / 2) return null;
    // The same bytes as the previous member's list (the same count of strings, so the same parse)
    // give the same topics: reuse them without decoding.
    const from = r.at;
    const hit = cache?.get(buf, from, n) ?? null;
    let topics: string[];
    if (hit !== null) {
      topics = hit.topics;
      r.at = hit.end;
    } else {
      topics = [];
      for (let i = 0; i < n; i++) {
        const name = r.string();
        if (name !== null) topics.push(name);
      }
      cache?.set(buf.subarray(from, r.at), n, topics);
    }
    const userData = r.left >= 4 ? (r.bytes() ?? new Uint8Array(0)) : new Uint8Array(0);
    return { version, topics, userData };
  } catch (e) {
    if (e instanceof ReadError) return null;
    throw e;
  }
}

/**
 * MemberAssignment exactly as KafkaJS's AssignerProtocol.MemberAssignment.encode writes it for
 * `assignment` with its topics in this order.
 */
export function encodeAssignment(version: number, topics: readonly string[], partitions: readonly ArrayLike<number>[], userData: Uint8Array): Uint8Array {
  let size = 10 + userData.length;
  for (let i = 0; i < topics.length; i++) size += 6 + topics[i]!.length * 3 + 4 * partitions[i]!.length;
  const w = new Writer(size);
  w.int16(version).int32(topics.length);
  for (let i = 0; i < topics.length; i++) {
    w.string(topics[i]!);
    const ps = partitions[i]!;
    w.int32(ps.length);
    for (let k = 0; k < ps.length; k++) w.int32(ps[k]!);
  }
  return w.bytes(userData).done();
}

/**
 * A whole assignment, flat (sticky/plan.ts's Plan has these fields): member m is entries
 * entryStart[m] .. entryStart[m + 1]; entry e is topic entryTopic[e] with partitions
 * partitionsByOwner[entryTopic[e]][entryFrom[e] .. entryTo[e]), and the note lists
 * counts[entryTopic[e]] under the group's fingerprint.
 */
export interface FlatAssignment {
  topics: readonly string[];
  counts: Int32Array;
  fingerprint: string;
  partitionsByOwner: readonly Int32Array[];
  entryStart: Int32Array;
  entryTopic: Int32Array;
  entryFrom: Int32Array;
  entryTo: Int32Array;
}

/**
 * Every member's MemberAssignment (the same bytes as encodeAssignment), each with the leader's
 * note (encodeAssignmentNote) as userData. Each topic's name and partition count are encoded
 * once and copied as bytes; all members' assignments share one allocation (they are sent
 * together in one SyncGroup).
 */
export function encodeAssignments(version: number, x: FlatAssignment): Uint8Array[] {
  const table = topicBytes(x.topics, x.counts);
  const head = header(new Writer(16));
  writeFingerprint(head, x.fingerprint);
  const noteHead = head.done();
  const size = assignmentOffsets(table, noteHead.length, x);
  const buf = new Uint8Array(size[size.length - 1]!);
  const w: AssignmentWriter = { view: new DataView(buf.buffer, buf.byteOffset, buf.length), buf, version, table, noteHead, x };
  const out: Uint8Array[] = new Array<Uint8Array>(x.entryStart.length - 1);
  for (let m = 0; m < out.length; m++) {
    writeMemberAssignment(w, m, size[m]!, size[m + 1]!);
    out[m] = buf.subarray(size[m]!, size[m + 1]!);
  }
  return out;
}

/** What every member's writeMemberAssignment shares: the buffer, the version, the encoded topics and note head. */
interface AssignmentWriter {
  view: DataView;
  buf: Uint8Array;
  version: number;
  table: TopicBytes;
  noteHead: Uint8Array;
  x: FlatAssignment;
}

/** Per topic, encoded once: its Kafka STRING (as bytes and as big-endian words) and the uvarint of its partition count. */
interface TopicBytes {
  nameAt: Int32Array;
  words: Int32Array;
  wordAt: Int32Array;
  varints: Uint8Array;
  varintAt: Int32Array;
  /** Bytes of an entry of topic t without its partitions: name, int32 count, the count's varint in the note. */
  entryBytes: Int32Array;
}

function topicBytes(topics: readonly string[], counts: Int32Array): TopicBytes {
  const T = topics.length;
  const names = new Writer(16 * T + 16);
  const varints = new Writer(3 * T + 16);
  const nameAt = new Int32Array(T + 1);
  const varintAt = new Int32Array(T + 1);
  for (let t = 0; t < T; t++) {
    names.string(topics[t]!);
    varints.uvarint(counts[t]!);
    nameAt[t + 1] = names.at;
    varintAt[t + 1] = varints.at;
  }
  const entryBytes = new Int32Array(T);
  for (let t = 0; t < T; t++) entryBytes[t] = nameAt[t + 1]! - nameAt[t]! + 4 + varintAt[t + 1]! - varintAt[t]!;
  return { nameAt, ...nameWords(names.buf, nameAt), varints: varints.buf, varintAt, entryBytes };
}

/**
 * Names as big-endian 32-bit words, so a name is copied a word at a time. The last word may run
 * up to 3 bytes past the name, into the partition count written right after it.
 */
function nameWords(nameBytes: Uint8Array, nameAt: Int32Array): { words: Int32Array; wordAt: Int32Array } {
  const T = nameAt.length - 1;
  const wordAt = new Int32Array(T + 1);
  for (let t = 0; t < T; t++) wordAt[t + 1] = wordAt[t]! + ((nameAt[t + 1]! - nameAt[t]! + 3) >>> 2);
  const words = new Int32Array(wordAt[T]!);
  for (let t = 0; t < T; t++) {
    const end = nameAt[t + 1]!;
    for (let w = wordAt[t]!, i = nameAt[t]!; w < wordAt[t + 1]!; w++, i += 4) {
      words[w] = (nameBytes[i]! << 24) | ((i + 1 < end ? nameBytes[i + 1]! : 0) << 16) | ((i + 2 < end ? nameBytes[i + 2]! : 0) << 8) | (i + 3 < end ? nameBytes[i + 3]! : 0);
    }
  }
  return { words, wordAt };
}

/** Where each member's assignment starts in the shared buffer (M + 1 offsets, the last the total). */
function assignmentOffsets(table: TopicBytes, noteHeadLength: number, x: FlatAssignment): Int32Array {
  const M = x.entryStart.length - 1;
  const size = new Int32Array(M + 1);
  for (let m = 0; m < M; m++) {
    const from = x.entryStart[m]!;
    const to = x.entryStart[m + 1]!;
    let n = 2 + 4 + 4 + noteHeadLength + uvarintLength(to - from);
    for (let e = from; e < to; e++) n += table.entryBytes[x.entryTopic[e]!]! + 4 * (x.entryTo[e]! - x.entryFrom[e]!);
    size[m + 1] = size[m]! + n;
  }
  return size;
}

/** Member m's MemberAssignment into buf[at .. end): version, its topics with their partitions, the note as userData. */
function writeMemberAssignment(w: AssignmentWriter, m: number, at: number, end: number): void {
  const { view, buf, version, table, noteHead, x } = w;
  const { nameAt, words, wordAt } = table;
  const from = x.entryStart[m]!;
  const to = x.entryStart[m + 1]!;
  view.setInt16(at, version);
  view.setInt32(at + 2, to - from);
  at += 6;
  for (let e = from; e < to; e++) {
    const t = x.entryTopic[e]!;
    for (let w = wordAt[t]!, wEnd = wordAt[t + 1]!, to4 = at; w < wEnd; w++, to4 += 4) view.setInt32(to4, words[w]!);
    at += nameAt[t + 1]! - nameAt[t]!;
    const ps = x.partitionsByOwner[t]!;
    const a = x.entryFrom[e]!;
    const b = x.entryTo[e]!;
    view.setInt32(at, b - a);
    at += 4;
    for (let i = a; i < b; i++, at += 4) view.setInt32(at, ps[i]!);
  }
  // userData: the note.
  view.setInt32(at, end - at - 4);
  at += 4;
  for (let i = 0; i < noteHead.length; i++) buf[at++] = noteHead[i]!;
  let v = to - from;
  while (v >= 0x80) {
    buf[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[at++] = v;
  for (let e = from; e < to; e++) {
    const t = x.entryTopic[e]!;
    for (let i = table.varintAt[t]!, vEnd = table.varintAt[t + 1]!; i < vEnd; i++) buf[at++] = table.varints[i]!;
  }
}

function uvarintLength(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v >>>= 7;
    n++;
  }
  return n;
}

export interface DecodedAssignment {
  version: number;
  topics: string[];
  partitions: Int32Array[];
  userData: Uint8Array;
}

/** MemberAssignment, or null when the bytes are not one (fewer than 2 bytes: KafkaJS's empty assignment). */
export function decodeAssignment(buf: Uint8Array): DecodedAssignment | null {
  try {
    const r = new Reader(buf);
    const version = r.int16();
    const n = r.int32();
    if (n < -1 || n > r.left / 6) return null;
    const topics: string[] = [];
    const partitions: Int32Array[] = [];
    for (let i = 0; i < n; i++) {
      const t = r.string();
      const k = r.int32();
      if (k < -1 || k > r.left / 4) return null;
      const ps = new Int32Array(Math.max(k, 0));
      for (let j = 0; j < k; j++) ps[j] = r.int32();
      if (t !== null) {
        topics.push(t);
        partitions.push(ps);
      }
    }
    const userData = r.left >= 4 ? (r.bytes() ?? new Uint8Array(0)) : new Uint8Array(0);
    return { version, topics, partitions, userData };
  } catch (e) {
    if (e instanceof ReadError) return null;
    throw e;
  }
}

// ---------------------------------------------------------------- our userData

// The claims' shape is client-neutral: src/group/sticky/claims.ts.
export type { Claims } from './sticky/claims.js';
import type { Claims } from './sticky/claims.js';

const NO_FINGERPRINT = '0000000000000000';

function writeFingerprint(w: Writer, fp: string): void {
  const hex = fp === '' ? NO_FINGERPRINT : fp;
  for (let i = 0; i < 16; i += 2) w.u8(parseInt(hex.slice(i, i + 2), 16));
}

function readFingerprint(r: Reader): string {
  let s = '';
  for (let i = 0; i < 8; i++) s += r.u8().toString(16).padStart(2, '0');
  return s === NO_FINGERPRINT ? '' : s;
}

function header(w: Writer): Writer {
  return w.u8(MAGIC0).u8(MAGIC1).u8(USERDATA_MAJOR).u8(USERDATA_MINOR);
}

/** Reads our header; false when the bytes are someone else's or of an unknown major version. */
function readHeader(r: Reader): boolean {
  if (r.left < 4) return false;
  return r.u8() === MAGIC0 && r.u8() === MAGIC1 && r.u8() === USERDATA_MAJOR && (r.u8(), true);
}

export function encodeClaims(c: Claims): Uint8Array {
  const w = header(new Writer(64 + 6 * c.partitions.length));
  w.uvarint(c.generation + 1);
  const rack = c.rack === null ? new Uint8Array(0) : utf8.encode(c.rack);
  w.uvarint(rack.length).raw(rack);
  writeFingerprint(w, c.fingerprint);
  w.uvarint(c.topic.length);
  for (let k = 0; k < c.topic.length; k++) {
    w.uvarint(c.topic[k]!).uvarint(c.count[k]!).uvarint(c.start[k + 1]! - c.start[k]!);
    let last = 0;
    for (let i = c.start[k]!; i < c.start[k + 1]!; i++) {
      w.uvarint(c.partitions[i]! - last);
      last = c.partitions[i]!;
    }
  }
  return w.done();
}

/**
 * Where decoded claims are stored: chunks of 1M int32, each holding many members' claims (views),
 * instead of an allocation per member. A leader keeps one arena and resets it at each
 * assignment (the chunks are reused: at a million partitions they are ~16 MB), so claims read
 * before a reset must not be used after it.
 */
export class ClaimArena {
  private chunks: Int32Array[] = [];
  private next = 0;
  private chunk: Int32Array = new Int32Array(0);
  private used = 0;
  /** Forget every claim stored so far; their chunks are written over by the next ones. */
  reset(): void {
    this.next = 0;
    this.chunk = new Int32Array(0);
    this.used = 0;
  }
  /** A copy of src[0 .. n), in the arena. */
  copy(src: Int32Array, n: number): Int32Array {
    if (this.used + n > this.chunk.length) {
      let c = this.chunks[this.next];
      if (c === undefined || c.length < n) {
        c = new Int32Array(Math.max(n, 1 << 20));
        this.chunks[this.next] = c;
      }
      this.next++;
      this.chunk = c;
      this.used = 0;
    }
    const out = this.chunk.subarray(this.used, this.used + n);
    out.set(src.subarray(0, n));
    this.used += n;
    return out;
  }
}

/**
 * Claims, or null when userData is not ours, of an unknown major version, or damaged. With an
 * arena, the claims' arrays are views into it (a leader decoding a whole group passes one).
 */
export function decodeClaims(userData: Uint8Array, topicCount: number, arena?: ClaimArena): Claims | null {
  try {
    const r = new Reader(userData);
    if (!readHeader(r)) return null;
    const generation = r.uvarint() - 1;
    const rackLen = r.uvarint();
    const rack = rackLen === 0 ? null : utf8Decoder.decode(r.raw(rackLen));
    const fingerprint = readFingerprint(r);
    const n = r.uvarint();
    if (n > r.left / 3) return null;
    // Every partition takes at least one byte, so the bytes left bound the partitions. Topics,
    // counts, starts and partitions are read into one scratch array kept across calls (at 0, n,
    // 2n and 3n + 1) and copied out in one piece at their exact length (into the arena when
    // given): a leader reads a thousand members' claims per rebalance, and four fresh arrays
    // each, one sized by the bytes, were tens of MB of garbage at a million partitions.
    const buf = claimScratch(3 * n + 1 + r.left);
    const P0 = 3 * n + 1;
    buf[2 * n] = 0;
    let np = P0;
    // Most of the bytes are these varints, nearly all one or two bytes long: those are read
    // inline (readVarint2), the rest by readUvarint (a method call per byte costs 4x).
    const b = userData;
    let at = r.at;
    for (let k = 0; k < n; k++) {
      const t = readVarint2(b, at);
      at = varintEnd;
      const c = t < 0 ? -1 : readVarint2(b, at);
      at = varintEnd;
      const m = c < 0 ? -1 : readVarint2(b, at);
      at = varintEnd;
      if (t < 0 || t >= topicCount || c < 0 || m < 0 || m > b.length - at) return null;
      buf[k] = t;
      buf[n + k] = c;
      let p = 0;
      for (let i = 0; i < m; i++) {
        const d = readVarint2(b, at);
        at = varintEnd;
        if (d < 0 || (i > 0 && d === 0)) return null; // damaged, or not ascending
        p += d;
        if (p > 0x7fffffff) return null;
        buf[np++] = p;
      }
      buf[2 * n + k + 1] = np - P0;
    }
    const all = arena === undefined ? buf.slice(0, np) : arena.copy(buf, np);
    return { generation, rack, fingerprint, topic: all.subarray(0, n), count: all.subarray(n, 2 * n), start: all.subarray(2 * n, P0), partitions: all.subarray(P0) };
  } catch (e) {
    if (e instanceof ReadError) return null;
    throw e;
  }
}

let scratch = new Int32Array(1024);

/** A scratch Int32Array of at least n entries (grown by doubling; as large as the largest claims read). */
function claimScratch(n: number): Int32Array {
  if (scratch.length < n) {
    let size = scratch.length * 2;
    while (size < n) size *= 2;
    scratch = new Int32Array(size);
  }
  return scratch;
}

/** Where the last readUvarint stopped (a module variable: no object per varint). */
let varintEnd = 0;

/** The uvarint at b[at] (end in varintEnd), or -1 when it runs past the end or out of int32 range. */
function readUvarint(b: Uint8Array, at: number): number {
  let v = 0;
  for (let unit = 1; unit <= 0x10000000; unit *= 128) {
    if (at >= b.length) return -1;
    const x = b[at++]!;
    v += (x & 0x7f) * unit;
    if ((x & 0x80) === 0) {
      varintEnd = at;
      return v > 0x7fffffff ? -1 : v;
    }
  }
  return -1;
}

/** readUvarint with the one- and two-byte cases first (small enough for V8 to inline). */
function readVarint2(b: Uint8Array, at: number): number {
  if (at + 1 < b.length) {
    const x = b[at]!;
    if (x < 0x80) {
      varintEnd = at + 1;
      return x;
    }
    const y = b[at + 1]!;
    if (y < 0x80) {
      varintEnd = at + 2;
      return (x & 0x7f) | (y << 7);
    }
  }
  return readUvarint(b, at);
}

/** The leader's note to a member: the fingerprint and each assigned topic's partition count. */
export interface AssignmentNote {
  fingerprint: string;
  counts: Int32Array;
}

export function encodeAssignmentNote(note: AssignmentNote): Uint8Array {
  const w = header(new Writer(16 + 3 * note.counts.length));
  writeFingerprint(w, note.fingerprint);
  w.uvarint(note.counts.length);
  for (let k = 0; k < note.counts.length; k++) w.uvarint(note.counts[k]!);
  return w.done();
}

export function decodeAssignmentNote(userData: Uint8Array): AssignmentNote | null {
  try {
    const r = new Reader(userData);
    if (!readHeader(r)) return null;
    const fingerprint = readFingerprint(r);
    const n = r.uvarint();
    if (n > r.left) return null;
    const counts = new Int32Array(n);
    for (let k = 0; k < n; k++) counts[k] = r.uvarint();
    return { fingerprint, counts };
  } catch (e) {
    if (e instanceof ReadError) return null;
    throw e;
  }
}

/** The protocol name a sticky group agrees on (JoinGroup), the same for every client adapter: unique to this assigner and its userData format. */
export const STICKY_ASSIGNER_NAME = 'AssignorStickyAssigner';
/**
 * The int16 `version` of the consumer-protocol envelope (MemberMetadata/MemberAssignment). 0, as
 * KafkaJS's own RoundRobinAssigner writes, because the envelope is exactly version 0 of Kafka's
 * consumer protocol (Java tools and the broker read it as such); the assigner's own format is
 * versioned inside userData.
 */
export const STICKY_ASSIGNER_VERSION = 0;
