// The byte layout of the log file (version 2): a fixed header, then frames, each followed by the
// commit marker that says it was fsync'd. Pure functions over Buffers; no file I/O here.
// docs/store.md is the normative description.
import { crc32 } from './crc32.js';
import { fail } from '../errors.js';
import { MAX_BODY } from './body.js';

/** File magic: 0x89 "ACS" CR LF 0x1A LF (PNG-style, so text-mode mangling and truncation show). */
export const MAGIC = Buffer.from([0x89, 0x41, 0x43, 0x53, 0x0d, 0x0a, 0x1a, 0x0a]);
/** The version this build writes. */
export const FORMAT_VERSION = 2;
/** Versions this build reads (version 1 is upgraded to 2 by a writer's first write). */
export const READ_VERSIONS: readonly number[] = [1, 2];
/** magic(8) + version(u32) + fileId(8) + headerCrc(u32). */
export const HEADER_SIZE = 24;
export const FILE_ID_SIZE = 8;
/** Frame: tag "\xA5FR2", u32 body length, u32 CRC-32 of (file id ‖ tag ‖ length ‖ body), body. */
export const FRAME_TAG = 0xa5465232;
export const FRAME_HEADER_SIZE = 12;
/** Commit marker: tag "\xA5CM2", u32 frame body length, u32 frame CRC, u32 CRC-32 of (file id ‖ the 12 bytes before). */
export const COMMIT_TAG = 0xa5434d32;
export const COMMIT_SIZE = 16;
const FRAME_TAG_BYTES = Buffer.from([0xa5, 0x46, 0x52, 0x32]);
const COMMIT_TAG_BYTES = Buffer.from([0xa5, 0x43, 0x4d, 0x32]);

export interface Header {
  version: number;
  fileId: Buffer;
}

export function newFileId(): Buffer {
  return randomId(FILE_ID_SIZE);
}

/**
 * `n` random bytes from the Web Crypto global (the same CSPRNG as node:crypto's randomBytes). Not
 * importing node:crypto keeps it out of every run that only reads a store: loading it costs a cold
 * CLI run about 6 ms (bench/cli-cold.bench.ts), and only writers need random bytes.
 */
export function randomId(n: number): Buffer {
  const b = Buffer.alloc(n);
  globalThis.crypto.getRandomValues(b);
  return b;
}

export function encodeHeader(fileId: Buffer, version = FORMAT_VERSION): Buffer {
  const h = Buffer.alloc(HEADER_SIZE);
  MAGIC.copy(h, 0);
  h.writeUInt32BE(version, 8);
  fileId.copy(h, 12, 0, FILE_ID_SIZE);
  h.writeUInt32BE(crc32(h.subarray(0, 20)), 20);
  return h;
}

/** Validates the header; throws E_STORE_FORMAT / E_STORE_VERSION naming `file`. Never modifies anything. */
export function decodeHeader(buf: Buffer, file: string): Header {
  const hasMagic = buf.length >= MAGIC.length && buf.subarray(0, MAGIC.length).equals(MAGIC);
  if (!hasMagic) {
    const what = buf.length === 0 ? 'is empty' : 'does not start with the coordinator store magic';
    fail('E_STORE_FORMAT', `${file} is not an assignor coordinator store: the file ${what}; refusing to touch it`, file);
  }
  if (buf.length < HEADER_SIZE) {
    fail('E_STORE_FORMAT', `${file} has a truncated header (${buf.length} of ${HEADER_SIZE} bytes); refusing to touch it`, file);
  }
  if (buf.readUInt32BE(20) !== crc32(buf.subarray(0, 20))) {
    fail('E_STORE_FORMAT', `${file} has a corrupt header (CRC mismatch); refusing to touch it`, file);
  }
  const version = buf.readUInt32BE(8);
  if (!READ_VERSIONS.includes(version)) {
    fail(
      'E_STORE_VERSION',
      `${file} uses coordinator store format version ${version}; this build reads versions ${READ_VERSIONS.join(' and ')}`,
      file,
    );
  }
  return { version, fileId: Buffer.from(buf.subarray(12, 20)) };
}

/** The frame header for a body (one buffer, or chunks), and the commit marker written after the frame is fsync'd. */
export function encodeFrame(fileId: Buffer, body: Buffer | readonly Buffer[]): { head: Buffer; commit: Buffer } {
  const chunks = Buffer.isBuffer(body) ? [body] : body;
  let length = 0;
  for (const c of chunks) length += c.length;
  if (length > MAX_BODY) fail('E_STORE_TOO_LARGE', `a frame body of ${length} bytes is over the limit of ${MAX_BODY}`);
  const head = Buffer.alloc(FRAME_HEADER_SIZE);
  head.writeUInt32BE(FRAME_TAG, 0);
  head.writeUInt32BE(length, 4);
  let crc = crc32(head.subarray(0, 8), crc32(fileId));
  for (const c of chunks) crc = crc32(c, crc);
  head.writeUInt32BE(crc, 8);
  return { head, commit: encodeCommit(fileId, length, crc) };
}

export function encodeCommit(fileId: Buffer, bodyLength: number, frameCrc: number): Buffer {
  const c = Buffer.alloc(COMMIT_SIZE);
  c.writeUInt32BE(COMMIT_TAG, 0);
  c.writeUInt32BE(bodyLength, 4);
  c.writeUInt32BE(frameCrc, 8);
  c.writeUInt32BE(crc32(c.subarray(0, 12), crc32(fileId)), 12);
  return c;
}

export type Block =
  | { kind: 'frame'; end: number; bodyStart: number; length: number; crc: number }
  | { kind: 'commit'; end: number; length: number; crc: number }
  /** Not a complete block with a matching CRC: torn, garbage, or bit rot. */
  | { kind: 'bad' };

/** Reads the frame or commit marker at `o` (o < buf.length). */
export function readBlock(buf: Buffer, o: number, fileId: Buffer): Block {
  if (o + 4 > buf.length) return { kind: 'bad' };
  const tag = buf.readUInt32BE(o);
  if (tag === FRAME_TAG) {
    if (o + FRAME_HEADER_SIZE > buf.length) return { kind: 'bad' };
    const length = buf.readUInt32BE(o + 4);
    const end = o + FRAME_HEADER_SIZE + length;
    if (length > MAX_BODY || end > buf.length) return { kind: 'bad' };
    const crc = crc32(buf.subarray(o + FRAME_HEADER_SIZE, end), crc32(buf.subarray(o, o + 8), crc32(fileId)));
    if (crc !== buf.readUInt32BE(o + 8)) return { kind: 'bad' };
    return { kind: 'frame', end, bodyStart: o + FRAME_HEADER_SIZE, length, crc };
  }
  if (tag === COMMIT_TAG) {
    if (o + COMMIT_SIZE > buf.length) return { kind: 'bad' };
    if (crc32(buf.subarray(o, o + 12), crc32(fileId)) !== buf.readUInt32BE(o + 12)) return { kind: 'bad' };
    return { kind: 'commit', end: o + COMMIT_SIZE, length: buf.readUInt32BE(o + 4), crc: buf.readUInt32BE(o + 8) };
  }
  return { kind: 'bad' };
}

export interface Frame {
  offset: number;
  bodyStart: number;
  bodyEnd: number;
  /** Its commit marker follows it (or a later frame does, which proves it finished too). */
  committed: boolean;
}

export type Tail =
  /** The file ends exactly after the last good block. */
  | { kind: 'clean' }
  /** Bytes after the last good block hold no valid frame or commit marker: an unfinished append. */
  | { kind: 'torn'; offset: number }
  /** Bad bytes at `offset` are followed by a valid frame or commit marker at `resumesAt`: damage, not a crash. */
  | { kind: 'corrupt'; offset: number; resumesAt: number }
  /** A block whose CRC matches but whose contents are wrong. */
  | { kind: 'malformed'; offset: number; reason: string };

export interface Scan {
  frames: Frame[];
  /** End of the last good block: where a writer appends next. */
  goodEnd: number;
  tail: Tail;
}

/**
 * Walks the blocks after the header and stops at the first that is not good. The rule that tells a
 * crash from damage: a writer appends a frame, fsyncs, appends its commit marker, fsyncs, and only
 * then acknowledges, so an unfinished write leaves nothing valid behind it. Bad bytes followed by
 * any valid frame or commit marker (including the bad frame's own marker) are damage.
 */
export function scanFrames(buf: Buffer, fileId: Buffer): Scan {
  const frames: Frame[] = [];
  let o = HEADER_SIZE;
  while (o < buf.length) {
    const b = readBlock(buf, o, fileId);
    if (b.kind === 'frame') {
      if (frames.length > 0) frames[frames.length - 1]!.committed = true;
      frames.push({ offset: o, bodyStart: b.bodyStart, bodyEnd: b.end, committed: false });
      o = b.end;
      continue;
    }
    if (b.kind === 'commit') {
      const last = frames[frames.length - 1];
      if (last === undefined || last.committed || last.bodyEnd !== o) {
        return { frames, goodEnd: o, tail: { kind: 'malformed', offset: o, reason: 'a commit marker that does not follow a frame' } };
      }
      const length = last.bodyEnd - last.bodyStart;
      if (b.length !== length || b.crc !== buf.readUInt32BE(last.offset + 8)) {
        return { frames, goodEnd: o, tail: { kind: 'malformed', offset: o, reason: 'a commit marker that does not match the frame before it' } };
      }
      last.committed = true;
      o = b.end;
      continue;
    }
    const resumesAt = findLaterBlock(buf, o + 1, fileId);
    const tail: Tail = resumesAt === undefined ? { kind: 'torn', offset: o } : { kind: 'corrupt', offset: o, resumesAt };
    return { frames, goodEnd: o, tail };
  }
  return { frames, goodEnd: o, tail: { kind: 'clean' } };
}

/** The first offset >= from holding a valid frame or commit marker. Only tag positions are CRC-checked. */
function findLaterBlock(buf: Buffer, from: number, fileId: Buffer): number | undefined {
  let best: number | undefined;
  for (const tag of [FRAME_TAG_BYTES, COMMIT_TAG_BYTES]) {
    for (let o = buf.indexOf(tag, from); o >= 0 && (best === undefined || o < best); o = buf.indexOf(tag, o + 1)) {
      if (readBlock(buf, o, fileId).kind !== 'bad') {
        best = o;
        break;
      }
    }
  }
  return best;
}
