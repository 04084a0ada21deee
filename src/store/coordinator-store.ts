// The embedded coordinator stream: an append-only, CRC-framed log of Samza coordinator-stream
// messages on local disk, replayed into memory at open (last write wins, null value = delete).
// Every write is one frame, fsync'd, then marked committed (a commit marker, fsync'd) before it
// is acknowledged. docs/store.md is the normative description.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AssignorError, fail } from '../errors.js';
import { decodeBody, encodeBody, Malformed, MAX_BODY, Sink, writeMessages, type Body, type EncodedBody } from './body.js';
import { COMMIT_SIZE, decodeHeader, encodeCommit, encodeFrame, encodeHeader, FORMAT_VERSION, newFileId, scanFrames, type Tail } from './format.js';
import { scanFrames as scanFramesV1 } from './format-v1.js';
import { fsyncDir, ioError, readFully, unlinkQuietly, writeFully, writeNewFile } from './fsutil.js';
import { acquireLock, type Lock, type LockHolder } from './lock.js';
import { decodeEnvelope, decodeKey, type Envelope } from '../coordinator-stream/messages.js';
import { LOCK_FILE, LOG_FILE, resolveStorePaths, type StorePaths } from './paths.js';
import { ReplayedState } from './replayed-state.js';
import { encodeBatch } from './frame-encoding.js';
import { compactedBodies } from './compaction.js';
import { checkSspRows, type CoordinatorStoreBackend, type SspRows, type StoreRecord, type StoreStats } from './backend.js';

export { LOCK_FILE, LOG_FILE };

/** A writer compacts on its own once at least half the records in the log are dead and the log is at least this big. */
export const AUTO_COMPACT_MIN_BYTES = 1 << 20;

export interface StoreOptions {
  /** Open without the lock and never write or truncate; the state is a snapshot taken at open. */
  readOnly?: boolean;
  /**
   * Writer only. When a damaged frame is followed by good data (not a crash: see docs/store.md),
   * copy the whole log to `coordinator.log.corrupt-<time>` and truncate at the damage, instead of
   * refusing to open.
   */
  repair?: boolean;
  /**
   * Writer only: create the store (directory and empty log) when it does not exist (default true).
   * false: a missing store is E_STORE_NOT_FOUND and nothing is created (commands that only look
   * after an existing store, like `store compact`).
   */
  create?: boolean;
  /** Writer only: compact when at least half the records in the log are dead (default true). */
  autoCompact?: boolean;
  /** Writer only: logs smaller than this are never compacted automatically (default AUTO_COMPACT_MIN_BYTES, 1 MiB). */
  autoCompactMinBytes?: number;
  /** `host` written into value envelopes; default os.hostname(). */
  host?: string;
  /** `username` written into value envelopes; default os.userInfo().username. */
  username?: string;
  /** Clock for envelope timestamps (epoch ms); default Date.now. */
  now?: () => number;
}

export type { StoreRecord };

/** What open found and did; useful for logs. */
export interface OpenReport {
  /** Bytes of torn tail dropped (writer) or ignored (read-only). */
  truncatedBytes: number;
  /** Set when `repair` truncated a damaged log: the path of the untouched copy. */
  backupPath: string | undefined;
  /** Set when `repair` truncated a damaged log: the byte offset it was cut at. */
  repairedAt: number | undefined;
  /** Set when a stale lock from a dead process was taken over. */
  staleLock: LockHolder | undefined;
  /** Leftover temporary files the writer removed. */
  removedTempFiles: string[];
  /** The format version found (a writer upgrades version 1 on its first write). */
  formatVersion: number;
  /** A writer found the last frame complete but without its commit marker, and wrote the marker. */
  committedLastFrame: boolean;
  /** A writer compacted the log at open because most of it was dead records. */
  compacted: boolean;
}

/** What compact() did: rewrote the log, or left it as it was because the rewrite would not be smaller. */
export interface CompactResult {
  /** True when the log was replaced; false when it was left byte for byte as it was. */
  compacted: boolean;
  /** The log's size before. */
  bytesBefore: number;
  /** The log's size after (bytesBefore when not compacted). */
  bytesAfter: number;
  /** The size the compacted log has (or would have had). */
  rewrittenBytes: number;
}

export class CoordinatorStore extends ReplayedState implements CoordinatorStoreBackend {
  /** The log file as named in the store directory (`<dir>/coordinator.log`). */
  readonly path: string;
  readonly dir: string;
  readonly readOnly: boolean;
  readonly openReport: OpenReport;

  private readonly paths: StorePaths;
  private fd: number | undefined;
  private lock: Lock | undefined;
  private fileId: Buffer;
  private version: number;
  private end: number;
  private frames: number;
  private closed = false;
  /** Set after an fsync failure: what is on disk is unknown, so no more writes until reopened. */
  private broken: string | undefined;
  private readonly meta: { host: string; username: string; now: () => number };
  private readonly autoCompact: boolean;
  private readonly autoCompactMinBytes: number;

  private constructor(paths: StorePaths, readOnly: boolean, options: StoreOptions) {
    super();
    this.paths = paths;
    this.dir = paths.dir;
    this.path = paths.logName;
    this.readOnly = readOnly;
    this.fileId = Buffer.alloc(8);
    this.version = FORMAT_VERSION;
    this.end = 0;
    this.frames = 0;
    this.openReport = {
      truncatedBytes: 0,
      backupPath: undefined,
      repairedAt: undefined,
      staleLock: undefined,
      removedTempFiles: [],
      formatVersion: FORMAT_VERSION,
      committedLastFrame: false,
      compacted: false,
    };
    this.meta = {
      host: options.host ?? os.hostname(),
      username: options.username ?? safeUsername(),
      now: options.now ?? Date.now,
    };
    this.autoCompact = options.autoCompact ?? true;
    this.autoCompactMinBytes = options.autoCompactMinBytes ?? AUTO_COMPACT_MIN_BYTES;
  }

  /**
   * Opens (and, unless readOnly, creates) the store in `dir`. A writer takes the lock, removes
   * leftover temp files, truncates a torn tail, commits a complete but unmarked last frame and
   * compacts a mostly dead log. Throws AssignorError: E_STORE_LOCKED, E_STORE_LINK, E_STORE_FORMAT,
   * E_STORE_VERSION, E_STORE_CORRUPT, E_STORE_NOT_FOUND, E_STORE_IO.
   */
  static open(dir: string, options: StoreOptions = {}): CoordinatorStore {
    if (typeof dir !== 'string' || dir === '') fail('E_STORE_ARG', 'the store directory must be a non-empty string');
    return options.readOnly ? CoordinatorStore.openReadOnly(dir, options) : CoordinatorStore.openWriter(dir, options);
  }

  /** The store's location (its directory). */
  get location(): string {
    return this.dir;
  }

  /** Bytes dropped (writer) or ignored (read-only) from a torn tail at open; 0 if the file was clean. */
  get truncatedBytes(): number {
    return this.openReport.truncatedBytes;
  }

  // Reads (get, has, message, entries, singleFields, taskTable, types, size, sspAssignment,
  // messages) are ReplayedState's: one read side for every store.

  /** Bytes of the log file that hold good frames (the append position). */
  get fileBytes(): number {
    return this.end;
  }

  /** Counts for `assignor store inspect`. */
  stats(): StoreStats {
    this.checkOpen();
    const types = this.types().map((type) => ({ type, keys: this.state.liveOf(type) }));
    const live = this.state.size;
    let fileSize = this.end;
    let mtimeMs: number | undefined;
    try {
      const st = fs.statSync(this.paths.log);
      fileSize = st.size;
      mtimeMs = st.mtimeMs;
    } catch {
      // gone since open: report what was read
    }
    return {
      location: this.dir,
      log: this.paths.log,
      ...(this.paths.linkTarget !== undefined ? { linkTarget: this.paths.linkTarget } : {}),
      formatVersion: this.version,
      fileBytes: fileSize,
      goodBytes: this.end,
      frames: this.frames,
      records: this.state.logRecords,
      liveKeys: live,
      deadRecords: Math.max(0, this.state.logRecords - live),
      types,
      lastWrite: this.lastTimestamp,
      modified: mtimeMs,
      tornBytes: this.openReport.truncatedBytes,
    };
  }

  // ---- writes ------------------------------------------------------------------------------

  /** Appends one record durably. A null value is a delete, as in Samza. */
  put(type: string, key: string, value: unknown): void {
    this.commit([{ type, key, value }]);
  }

  /** Appends a tombstone for the key (written even when the key is absent, as Samza does). */
  delete(type: string, key: string): void {
    this.commit([{ type, key, value: null }]);
  }

  /**
   * Appends all records, then the SSP rows, as ONE frame: written, fsync'd, marked committed,
   * fsync'd. The frame is atomic: after a crash either every record of the batch is there or none
   * is. Records apply in order. An empty batch writes nothing.
   */
  commit(records: ReadonlyArray<StoreRecord>, ssps?: SspRows): void {
    this.checkWritable();
    if (!Array.isArray(records)) fail('E_STORE_ARG', 'commit expects an array of { type, key, value }');
    const rows = ssps === undefined ? 0 : checkSspRows(ssps);
    if (records.length === 0 && rows === 0) return;
    const meta = { host: this.meta.host, username: this.meta.username, timestamp: this.meta.now() };
    const { body, decoded } = encodeBatch(records, ssps, rows, meta, (type) => this.state.liveOf(type) === 0);
    if (this.version !== FORMAT_VERSION) this.compact(); // upgrade an old log before the first append
    this.appendDurably(body, decoded);
    this.afterWrite();
  }

  /**
   * Writes raw coordinator-stream messages as Samza stores them (key JSON `[1,"<type>","<key>"]`,
   * envelope JSON, null value = tombstone) as one atomic frame, envelopes kept byte for byte:
   * the way in for state exported from Samza or from another store. Values Samza-shaped enough
   * are held compactly in memory and by compaction; export gives the same bytes back.
   */
  writeMessages(messages: ReadonlyArray<{ key: string; value: string | null }>): void {
    this.checkWritable();
    if (!Array.isArray(messages)) fail('E_STORE_ARG', 'writeMessages expects an array of { key, value }');
    let units = 0;
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      const where = `messages[${i}]`;
      if (typeof m !== 'object' || m === null || typeof m.key !== 'string') fail('E_STORE_ARG', `${where} must be { key: string, value: string | null }`, where);
      if (decodeKey(m.key) === undefined) fail('E_STORE_ARG', `${where}.key is not a coordinator-stream key [1,"<type>","<key>"]: ${JSON.stringify(m.key).slice(0, 80)}`, `${where}.key`);
      if (m.value !== null && (typeof m.value !== 'string' || decodeEnvelope(m.value) === undefined)) {
        fail('E_STORE_ARG', `${where}.value must be null or a JSON object with "values" (Samza's value envelope)`, `${where}.value`);
      }
      units += m.key.length + (m.value?.length ?? 0) + 8;
      if (units > MAX_BODY) fail('E_STORE_TOO_LARGE', `a single write of ${messages.length} messages is more than ${MAX_BODY} bytes, the limit`);
    }
    if (messages.length === 0) return;
    const sink = new Sink();
    const section = writeMessages(sink, messages);
    const body = encodeBody([], sink, messages.length);
    if (this.version !== FORMAT_VERSION) this.compact();
    this.appendDurably(body, { metas: [], sections: [section], records: messages.length });
    this.afterWrite();
  }

  /** @deprecated since 0.2.0: the same as commit, the one write every store has */
  writeBatch(records: ReadonlyArray<StoreRecord>, ssps?: SspRows): void {
    this.commit(records, ssps);
  }

  /**
   * Rewrites the log with only the live value of each key, atomically: a temp file next to the log
   * is written and fsync'd, renamed over the log, and the directory fsync'd. A failure before the
   * rename leaves the old log as it was; after it, old and new logs hold the same state.
   * The log never grows: when the rewrite would not be smaller (rows of many writes need a meta
   * column that the writes themselves did not), nothing is written and the result says so. A log
   * in the previous format is always rewritten (writers append version 2 only).
   */
  compact(): CompactResult {
    this.checkWritable();
    const log = this.paths.log;
    const tmp = `${log}.compact-${process.pid}.tmp`;
    const fileId = newFileId();
    const blocks = [encodeHeader(fileId)];
    let frames = 0;
    const tally = { records: 0 };
    for (const body of compactedBodies(this.state, tally)) {
      const { head, commit } = encodeFrame(fileId, body.chunks);
      blocks.push(head, ...body.chunks, commit);
      frames++;
    }
    const bytesBefore = this.end;
    const rewrittenBytes = blocks.reduce((n, c) => n + c.length, 0);
    if (this.version === FORMAT_VERSION && rewrittenBytes >= bytesBefore) {
      return { compacted: false, bytesBefore, bytesAfter: bytesBefore, rewrittenBytes };
    }
    try {
      unlinkQuietly(tmp);
      writeNewFile(tmp, blocks);
      fs.renameSync(tmp, log);
    } catch (e) {
      unlinkQuietly(tmp);
      ioError(e, 'compacting into', tmp);
    }
    // From here the new file is the log. Switch the append handle over to it.
    const old = this.fd!;
    this.fd = undefined;
    try {
      fs.closeSync(old);
    } catch {
      // the old inode is gone from the directory; a close error cannot affect it
    }
    try {
      fsyncDir(path.dirname(log));
      this.fd = fs.openSync(log, 'r+');
    } catch (e) {
      this.broken = `reopening the log after compaction failed (${(e as Error).message})`;
      ioError(e, 'reopening after compaction', log);
    }
    this.fileId = fileId;
    this.version = FORMAT_VERSION;
    this.end = rewrittenBytes;
    this.frames = frames;
    this.state.logRecords = tally.records; // the live records, and the rows an overlay sets twice
    // Drop empty types: the new file has no trace of them.
    for (const [t, ts] of this.state.types) if (ts.keyed.live + (ts.ssp?.live ?? 0) === 0) this.state.types.delete(t);
    this.state.sspTable().maybeShrink();
    return { compacted: true, bytesBefore, bytesAfter: rewrittenBytes, rewrittenBytes };
  }

  /** Releases the lock and the file. Safe to call twice. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.fd !== undefined) fs.closeSync(this.fd);
    } finally {
      this.fd = undefined;
      this.lock?.release();
      this.lock = undefined;
    }
  }

  // ---- internals ---------------------------------------------------------------------------

  /** Compacts when at least half of the records in the log are dead and the log is not tiny. */
  private afterWrite(): void {
    if (!this.autoCompact || !this.worthCompacting()) return;
    try {
      this.compact();
    } catch {
      // The write is committed; a failed compaction left the log as it was (or, if the log could not
      // be reopened after the rename, made the store refuse writes until reopened). The next write retries.
    }
  }

  private worthCompacting(): boolean {
    const live = this.state.size;
    return this.end >= this.autoCompactMinBytes && this.state.logRecords - live >= live && this.state.logRecords > 0;
  }

  /**
   * Writes the frame at the end, fsyncs, writes its commit marker, fsyncs. On a failed write the
   * file is cut back to where it was, so a later append never lands behind a half-written frame. A
   * failed fsync leaves the outcome unknown, so the store refuses further writes (reopen to see).
   * The state changes only after both fsyncs, by applying what the section writers say they wrote
   * (the same form decodeBody gives; the reopen tests check the two agree).
   */
  private appendDurably(body: EncodedBody, decoded: Body): void {
    const { head, commit } = encodeFrame(this.fileId, body.chunks);
    const fd = this.fd!;
    const start = this.end;
    let phase = 'appending to';
    try {
      let at = start;
      writeFully(fd, head, at);
      at += head.length;
      for (const c of body.chunks) {
        writeFully(fd, c, at);
        at += c.length;
      }
      phase = 'fsyncing';
      fs.fsyncSync(fd);
      phase = 'committing';
      writeFully(fd, commit, at);
      phase = 'fsyncing';
      fs.fsyncSync(fd);
    } catch (e) {
      try {
        fs.ftruncateSync(fd, start);
        fs.fsyncSync(fd);
      } catch {
        this.broken = `${phase} the log failed and it could not be cut back`;
      }
      if (phase === 'fsyncing') this.broken = 'an fsync of the log failed, so what reached the disk is unknown';
      ioError(e, phase, this.paths.log);
    }
    this.end = start + head.length + body.length + commit.length;
    this.frames++;
    try {
      const ts = this.state.applyBody(decoded);
      if (ts !== undefined) this.lastTimestamp = ts;
    } catch (e) {
      this.broken = 'the frame just written could not be applied (a bug); reopen to read what the disk holds';
      throw e;
    }
  }

  protected override checkOpen(): void {
    if (this.closed) fail('E_STORE_CLOSED', `coordinator store ${this.path} is closed`, this.path);
  }

  private checkWritable(): void {
    this.checkOpen();
    if (this.readOnly) fail('E_STORE_READONLY', `coordinator store ${this.path} was opened read-only`, this.path);
    if (this.broken !== undefined) {
      fail('E_STORE_IO', `coordinator store ${this.path} refuses writes: ${this.broken}; close and reopen it`, this.path);
    }
  }

  private static openReadOnly(dir: string, options: StoreOptions): CoordinatorStore {
    const paths = resolveStorePaths(dir, false);
    if (!paths.exists) fail('E_STORE_NOT_FOUND', `no coordinator store at ${paths.dir} (${paths.logName} does not exist)`, paths.logName);
    let buf: Buffer;
    try {
      buf = fs.readFileSync(paths.log);
    } catch (e) {
      ioError(e, 'reading', paths.log);
    }
    const { store, goodEnd, tail } = CoordinatorStore.load(paths, buf, true, options);
    if (tail.kind === 'corrupt' || tail.kind === 'malformed') throw corruptError(paths.log, tail, describeTail(tail));
    // A torn tail may be a writer's append in flight: ignore it, never touch the file.
    store.openReport.truncatedBytes = buf.length - goodEnd;
    return store;
  }

  private static openWriter(dir: string, options: StoreOptions): CoordinatorStore {
    const create = options.create ?? true;
    const paths = resolveStorePaths(dir, create, true);
    if (!create && !paths.exists) fail('E_STORE_NOT_FOUND', `no coordinator store at ${paths.dir} (${paths.logName} does not exist); nothing was created`, paths.logName);
    let lock: Lock;
    try {
      lock = acquireLock(paths.lock, paths.dir);
    } catch (e) {
      ioError(e, 'locking', paths.lock);
    }
    let fd: number | undefined;
    try {
      const removed: string[] = [];
      // We hold the lock, so any temp file is a leftover of a crashed writer: remove it.
      const logDir = path.dirname(paths.log);
      const tempRe = new RegExp(`^${escapeRe(path.basename(paths.log))}\\..*\\.tmp$`);
      for (const name of fs.readdirSync(logDir)) {
        if (tempRe.test(name)) {
          fs.unlinkSync(path.join(logDir, name));
          removed.push(name);
        }
      }
      if (removed.length > 0) fsyncDir(logDir);
      // Never created through a link: resolveStorePaths refused dangling links, so a missing log is a plain name.
      if (!paths.exists) createLog(paths.log);
      fd = fs.openSync(paths.log, fs.constants.O_RDWR | (fs.constants.O_NOFOLLOW ?? 0));
      const buf = readFully(fd);
      const { store, goodEnd, tail, lastCommitted } = CoordinatorStore.load(paths, buf, false, options);
      store.fd = fd;
      store.lock = lock;
      store.openReport.staleLock = lock.tookOverFrom;
      store.openReport.removedTempFiles = removed;
      if (tail.kind === 'corrupt' || tail.kind === 'malformed') {
        if (!options.repair) throw corruptError(paths.log, tail, describeTail(tail));
        store.openReport.backupPath = backUp(paths.log, buf);
        store.openReport.repairedAt = goodEnd;
      }
      if (goodEnd < buf.length) {
        fs.ftruncateSync(fd, goodEnd);
        fs.fsyncSync(fd);
        store.openReport.truncatedBytes = buf.length - goodEnd;
      }
      if (!lastCommitted && store.version === FORMAT_VERSION) {
        // The last frame is complete (its CRC matches) but its writer died before marking it: mark it
        // now, so later damage to it is recognised as damage.
        const last = lastFrameOf(buf, goodEnd);
        const marker = encodeCommit(store.fileId, last.length, last.crc);
        writeFully(fd, marker, goodEnd);
        fs.fsyncSync(fd);
        store.end = goodEnd + COMMIT_SIZE;
        store.openReport.committedLastFrame = true;
      }
      if (store.autoCompact && store.worthCompacting()) {
        try {
          store.openReport.compacted = store.compact().compacted;
        } catch {
          // The log is as it was (see compact); the store is usable, and the next write retries.
        }
      }
      return store;
    } catch (e) {
      if (fd !== undefined) {
        try {
          fs.closeSync(fd);
        } catch {
          // already closed by a failed compaction
        }
      }
      lock.release();
      ioError(e, 'opening', paths.log);
    }
  }

  /** @internal Replays a whole log buffer into a new store; stops at the first bad frame. */
  static load(
    paths: StorePaths,
    buf: Buffer,
    readOnly: boolean,
    options: StoreOptions,
  ): { store: CoordinatorStore; goodEnd: number; tail: Tail; lastCommitted: boolean } {
    const { version, fileId } = decodeHeader(buf, paths.log);
    const store = new CoordinatorStore(paths, readOnly, options);
    store.fileId = fileId;
    store.version = version;
    store.openReport.formatVersion = version;
    if (version === 1) {
      const scan = scanFramesV1(buf, fileId);
      let goodEnd = scan.goodEnd;
      let tail: Tail = scan.tail;
      for (const frame of scan.frames) {
        const decoded = decodeV1Entries(frame.entries);
        if (typeof decoded === 'string') {
          goodEnd = frame.offset;
          tail = { kind: 'malformed', offset: frame.offset, reason: decoded };
          break;
        }
        for (const d of decoded) {
          store.state.applyMessage(d.type, d.key, d.envelope, d.parsed);
          if (d.parsed !== undefined && typeof d.parsed.timestamp === 'number') store.lastTimestamp = d.parsed.timestamp;
        }
        store.frames++;
      }
      store.end = goodEnd;
      return { store, goodEnd, tail, lastCommitted: true };
    }
    const scan = scanFrames(buf, fileId);
    let goodEnd = scan.goodEnd;
    let tail: Tail = scan.tail;
    let lastCommitted = true;
    for (const frame of scan.frames) {
      try {
        const ts = store.state.applyBody(decodeBody(buf, frame.bodyStart, frame.bodyEnd));
        if (ts !== undefined) store.lastTimestamp = ts;
      } catch (e) {
        if (!(e instanceof Malformed)) throw e;
        goodEnd = frame.offset;
        tail = { kind: 'malformed', offset: frame.offset, reason: e.message };
        break;
      }
      store.frames++;
      lastCommitted = frame.committed;
    }
    store.end = goodEnd;
    return { store, goodEnd, tail, lastCommitted };
  }
}

// ---- reading helpers -----------------------------------------------------------------------


function decodeV1Entries(
  entries: Array<{ key: Buffer; value: Buffer | null }>,
): Array<{ type: string; key: string; envelope: string | null; parsed: Envelope | undefined }> | string {
  const out: Array<{ type: string; key: string; envelope: string | null; parsed: Envelope | undefined }> = [];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const k = decodeKey(e.key.toString('utf8'));
    if (k === undefined) return `entry ${i} key is not [1, "<type>", "<key>"]`;
    let envelope: string | null = null;
    let parsed: Envelope | undefined;
    if (e.value !== null) {
      envelope = e.value.toString('utf8');
      parsed = decodeEnvelope(envelope);
      if (parsed === undefined) return `entry ${i} value is not a JSON object with "values"`;
    }
    out.push({ type: k.type, key: k.key, envelope, parsed });
  }
  return out;
}


function safeUsername(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'unknown';
  }
}

function corruptError(file: string, tail: { kind: 'corrupt' | 'malformed'; offset: number }, detail: string): AssignorError {
  return new AssignorError(
    'E_STORE_CORRUPT',
    `${file} is damaged at byte ${tail.offset} (${detail}). This is not an interrupted write, so nothing was changed; ` +
      `to keep a copy of the file and cut the log at that byte, repair it: samza plan --repair or store compact --repair, { repair: true } in the API.`,
    `${file}@${tail.offset}`,
  );
}

function describeTail(tail: Tail): string {
  if (tail.kind === 'corrupt') return `bad bytes, yet a valid frame or commit marker follows at byte ${tail.resumesAt}`;
  if (tail.kind === 'malformed') return `frame CRC matches but its contents are malformed: ${tail.reason}`;
  return tail.kind;
}

/** The last frame before `end` (which ends with it): its body length and CRC. */
function lastFrameOf(buf: Buffer, end: number): { length: number; crc: number } {
  const scan = scanFrames(buf.subarray(0, end), buf.subarray(12, 20));
  const f = scan.frames[scan.frames.length - 1]!;
  return { length: f.bodyEnd - f.bodyStart, crc: buf.readUInt32BE(f.offset + 8) };
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A new log appears complete or not at all: header written to a temp file, fsync'd, renamed in. */
function createLog(file: string): void {
  const tmp = `${file}.create-${process.pid}.tmp`;
  writeNewFile(tmp, [encodeHeader(newFileId())]);
  fs.renameSync(tmp, file);
  fsyncDir(path.dirname(file));
}

/** Copies the damaged log aside (fsync'd) before repair cuts it. */
function backUp(file: string, buf: Buffer): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const backup = `${file}.corrupt-${stamp}`;
  writeNewFile(backup, [buf]);
  fsyncDir(path.dirname(file));
  return backup;
}
