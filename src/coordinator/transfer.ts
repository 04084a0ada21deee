// Samza users' way in and out: a job's coordinator stream (its Kafka topic, or a dump of its
// messages) copied into a store, and a store written out as a dump. The dump format is JSON Lines,
// one message per line, exactly as on the topic:
//   {"key":"[1,\"set-changelog\",\"Partition 0\"]","value":"{\"host\":...,\"values\":{\"Partition\":\"0\"}}"}
// `value` null is a tombstone. Reading also takes a JSON array of such objects, and `key` as the
// parsed array or `value` as the parsed envelope object (hand-written dumps).
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { AssignorError, describe } from '../errors.js';
import { ReplayedState } from '../store/replayed-state.js';
import type { StoreRecord, CoordinatorStoreBackend, SspAssignment, SspRows } from '../store/backend.js';
import { SSP_TYPE } from '../store/state.js';

/** What a copy reads: the read side of a store. */
export interface ReadableStore {
  readonly location: string;
  readonly size: number;
  types(): string[];
  entries(type: string): Map<string, unknown>;
  sspAssignment(): SspAssignment;
}

/** A dump of coordinator-stream messages replayed in file order (last message wins, null deletes). */
export class MessageDump extends ReplayedState implements ReadableStore {
  /** Messages read (tombstones included). */
  messagesRead = 0;

  private constructor(readonly location: string) {
    super();
  }

  /** Reads a dump file (JSON Lines, or a JSON array). Throws E_IMPORT_DUMP naming the line, E_STORE_FORMAT for a bad key or envelope. */
  static async read(file: string): Promise<MessageDump> {
    const dump = new MessageDump(file);
    if (await startsWithBracket(file)) {
      let all: unknown;
      try {
        all = JSON.parse(readFileSync(file, 'utf8'));
      } catch (e) {
        throw new AssignorError('E_IMPORT_DUMP', `${file} is not valid JSON: ${(e as Error).message}`, file);
      }
      if (!Array.isArray(all)) throw new AssignorError('E_IMPORT_DUMP', `${file} must hold a JSON array of {"key", "value"} messages`, file);
      all.forEach((m, i) => dump.add(m, `${file}[${i}]`));
      return dump;
    }
    const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
    let n = 0;
    for await (const line of lines) {
      n++;
      if (line.trim() === '') continue;
      let m: unknown;
      try {
        m = JSON.parse(line);
      } catch (e) {
        throw new AssignorError('E_IMPORT_DUMP', `${file} line ${n} is not JSON: ${(e as Error).message}`, `${file}:${n}`);
      }
      dump.add(m, `${file}:${n}`);
    }
    return dump;
  }

  private add(m: unknown, where: string): void {
    if (typeof m !== 'object' || m === null || Array.isArray(m)) throw new AssignorError('E_IMPORT_DUMP', `${where}: a message must be an object {"key", "value"}, got ${describe(m)}`, where);
    const o = m as Record<string, unknown>;
    if (!Object.hasOwn(o, 'key') || !Object.hasOwn(o, 'value')) throw new AssignorError('E_IMPORT_DUMP', `${where}: a message needs both "key" and "value" (null for a tombstone)`, where);
    const key = typeof o.key === 'string' ? o.key : Array.isArray(o.key) ? JSON.stringify(o.key) : undefined;
    if (key === undefined) throw new AssignorError('E_IMPORT_DUMP', `${where}: "key" must be the key's JSON text or the array [1, "<type>", "<key>"], got ${describe(o.key)}`, where);
    const v = o.value;
    const value = v === null ? null : typeof v === 'string' ? v : typeof v === 'object' && !Array.isArray(v) ? JSON.stringify(v) : undefined;
    if (value === undefined) throw new AssignorError('E_IMPORT_DUMP', `${where}: "value" must be the envelope's JSON text, the envelope object, or null, got ${describe(v)}`, where);
    this.applyRecord(key, value, where);
    this.messagesRead++;
  }
}

/** Whether the file's first non-blank character is `[` (a JSON array rather than JSON Lines). */
async function startsWithBracket(file: string): Promise<boolean> {
  try {
    const stream = createReadStream(file, { encoding: 'utf8', start: 0, end: 4095 });
    let head = '';
    for await (const chunk of stream) head += chunk as string;
    return head.trimStart().startsWith('[');
  } catch (e) {
    throw new AssignorError('E_INPUT', `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, file);
  }
}

export interface CopyReport {
  /** Live messages copied, and how many of them were SSP assignment rows (written as columns). */
  messages: number;
  sspRows: number;
  types: string[];
}

/**
 * Copies every live message of `source` into `target` in one write (values as read; each message
 * gets the target's envelope). The target must be empty (E_IMPORT_NOT_EMPTY): merging two jobs'
 * states would make a third that neither had.
 */
export async function copyStore(source: ReadableStore, target: CoordinatorStoreBackend): Promise<CopyReport> {
  if (target.size > 0) {
    throw new AssignorError('E_IMPORT_NOT_EMPTY', `${target.location} already holds ${target.size} messages; import into an empty store (a new directory or topic)`, target.location);
  }
  const records: StoreRecord[] = [];
  const types = source.types();
  const assignment = source.sspAssignment();
  for (const type of types) {
    // The SSP assignment's canonical rows go as columns; only its other keys (older Samza) as records.
    const entries = type === SSP_TYPE ? assignment.others() : source.entries(type);
    for (const [key, value] of entries) records.push({ type, key, value });
  }
  const ssps = liveRows(assignment);
  await target.commit(records, ssps);
  return { messages: records.length + ssps.n, sspRows: ssps.n, types };
}

/** The live rows of an SSP assignment as fresh columns (dead rows would be written as tombstones). */
function liveRows(a: SspAssignment): SspRows {
  const cols = { stream: new Int32Array(a.live), partition: new Int32Array(a.live), bucket: new Int32Array(a.live), list: new Int32Array(a.live) };
  let w = 0;
  for (let r = 0; r < a.rows; r++) {
    if (a.list[r]! < 0) continue;
    cols.stream[w] = a.stream[r]!;
    cols.partition[w] = a.partition[r]!;
    cols.bucket[w] = a.bucket[r]!;
    cols.list[w] = a.list[r]!;
    w++;
  }
  return { streams: a.streams, lists: a.lists, n: w, ...cols };
}

/** Writes every live message of a store as JSON Lines (the dump format above). */
export async function writeDump(store: CoordinatorStoreBackend, write: (text: string) => Promise<void>): Promise<number> {
  let n = 0;
  let buf = '';
  for (const m of store.messages()) {
    buf += `{"key":${JSON.stringify(m.key)},"value":${JSON.stringify(m.value)}}\n`;
    n++;
    if (buf.length >= 1 << 20) {
      await write(buf);
      buf = '';
    }
  }
  await write(buf);
  return n;
}
