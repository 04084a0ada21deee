// The embedded coordinator stream: an append-only, CRC-framed log of Samza coordinator-stream
// messages on local disk, replayed into memory at open (last write wins, null value = delete).
// Every write is one frame, fsync'd, then marked committed (a commit marker, fsync'd) before it
// is acknowledged. docs/store.md is the normative description.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AssignorError, fail } from '../errors.js';
import { decodeBody, encodeBody, Malformed, MAX_BODY, sameStrings, Sink, writeFields, writeMessages, writeSsps, type Body, type EncodedBody, type KeyTableMemo, type Section, type SspColumns } from './body.js';
import { COMMIT_SIZE, decodeHeader, encodeCommit, encodeFrame, encodeHeader, FORMAT_VERSION, HEADER_SIZE, newFileId, scanFrames, type Tail } from './format.js';
import { scanFrames as scanFramesV1 } from './format-v1.js';
import { fsyncDir, ioError, readFully, unlinkQuietly, writeFully, writeNewFile } from './fsutil.js';
import { acquireLock, type Lock, type LockHolder } from './lock.js';
import { decodeEnvelope, decodeKey, encodeEnvelope, encodeKey, envelopeHead, singleField, type Envelope, type EnvelopeMeta } from '../coordinator-stream/messages.js';
import { LOCK_FILE, LOG_FILE, resolveStorePaths, type StorePaths } from './paths.js';
import { StoreState, SSP_TYPE, sspView, type KeyedTable } from './state.js';
import { StringIndex } from '../columns/string-index.js';
import { markDistinct } from './key-repeats.js';
import { SspTable } from '../coordinator-stream/ssp-table.js';
import { canonicalSspKey } from '../coordinator-stream/ssp-key.js';
import { checkSspRows, type CoordinatorStoreBackend, type SspAssignment, type SspRows, type StoreStats, type TaskTable } from './backend.js';

export { LOCK_FILE, LOG_FILE };

/** A writer compacts on its own once at least half the records in the log are dead and the log is at least this big. */
export const AUTO_COMPACT_MIN_BYTES = 1 << 20;
/** Rows per section and records per frame when compacting: frames stay far below the body limit. */
const COMPACT_ROWS = 1 << 22;

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

export interface StoreRecord {
  type: string;
  key: string;
  /** null deletes the key (a tombstone). */
  value: unknown | null;
}

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

export class CoordinatorStore implements CoordinatorStoreBackend {
  /** The log file as named in the store directory (`<dir>/coordinator.log`). */
  readonly path: string;
  readonly dir: string;
  readonly readOnly: boolean;
  readonly openReport: OpenReport;

  private readonly paths: StorePaths;
  private state = new StoreState();
  private fd: number | undefined;
  private lock: Lock | undefined;
  private fileId: Buffer;
  private version: number;
  private end: number;
  private frames: number;
  private lastTimestamp: number | undefined;
  private closed = false;
  /** Set after an fsync failure: what is on disk is unknown, so no more writes until reopened. */
  private broken: string | undefined;
  private readonly meta: { host: string; username: string; now: () => number };
  private readonly autoCompact: boolean;
  private readonly autoCompactMinBytes: number;

  private constructor(paths: StorePaths, readOnly: boolean, options: StoreOptions) {
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

  // ---- reads -------------------------------------------------------------------------------

  /** The message's `values` payload (a fresh copy), or undefined if absent or deleted. */
  get(type: string, key: string): unknown | undefined {
    this.checkOpen();
    checkNames(type, key);
    return this.state.values(type, key);
  }

  has(type: string, key: string): boolean {
    this.checkOpen();
    checkNames(type, key);
    return this.state.has(type, key);
  }

  /** The whole value envelope (host, username, source, timestamp, values), or undefined. */
  message(type: string, key: string): Envelope | undefined {
    this.checkOpen();
    checkNames(type, key);
    const text = this.state.envelope(type, key);
    return text === undefined ? undefined : (JSON.parse(text) as Envelope);
  }

  /**
   * key -> values for one type, in first-write order (a key deleted and re-put moves to the end).
   * For set-task-partition-assignment, records with canonical SSP keys come first (see docs/store.md).
   */
  entries(type: string): Map<string, unknown> {
    this.checkOpen();
    checkNames(type, '');
    return new Map(this.state.records(type, false));
  }

  /**
   * key -> value of `field` for one type, when every live record of it is exactly { [field]: "<string>" }
   * (Samza's usual shape); undefined when any is not (read entries() then). In first-write order.
   */
  singleFields(type: string, field: string): Map<string, string> | undefined {
    this.checkOpen();
    checkNames(type, field);
    return this.state.singleFields(type, field);
  }

  /**
   * Single-field types holding the same keys in the same order (Samza's per-task records) as
   * columns sharing one key index; empty when none holds a record, undefined when they do not. A
   * live view: read, do not keep across writes.
   */
  taskTable(specs: ReadonlyArray<readonly [type: string, field: string]>): TaskTable | undefined {
    this.checkOpen();
    for (const [type, field] of specs) checkNames(type, field);
    return this.state.taskTable(specs);
  }

  /** Types that currently hold at least one live key, in first-write order. */
  types(): string[] {
    this.checkOpen();
    return [...this.state.types.keys()].filter((t) => this.state.liveOf(t) > 0);
  }

  /** Number of live keys over all types. */
  get size(): number {
    return this.state.size;
  }

  /** Bytes of the log file that hold good frames (the append position). */
  get fileBytes(): number {
    return this.end;
  }

  /** The canonical set-task-partition-assignment records as columns (a live view: read, do not modify). */
  sspAssignment(): SspAssignment {
    this.checkOpen();
    return sspView(this.state.sspTable(), this.state);
  }

  /** Every live message in Samza's coordinator-stream layout: key JSON and envelope JSON (export). */
  *messages(): Generator<{ key: string; value: string }> {
    this.checkOpen();
    for (const type of this.state.types.keys()) {
      for (const [key, envelope] of this.state.records(type, true)) yield { key: encodeKey(type, key), value: envelope as string };
    }
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
    this.writeBatch([{ type, key, value }]);
  }

  /** Appends a tombstone for the key (written even when the key is absent, as Samza does). */
  delete(type: string, key: string): void {
    this.writeBatch([{ type, key, value: null }]);
  }

  /**
   * Appends all records, then the SSP rows, as ONE frame: written, fsync'd, marked committed,
   * fsync'd. The frame is atomic: after a crash either every record of the batch is there or none
   * is. Records apply in order. An empty batch writes nothing.
   */
  writeBatch(records: ReadonlyArray<StoreRecord>, ssps?: SspRows): void {
    this.checkWritable();
    if (!Array.isArray(records)) fail('E_STORE_ARG', 'writeBatch expects an array of { type, key, value }');
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

  /** The interface's write: the same as writeBatch (the file store completes it synchronously). */
  commit(records: ReadonlyArray<StoreRecord>, ssps?: SspRows): void {
    this.writeBatch(records, ssps);
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

  private checkOpen(): void {
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

// ---- encoding writes -----------------------------------------------------------------------

/**
 * Encodes records in order as sections: runs of single-field values of one type and field become
 * a fields section; anything else a messages section (tombstones join the run of their type).
 */
/**
 * `isEmpty(type)`: the store holds no live record of the type, so a type's first fields run with
 * distinct keys is marked fresh (loaded later without hashing its keys).
 */
function encodeRecords(out: Sink, records: ReadonlyArray<StoreRecord>, meta: EnvelopeMeta, isEmpty?: (type: string) => boolean): Section[] {
  const sections: Section[] = [];
  const touched = new Set<string>();
  checkRecords(records);
  // Types are independent, so records are encoded grouped by type (types in order of first
  // appearance, each type's records in their order): long runs, few sections, the same state.
  const order = groupByType(records);
  let run: { kind: 'fields' | 'messages'; type: string; field: string } | undefined;
  let keys: string[] = [];
  let values: Array<string | null> = [];
  let messages: Array<{ key: string; value: string | null }> = [];
  // The last key column seen to repeat no key, and the last key table: Samza's per-task types write the same task keys.
  let distinct: readonly string[] = [];
  const keyTable: KeyTableMemo = { keys: [], table: undefined };
  const noRepeats = (k: readonly string[]): boolean => {
    if (sameStrings(k, distinct)) return true;
    // (A typed-array index: a Set of a million names costs seconds of hashing and garbage.)
    if (new StringIndex(k, k.length).repeated >= 0) return false;
    distinct = k;
    return true;
  };
  const flush = (): void => {
    if (run?.kind === 'fields') {
      const fresh = isEmpty !== undefined && !touched.has(run.type) && isEmpty(run.type) && noRepeats(keys);
      touched.add(run.type);
      const section = writeFields(out, { type: run.type, field: run.field, keys, values, meta: null, fresh }, keyTable);
      if (fresh && section.kind === 'fields') markDistinct(section.keys as readonly string[]);
      sections.push(section);
    } else if (run?.kind === 'messages') sections.push(writeMessages(out, messages));
    run = undefined;
    keys = [];
    values = [];
    messages = [];
  };
  // A lower bound of the bytes (one per UTF-16 unit), so a write far over the limit fails before it is built.
  let units = 0;
  const grow = (n: number): void => {
    units += n;
    if (units > MAX_BODY) fail('E_STORE_TOO_LARGE', `a single write of ${records.length} records is more than ${MAX_BODY} bytes, the limit`);
  };
  for (let j = 0; j < order.length; j++) {
    const i = order[j]!;
    const r = records[i]!;
    grow(r.type.length + r.key.length + 16);
    const names = r.type.isWellFormed() && r.key.isWellFormed();
    if (r.value === null) {
      if (names && run?.kind === 'fields' && run.type === r.type) {
        keys.push(r.key);
        values.push(null);
        continue;
      }
      if (run?.kind !== 'messages') flush();
      run = { kind: 'messages', type: '', field: '' };
      touched.add(r.type);
      messages.push({ key: encodeKey(r.type, r.key), value: null });
      continue;
    }
    const single = names ? singleField(r.value) : undefined;
    if (single !== undefined) {
      if (run?.kind !== 'fields' || run.type !== r.type || run.field !== single.field) {
        flush();
        run = { kind: 'fields', type: r.type, field: single.field };
      }
      keys.push(r.key);
      values.push(single.value);
      grow(single.value.length);
      continue;
    }
    const envelope = encodeEnvelope(r.value, meta, `${r.type} ${JSON.stringify(r.key)}`);
    grow(envelope.length);
    if (run?.kind !== 'messages') flush();
    run = { kind: 'messages', type: '', field: '' };
    touched.add(r.type);
    messages.push({ key: encodeKey(r.type, r.key), value: envelope });
  }
  flush();
  return sections;
}

/**
 * One write as a frame body (records in order, then the SSP rows; `rows` of them, checked) and the
 * body the state applies: the file store appends the one and applies the other, the memory store
 * applies the same body read back. `isEmpty`: see encodeRecords.
 */
export function encodeBatch(records: ReadonlyArray<StoreRecord>, ssps: SspRows | undefined, rows: number, meta: EnvelopeMeta, isEmpty: (type: string) => boolean): { body: EncodedBody; decoded: Body } {
  const sink = new Sink();
  const sections = encodeRecords(sink, records, meta, isEmpty);
  if (ssps !== undefined && rows > 0) sections.push(...encodeSspRows(sink, ssps, meta));
  const metas = [envelopeHead(meta)];
  const body = encodeBody(metas, sink, records.length + rows);
  // The state takes its own copies of the caller's columns (it keeps them, and may change `list`).
  const own = sections.map((x) =>
    x.kind !== 'ssps'
      ? x
      : { ...x, stream: x.stream.slice(0, x.n), partition: x.partition.slice(0, x.n), bucket: x.bucket?.slice(0, x.n) ?? null, list: x.list.slice(0, x.n), meta: x.meta?.slice(0, x.n) ?? null },
  );
  return { body, decoded: { metas, sections: own, records: records.length + rows } };
}

function checkRecords(records: ReadonlyArray<StoreRecord>): void {
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    const where = `records[${i}]`;
    if (typeof r !== 'object' || r === null) fail('E_STORE_ARG', `${where} must be an object { type, key, value }`, where);
    checkNames(r.type, r.key, where);
  }
}

/** Record indices grouped by type, stably (types in order of first appearance). */
function groupByType(records: ReadonlyArray<StoreRecord>): Int32Array {
  const order = new Int32Array(records.length);
  const next = new Int32Array(records.length).fill(-1); // a linked list of each type's records
  const tail = new Map<string, number>();
  const heads: number[] = [];
  for (let i = 0; i < records.length; i++) {
    const t = records[i]!.type;
    const last = tail.get(t);
    if (last === undefined) heads.push(i);
    else next[last] = i;
    tail.set(t, i);
  }
  let w = 0;
  for (const h of heads) for (let i = h; i >= 0; i = next[i]!) order[w++] = i;
  return order;
}


/** SSP rows as an ssps section; rows whose names or list text are not well-formed strings go as plain messages. */
function encodeSspRows(out: Sink, r: SspRows, meta: EnvelopeMeta): Section[] {
  const plainStream = r.streams.map((s) => !s.system.isWellFormed() || !s.stream.isWellFormed());
  const plainList = r.lists.map((l) => !l.isWellFormed());
  const odd: StoreRecord[] = [];
  let keep = r.n;
  for (let i = 0; i < r.n; i++) if (plainStream[r.stream[i]!] || (r.list[i]! >= 0 && plainList[r.list[i]!])) keep--;
  let cols: SspColumns = { streams: r.streams, lists: r.lists, n: r.n, stream: r.stream, partition: r.partition, bucket: r.bucket, list: r.list, meta: null };
  if (keep < r.n) {
    const pick = (a: Int32Array): Int32Array => {
      const o = new Int32Array(keep);
      let w = 0;
      for (let i = 0; i < r.n; i++) if (!(plainStream[r.stream[i]!] || (r.list[i]! >= 0 && plainList[r.list[i]!]))) o[w++] = a[i]!;
      return o;
    };
    for (let i = 0; i < r.n; i++) {
      if (!(plainStream[r.stream[i]!] || (r.list[i]! >= 0 && plainList[r.list[i]!]))) continue;
      const s = r.streams[r.stream[i]!]!;
      const key = canonicalSspKey(s.system, s.stream, r.partition[i]!, r.bucket === null ? -1 : r.bucket[i]!);
      odd.push({ type: SSP_TYPE, key, value: r.list[i]! < 0 ? null : { taskNames: r.lists[r.list[i]!]! } });
    }
    cols = { ...cols, n: keep, stream: pick(r.stream), partition: pick(r.partition), bucket: r.bucket === null ? null : pick(r.bucket), list: pick(r.list) };
  }
  const sections: Section[] = [];
  if (cols.n > 0) sections.push(writeSsps(out, cols));
  if (odd.length > 0) sections.push(...encodeRecords(out, odd, meta));
  return sections;
}

// ---- compaction ----------------------------------------------------------------------------

/** The live state as frame bodies: per type in first-write order, canonical SSP rows first. */
function* compactedBodies(state: StoreState, tally: { records: number }): Generator<EncodedBody> {
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

function checkNames(type: unknown, key: unknown, where?: string): asserts type is string {
  if (typeof type !== 'string') fail('E_STORE_ARG', `message type must be a string, got ${typeof type}`, where);
  if (typeof key !== 'string') fail('E_STORE_ARG', `message key must be a string, got ${typeof key}`, where);
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

/** Header size, re-exported for tests and tools that locate the first frame. */
export const LOG_HEADER_SIZE = HEADER_SIZE;
