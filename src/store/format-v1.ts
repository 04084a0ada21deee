// Format version 1 (read only; new logs are version 2, see format.ts): after the header, frames of
// u32 BE length, u32 BE CRC, body; the body is u32 BE count, then entries of key JSON and envelope
// JSON. A v1 log is read, and a writer upgrades it by compacting it into version 2 on its first write.
// Pure functions over Buffers; no file I/O here. docs/store.md is the normative description.
import { crc32 } from './crc32.js';
import { fail } from '../errors.js';
import { HEADER_SIZE, type Tail } from './format.js';

/** bodyLength(u32) + crc(u32). */
export const FRAME_HEADER_SIZE = 8;
/** Value length that marks a tombstone (a delete). */
export const TOMBSTONE = 0xffffffff;
/** Largest frame body accepted or written (1 GiB): keeps a garbage length from looking plausible. */
export const MAX_BODY = 1 << 30;
/** Smallest possible body: count + one entry with an empty key and a tombstone. */
export const MIN_BODY = 4 + 4 + 0 + 4;


/** One message as stored: the UTF-8 key bytes and value bytes (null = tombstone). */
export interface RawEntry {
  key: Buffer;
  value: Buffer | null;
}

/** A message about to be written: key and value as text (null value = tombstone). */
export interface TextEntry {
  key: string;
  value: string | null;
}

/** Encodes entries as one version-1 frame (tests use it to build old logs). The CRC covers fileId, the length field and the body. */
export function encodeFrame(fileId: Buffer, entries: readonly TextEntry[]): Buffer {
  let bodyLen = 4;
  const sizes = new Array<number>(entries.length * 2);
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const k = Buffer.byteLength(e.key, 'utf8');
    const v = e.value === null ? 0 : Buffer.byteLength(e.value, 'utf8');
    sizes[2 * i] = k;
    sizes[2 * i + 1] = v;
    bodyLen += 8 + k + v;
  }
  if (entries.length === 0) fail('E_STORE_INTERNAL', 'a frame needs at least one entry');
  if (bodyLen > MAX_BODY) {
    fail('E_STORE_TOO_LARGE', `a single write of ${entries.length} records is ${bodyLen} bytes; the limit is ${MAX_BODY}`);
  }
  const frame = Buffer.allocUnsafe(FRAME_HEADER_SIZE + bodyLen);
  frame.writeUInt32BE(bodyLen, 0);
  let p = FRAME_HEADER_SIZE;
  frame.writeUInt32BE(entries.length, p);
  p += 4;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    frame.writeUInt32BE(sizes[2 * i]!, p);
    p += 4;
    p += frame.write(e.key, p, 'utf8');
    if (e.value === null) {
      frame.writeUInt32BE(TOMBSTONE, p);
      p += 4;
    } else {
      frame.writeUInt32BE(sizes[2 * i + 1]!, p);
      p += 4;
      p += frame.write(e.value, p, 'utf8');
    }
  }
  frame.writeUInt32BE(frameCrc(fileId, frame, 0, bodyLen), 4);
  return frame;
}

function frameCrc(fileId: Buffer, buf: Buffer, offset: number, bodyLen: number): number {
  const lenBytes = buf.subarray(offset, offset + 4);
  const body = buf.subarray(offset + FRAME_HEADER_SIZE, offset + FRAME_HEADER_SIZE + bodyLen);
  return crc32(body, crc32(lenBytes, crc32(fileId)));
}

export type FrameRead =
  | { kind: 'ok'; end: number; entries: RawEntry[] }
  /** Not a complete frame with a matching CRC: torn, garbage, or bit rot. */
  | { kind: 'bad' }
  /** CRC matches but the body does not parse: written by something broken, never by a crash. */
  | { kind: 'malformed'; reason: string };

/** Reads the frame starting at `offset` (which must be < buf.length). */
export function readFrame(buf: Buffer, offset: number, fileId: Buffer): FrameRead {
  if (offset + FRAME_HEADER_SIZE > buf.length) return { kind: 'bad' };
  const bodyLen = buf.readUInt32BE(offset);
  if (bodyLen < MIN_BODY || bodyLen > MAX_BODY) return { kind: 'bad' };
  const end = offset + FRAME_HEADER_SIZE + bodyLen;
  if (end > buf.length) return { kind: 'bad' };
  if (buf.readUInt32BE(offset + 4) !== frameCrc(fileId, buf, offset, bodyLen)) return { kind: 'bad' };
  // The CRC matched, so these bytes are what a writer produced; now check their structure.
  let p = offset + FRAME_HEADER_SIZE;
  const count = buf.readUInt32BE(p);
  p += 4;
  if (count === 0) return { kind: 'malformed', reason: 'frame has no entries' };
  const entries: RawEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (p + 4 > end) return { kind: 'malformed', reason: `entry ${i} runs past the frame` };
    const kLen = buf.readUInt32BE(p);
    p += 4;
    if (p + kLen + 4 > end) return { kind: 'malformed', reason: `entry ${i} key runs past the frame` };
    const key = buf.subarray(p, p + kLen);
    p += kLen;
    const vLen = buf.readUInt32BE(p);
    p += 4;
    if (vLen === TOMBSTONE) {
      entries.push({ key, value: null });
      continue;
    }
    if (p + vLen > end) return { kind: 'malformed', reason: `entry ${i} value runs past the frame` };
    entries.push({ key, value: buf.subarray(p, p + vLen) });
    p += vLen;
  }
  if (p !== end) return { kind: 'malformed', reason: `${end - p} stray bytes after entry ${count - 1}` };
  return { kind: 'ok', end, entries };
}

export interface Frame {
  offset: number;
  entries: RawEntry[];
}

export interface Scan {
  frames: Frame[];
  /** End of the last good frame: where a writer appends next. */
  goodEnd: number;
  tail: Tail;
}

/** Walks the frames after the header. Stops at the first frame that is not good. */
export function scanFrames(buf: Buffer, fileId: Buffer): Scan {
  const frames: Frame[] = [];
  let offset = HEADER_SIZE;
  while (offset < buf.length) {
    const r = readFrame(buf, offset, fileId);
    if (r.kind === 'malformed') return { frames, goodEnd: offset, tail: { kind: 'malformed', offset, reason: r.reason } };
    if (r.kind === 'bad') {
      const resumesAt = findLaterFrame(buf, offset + 1, fileId);
      const tail: Tail = resumesAt === undefined ? { kind: 'torn', offset } : { kind: 'corrupt', offset, resumesAt };
      return { frames, goodEnd: offset, tail };
    }
    frames.push({ offset, entries: r.entries });
    offset = r.end;
  }
  return { frames, goodEnd: offset, tail: { kind: 'clean' } };
}

const KEY_PREFIX = Buffer.from('[1,"');

/** Cheap filter before the CRC: entry count >= 1 and a first key that begins like `[1,"`. */
function looksLikeFrameStart(buf: Buffer, o: number, len: number): boolean {
  const body = o + FRAME_HEADER_SIZE;
  if (buf.readUInt32BE(body) === 0) return false;
  const kLen = buf.readUInt32BE(body + 4);
  if (kLen < KEY_PREFIX.length || kLen > len) return false;
  return buf.compare(KEY_PREFIX, 0, KEY_PREFIX.length, body + 8, body + 8 + KEY_PREFIX.length) === 0;
}

/**
 * Looks for any well-formed frame starting at or after `from`. Appends are sequential and each
 * one is fsync'd before the next starts, so after a crash only the last frame can be torn; a valid
 * frame behind a bad one means the bad bytes are damage. Only candidates whose first key starts
 * with `[1,"` (every key this store writes does) are CRC-checked, which keeps the search linear.
 */
function findLaterFrame(buf: Buffer, from: number, fileId: Buffer): number | undefined {
  for (let o = from; o + FRAME_HEADER_SIZE + MIN_BODY <= buf.length; o++) {
    const len = buf.readUInt32BE(o);
    if (len < MIN_BODY || len > MAX_BODY || o + FRAME_HEADER_SIZE + len > buf.length) continue;
    if (!looksLikeFrameStart(buf, o, len)) continue;
    if (readFrame(buf, o, fileId).kind === 'ok') return o;
  }
  return undefined;
}
