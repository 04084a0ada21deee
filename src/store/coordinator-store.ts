// The embedded coordinator stream: an append-only, CRC-framed log of Samza coordinator-stream
// messages on local disk, replayed into Maps at open (last write wins, null value = delete).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AssignorError, fail } from '../errors.js';
import { decodeHeader, encodeFrame, encodeHeader, HEADER_SIZE, MAX_BODY, newFileId, scanFrames, type TextEntry } from './format.js';
import { fsyncDir, ioError, mkdirs, readFully, unlinkQuietly, writeFully, writeNewFile } from './fsutil.js';
import { acquireLock, type Lock, type LockHolder } from './lock.js';
import { decodeEnvelope, decodeKey, encodeEnvelope, encodeKey, type Envelope } from './messages.js';

/** File names inside the store directory. */
export const LOG_FILE = 'coordinator.log';
export const LOCK_FILE = 'coordinator.lock';
/** Temporary files (creation, compaction) are `coordinator.log.<what>-<pid>.tmp`; a writer's open removes them. */
const TEMP_RE = /^coordinator\.log\..*\.tmp$/;

export interface StoreOptions {
  /** Open without the lock and never write or truncate; the state is a snapshot taken at open. */
  readOnly?: boolean;
  /**
   * Writer only. When a damaged frame is followed by good ones (not a crash: see docs/store.md),
   * copy the whole log to `coordinator.log.corrupt-<time>` and truncate at the damage, instead of
   * refusing to open.
   */
  repair?: boolean;
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
  /** Set when a stale lock from a dead process was taken over. */
  staleLock: LockHolder | undefined;
  /** Leftover temporary files the writer removed. */
  removedTempFiles: string[];
}

type TypeMap = Map<string, string>; // key -> envelope JSON text

export class CoordinatorStore {
  /** The log file. */
  readonly path: string;
  readonly dir: string;
  readonly readOnly: boolean;
  readonly openReport: OpenReport;

  private state = new Map<string, TypeMap>();
  private fd: number | undefined;
  private lock: Lock | undefined;
  private fileId: Buffer;
  private end: number;
  private closed = false;
  /** Set after an fsync failure: what is on disk is unknown, so no more writes until reopened. */
  private broken: string | undefined;
  private readonly meta: { host: string; username: string; now: () => number };

  private constructor(
    dir: string,
    readOnly: boolean,
    init: { fd: number | undefined; lock: Lock | undefined; fileId: Buffer; end: number; report: OpenReport },
    options: StoreOptions,
  ) {
    this.dir = dir;
    this.path = path.join(dir, LOG_FILE);
    this.readOnly = readOnly;
    this.fd = init.fd;
    this.lock = init.lock;
    this.fileId = init.fileId;
    this.end = init.end;
    this.openReport = init.report;
    this.meta = {
      host: options.host ?? os.hostname(),
      username: options.username ?? safeUsername(),
      now: options.now ?? Date.now,
    };
  }

  /**
   * Opens (and, unless readOnly, creates) the store in `dir`. A writer takes the lock, removes
   * leftover temp files and truncates a torn tail. Throws AssignorError: E_STORE_LOCKED,
   * E_STORE_FORMAT, E_STORE_VERSION, E_STORE_CORRUPT, E_STORE_NOT_FOUND, E_STORE_IO.
   */
  static open(dir: string, options: StoreOptions = {}): CoordinatorStore {
    const abs = path.resolve(dir);
    return options.readOnly ? openReadOnly(abs, options) : openWriter(abs, options);
  }

  /** Bytes dropped (writer) or ignored (read-only) from a torn tail at open; 0 if the file was clean. */
  get truncatedBytes(): number {
    return this.openReport.truncatedBytes;
  }

  // ---- reads -------------------------------------------------------------------------------

  /** The message's `values` payload (parsed JSON, a fresh copy), or undefined if absent or deleted. */
  get(type: string, key: string): unknown | undefined {
    return this.message(type, key)?.values;
  }

  has(type: string, key: string): boolean {
    this.checkOpen();
    checkNames(type, key);
    return this.state.get(type)?.has(key) ?? false;
  }

  /** The whole value envelope (host, username, source, timestamp, values), or undefined. */
  message(type: string, key: string): Envelope | undefined {
    this.checkOpen();
    checkNames(type, key);
    const text = this.state.get(type)?.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as Envelope);
  }

  /** key -> values for one type, in first-write order (a key deleted and re-put moves to the end). */
  entries(type: string): Map<string, unknown> {
    this.checkOpen();
    checkNames(type, '');
    const out = new Map<string, unknown>();
    for (const [k, text] of this.state.get(type) ?? []) out.set(k, (JSON.parse(text) as Envelope).values);
    return out;
  }

  /** Types that currently hold at least one live key, in first-write order. */
  types(): string[] {
    this.checkOpen();
    return [...this.state].filter(([, m]) => m.size > 0).map(([t]) => t);
  }

  /** Number of live keys over all types. */
  get size(): number {
    let n = 0;
    for (const m of this.state.values()) n += m.size;
    return n;
  }

  /** Bytes of the log file that hold good frames (the append position). */
  get fileBytes(): number {
    return this.end;
  }

  // ---- writes ------------------------------------------------------------------------------

  /** Appends one record and fsyncs. A null value is a delete, as in Samza. */
  put(type: string, key: string, value: unknown): void {
    this.writeBatch([{ type, key, value }]);
  }

  /** Appends a tombstone for the key (written even when the key is absent, as Samza does). */
  delete(type: string, key: string): void {
    this.writeBatch([{ type, key, value: null }]);
  }

  /**
   * Appends all records as ONE frame with one fsync. The frame is atomic: after a crash either
   * every record of the batch is there or none is. Records apply in order. An empty batch writes nothing.
   */
  writeBatch(records: ReadonlyArray<StoreRecord>): void {
    this.checkWritable();
    if (!Array.isArray(records)) fail('E_STORE_ARG', 'writeBatch expects an array of { type, key, value }');
    if (records.length === 0) return;
    const timestamp = this.meta.now();
    const text: TextEntry[] = new Array(records.length);
    const applied: Array<{ type: string; key: string; envelope: string | null }> = new Array(records.length);
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      const where = `records[${i}]`;
      if (typeof r !== 'object' || r === null) fail('E_STORE_ARG', `${where} must be an object { type, key, value }`, where);
      checkNames(r.type, r.key, where);
      const envelope =
        r.value === null
          ? null
          : encodeEnvelope(r.value, { host: this.meta.host, username: this.meta.username, timestamp }, `${r.type} ${JSON.stringify(r.key)}`);
      text[i] = { key: encodeKey(r.type, r.key), value: envelope };
      applied[i] = { type: r.type, key: r.key, envelope };
    }
    const frame = encodeFrame(this.fileId, text);
    this.appendDurably(frame);
    for (const a of applied) this.apply(a.type, a.key, a.envelope);
  }

  /**
   * Rewrites the log with only the live value of each key, atomically: a temp file is written and
   * fsync'd, renamed over the log, and the directory fsync'd. A failure before the rename leaves
   * the old log as it was; after it, old and new logs hold the same state.
   */
  compact(): void {
    this.checkWritable();
    const tmp = path.join(this.dir, `${LOG_FILE}.compact-${process.pid}.tmp`);
    const fileId = newFileId();
    const chunks: Buffer[] = [encodeHeader(fileId)];
    let batch: TextEntry[] = [];
    let batchBytes = 0;
    const flush = (): void => {
      if (batch.length > 0) chunks.push(encodeFrame(fileId, batch));
      batch = [];
      batchBytes = 0;
    };
    for (const [type, m] of this.state) {
      for (const [key, envelope] of m) {
        const entry = { key: encodeKey(type, key), value: envelope };
        const bytes = 8 + Buffer.byteLength(entry.key) + Buffer.byteLength(envelope);
        // ~4 MiB frames stay far below MAX_BODY however big the store; the rename makes the file atomic anyway.
        if (batchBytes + bytes > Math.min(4 << 20, MAX_BODY) && batch.length > 0) flush();
        batch.push(entry);
        batchBytes += bytes;
      }
    }
    flush();
    try {
      unlinkQuietly(tmp);
      writeNewFile(tmp, chunks);
      fs.renameSync(tmp, this.path);
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
      fsyncDir(this.dir);
      this.fd = fs.openSync(this.path, 'r+');
    } catch (e) {
      this.broken = `reopening the log after compaction failed (${(e as Error).message})`;
      ioError(e, 'reopening after compaction', this.path);
    }
    this.fileId = fileId;
    this.end = chunks.reduce((n, c) => n + c.length, 0);
    // Drop empty type maps: the new file has no trace of them.
    for (const [t, m] of this.state) if (m.size === 0) this.state.delete(t);
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

  /** Replays one message into the in-memory state. */
  private apply(type: string, key: string, envelope: string | null): void {
    let m = this.state.get(type);
    if (envelope === null) {
      m?.delete(key);
      return;
    }
    if (m === undefined) this.state.set(type, (m = new Map()));
    m.set(key, envelope);
  }

  /**
   * Writes the frame at the end and fsyncs. On a failed write the file is cut back to where it was,
   * so a later append never lands behind a half-written frame. A failed fsync leaves the outcome
   * unknown, so the store refuses further writes (reopen to see what the disk holds).
   */
  private appendDurably(frame: Buffer): void {
    const fd = this.fd!;
    const start = this.end;
    let phase = 'appending to';
    try {
      writeFully(fd, frame, start);
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
      ioError(e, phase, this.path);
    }
    this.end = start + frame.length;
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

  /** @internal Builds a store from an already validated log buffer. */
  static fromLog(
    dir: string,
    buf: Buffer,
    readOnly: boolean,
    io: { fd: number | undefined; lock: Lock | undefined; report: OpenReport },
    options: StoreOptions,
  ): { store: CoordinatorStore; goodEnd: number; tail: ReturnType<typeof scanFrames>['tail'] } {
    const file = path.join(dir, LOG_FILE);
    const { fileId } = decodeHeader(buf, file);
    const scan = scanFrames(buf, fileId);
    const store = new CoordinatorStore(dir, readOnly, { ...io, fileId, end: scan.goodEnd }, options);
    let goodEnd = scan.goodEnd;
    let tail = scan.tail;
    for (const frame of scan.frames) {
      const decoded = decodeFrameMessages(frame.entries);
      if (typeof decoded === 'string') {
        // CRC-valid but not a Samza message: written by something broken; treat like a malformed frame.
        goodEnd = frame.offset;
        tail = { kind: 'malformed', offset: frame.offset, reason: decoded };
        store.end = goodEnd;
        break;
      }
      for (const d of decoded) store.apply(d.type, d.key, d.envelope);
    }
    return { store, goodEnd, tail };
  }
}

function decodeFrameMessages(
  entries: ReturnType<typeof scanFrames>['frames'][number]['entries'],
): Array<{ type: string; key: string; envelope: string | null }> | string {
  const out: Array<{ type: string; key: string; envelope: string | null }> = [];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const k = decodeKey(e.key.toString('utf8'));
    if (k === undefined) return `entry ${i} key is not [1, "<type>", "<key>"]`;
    let envelope: string | null = null;
    if (e.value !== null) {
      envelope = e.value.toString('utf8');
      if (decodeEnvelope(envelope) === undefined) return `entry ${i} value is not a JSON object with "values"`;
    }
    out.push({ type: k.type, key: k.key, envelope });
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

function emptyReport(): OpenReport {
  return { truncatedBytes: 0, backupPath: undefined, staleLock: undefined, removedTempFiles: [] };
}

function corruptError(file: string, tail: { kind: 'corrupt' | 'malformed'; offset: number }, detail: string): AssignorError {
  return new AssignorError(
    'E_STORE_CORRUPT',
    `${file} is damaged at byte ${tail.offset} (${detail}). This is not an interrupted write, so nothing was changed; ` +
      `open with { repair: true } to keep a copy of the file and cut the log at that byte.`,
    `${file}@${tail.offset}`,
  );
}

function describeTail(tail: ReturnType<typeof scanFrames>['tail']): string {
  if (tail.kind === 'corrupt') return `bad frame, yet a valid frame follows at byte ${tail.resumesAt}`;
  if (tail.kind === 'malformed') return `frame CRC matches but its contents are malformed: ${tail.reason}`;
  return tail.kind;
}

function openReadOnly(dir: string, options: StoreOptions): CoordinatorStore {
  const file = path.join(dir, LOG_FILE);
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      fail('E_STORE_NOT_FOUND', `no coordinator store at ${dir} (${file} does not exist)`, file);
    }
    ioError(e, 'reading', file);
  }
  const report = emptyReport();
  const { store, goodEnd, tail } = CoordinatorStore.fromLog(dir, buf, true, { fd: undefined, lock: undefined, report }, options);
  if (tail.kind === 'corrupt' || tail.kind === 'malformed') throw corruptError(file, tail, describeTail(tail));
  // A torn tail may be a writer's append in flight: ignore it, never touch the file.
  report.truncatedBytes = buf.length - goodEnd;
  return store;
}

function openWriter(dir: string, options: StoreOptions): CoordinatorStore {
  const file = path.join(dir, LOG_FILE);
  try {
    mkdirs(dir);
  } catch (e) {
    ioError(e, 'creating directory', dir);
  }
  let lock: Lock;
  try {
    lock = acquireLock(path.join(dir, LOCK_FILE), dir);
  } catch (e) {
    ioError(e, 'locking', path.join(dir, LOCK_FILE));
  }
  let fd: number | undefined;
  try {
    const report = emptyReport();
    report.staleLock = lock.tookOverFrom;
    // We hold the lock, so any temp file is a leftover of a crashed writer: remove it.
    for (const name of fs.readdirSync(dir)) {
      if (TEMP_RE.test(name)) {
        fs.unlinkSync(path.join(dir, name));
        report.removedTempFiles.push(name);
      }
    }
    if (report.removedTempFiles.length > 0) fsyncDir(dir);
    if (!fs.existsSync(file)) createLog(dir, file);
    fd = fs.openSync(file, 'r+');
    const buf = readFully(fd);
    const { store, goodEnd, tail } = CoordinatorStore.fromLog(dir, buf, false, { fd, lock, report }, options);
    if (tail.kind === 'corrupt' || tail.kind === 'malformed') {
      if (!options.repair) throw corruptError(file, tail, describeTail(tail));
      report.backupPath = backUp(dir, buf);
    }
    if (goodEnd < buf.length) {
      fs.ftruncateSync(fd, goodEnd);
      fs.fsyncSync(fd);
      report.truncatedBytes = buf.length - goodEnd;
    }
    return store;
  } catch (e) {
    if (fd !== undefined) fs.closeSync(fd);
    lock.release();
    ioError(e, 'opening', file);
  }
}

/** A new log appears complete or not at all: header written to a temp file, fsync'd, renamed in. */
function createLog(dir: string, file: string): void {
  const tmp = path.join(dir, `${LOG_FILE}.create-${process.pid}.tmp`);
  writeNewFile(tmp, [encodeHeader(newFileId())]);
  fs.renameSync(tmp, file);
  fsyncDir(dir);
}

/** Copies the damaged log aside (fsync'd) before repair cuts it. */
function backUp(dir: string, buf: Buffer): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const backup = path.join(dir, `${LOG_FILE}.corrupt-${stamp}`);
  writeNewFile(backup, [buf]);
  fsyncDir(dir);
  return backup;
}

/** Header size, re-exported for tests and tools that locate the first frame. */
export const LOG_HEADER_SIZE = HEADER_SIZE;
