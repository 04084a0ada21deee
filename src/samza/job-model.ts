// The JobModel a plan describes: as objects (API, small jobs) or as JSON text
// produced in chunks (the CLI; large jobs never hold the whole text at once).
import { AsciiColumn } from '../columns/ascii-column.js';
import type { Texts } from '../columns/texts.js';
import { standbyContainerId, standbyTaskName } from './container-groupers.js';
import { taskNames, taskSsps, type Grouping } from './grouping.js';
import { putDecimal } from './decimal-bytes.js';
import type { JobModelPlan } from './plan.js';
import { compareSystemStream, type ContainerModel, type SSP, type TaskModel } from './model.js';

export interface JobModel {
  config: Map<string, string>;
  /** Active containers in grouper order, then standby containers (`<id>-<r>`). */
  containers: ContainerModel[];
  maxChangeLogStreamPartitions: number;
}

/** One container's tasks: indices into plan.grouping.tasks, name-sorted. */
export interface ContainerLayout {
  id: string;
  tasks: number[];
  /** -1 for active containers, else the standby replica number r. */
  replica: number;
}

export function containerLayouts(plan: JobModelPlan): ContainerLayout[] {
  const { ids, containerOf } = plan.containers;
  // Counted first, then filled: arrays made at their size take half the time of a million pushes.
  const sizes = new Int32Array(ids.length);
  for (let t = 0; t < containerOf.length; t++) sizes[containerOf[t]!]!++;
  const active: ContainerLayout[] = ids.map((id, c) => ({ id, tasks: new Array<number>(sizes[c]!), replica: -1 }));
  const filled = new Int32Array(ids.length);
  for (let t = 0; t < containerOf.length; t++) {
    const c = containerOf[t]!;
    active[c]!.tasks[filled[c]!++] = t;
  }
  const out = [...active];
  const r = plan.settings.replicationFactor;
  if (r > 1) for (const c of [...out]) for (let k = 0; k < r - 1; k++) out.push({ id: standbyContainerId(c.id, k), tasks: c.tasks, replica: k });
  return out;
}

export function taskNameIn(plan: JobModelPlan, layout: ContainerLayout, t: number): string {
  const name = plan.grouping.tasks[t]!;
  return layout.replica < 0 ? name : standbyTaskName(name, layout.replica);
}

export function toJobModel(plan: JobModelPlan): JobModel {
  const g: Grouping = plan.grouping;
  const containers: ContainerModel[] = containerLayouts(plan).map((c) => ({
    id: c.id,
    tasks: c.tasks.map(
      (t): TaskModel => ({
        taskName: taskNameIn(plan, c, t),
        ssps: taskSsps(g, t),
        changelogPartition: plan.changelog[t]!,
        mode: c.replica < 0 ? 'Active' : 'Standby',
      }),
    ),
  }));
  return { config: new Map(plan.config.map), containers, maxChangeLogStreamPartitions: plan.maxChangeLogStreamPartitions };
}

const q = JSON.stringify;
const utf8 = new TextEncoder();

function sspJson(s: SSP): string {
  return s.keyBucket === -1
    ? `{"system":${q(s.system)},"stream":${q(s.stream)},"partition":${s.partition}}`
    : `{"system":${q(s.system)},"stream":${q(s.stream)},"partition":${s.partition},"keyBucket":${s.keyBucket}}`;
}

// The byte writer. A million tasks make some 136 MB, written a task at a time into plain local
// `buf`/`pos` variables by small functions V8 inlines: no string and no object per task.

/** Copies a fixed fragment and returns the position after it (measured: a loop beats TypedArray.set below ~16 bytes). */
function put(buf: Uint8Array, pos: number, b: Uint8Array): number {
  const n = b.length;
  if (n > 15) {
    buf.set(b, pos);
    return pos + n;
  }
  for (let i = 0; i < n; i++) buf[pos + i] = b[i]!;
  return pos + n;
}

/** Longest decimal text of an int32 (`-2147483648`): what a task's byte bound allows per integer. */
const INT_BYTES = 11;

/** A non-negative int32 (partitions, buckets and changelog partitions come from Int32Arrays) in decimal. */
function putInt(buf: Uint8Array, pos: number, v: number): number {
  if (v < 10 && v >= 0) {
    buf[pos] = 48 + v;
    return pos + 1;
  }
  if (v < 0 || v > 0x7fffffff) return put(buf, pos, utf8.encode(String(v))); // never from an Int32Array row; kept correct
  return putDecimal(buf, pos, v);
}

/** 1 for the ASCII characters JSON.stringify leaves as they are (a table: one test per character, not four). */
const PLAIN = new Uint8Array(128).map((_, c) => (c >= 32 && c < 127 && c !== 34 && c !== 92 ? 1 : 0));

/** Most UTF-8 bytes JSON.stringify(s) gives per UTF-16 unit (an escape such as `\u001f` or `\ud800`). */
const JSON_BYTES_PER_UNIT = 6;

/**
 * JSON.stringify(names.at(t)) without its quotes. A byte column's plain row (the planner's names)
 * is copied as it lies; a string goes through putStringBody. Needs JSON_BYTES_PER_UNIT *
 * names.lengthOf(t) bytes of room.
 */
function putName(buf: Uint8Array, pos: number, names: Texts, t: number): number {
  if (names instanceof AsciiColumn) {
    // Copied while checked (the bytes are ASCII: PLAIN says which JSON leaves as they are).
    const bytes = names.bytes;
    const from = names.off[t]!;
    const n = names.off[t + 1]! - from;
    let k = 0;
    for (; k < n; k++) {
      const c = bytes[from + k]!;
      if (PLAIN[c] === 0) break;
      buf[pos + k] = c;
    }
    if (k === n) return pos + n;
  }
  return putStringBody(buf, pos, names.at(t));
}

/**
 * JSON.stringify(s) without its quotes. Printable ASCII without quote or backslash (task names
 * such as `Partition 12`) is copied in the same loop that checks it; anything else goes through
 * JSON.stringify and TextEncoder. Needs JSON_BYTES_PER_UNIT * s.length bytes of room.
 */
function putStringBody(buf: Uint8Array, pos: number, s: string): number {
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 127 || PLAIN[c] === 0) {
      const b = utf8.encode(q(s));
      buf.set(b.subarray(1, b.length - 1), pos);
      return pos + b.length - 2;
    }
    buf[pos + i] = c;
  }
  return pos + n;
}

/**
 * Pieces of output: a buffer of about the piece size that is handed out as it is and replaced by a
 * fresh one (a piece may be kept by the caller, so a buffer is never reused).
 */
class PieceWriter {
  buf: Uint8Array;
  pos = 0;

  constructor(private readonly capacity: number) {
    this.buf = new Uint8Array(capacity);
  }

  /** Makes room for n more bytes (rarely: a task bigger than the slack, or a piece size of a few bytes). */
  room(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) {
      const grown = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
      grown.set(this.buf.subarray(0, this.pos));
      this.buf = grown;
    }
    return this.buf;
  }

  bytes(b: Uint8Array): void {
    this.pos = put(this.room(b.length), this.pos, b);
  }

  text(s: string): void {
    this.bytes(utf8.encode(s));
  }

  /** The bytes so far, as a piece of their own; writing goes on in a fresh buffer. */
  take(): Uint8Array {
    const piece = this.buf.subarray(0, this.pos);
    this.buf = new Uint8Array(this.capacity);
    this.pos = 0;
    return piece;
  }
}

/** The fixed fragments of the tasks' JSON, encoded once per job. */
interface JsonParts {
  /** `{"system":..,"stream":..,"partition":` per stream of the rows. */
  prefixes: Uint8Array[];
  /** The same after `,"ssps":[` (a task's first SSP) and after `,` (the others): one copy per SSP. */
  firstPrefixes: Uint8Array[];
  nextPrefixes: Uint8Array[];
  /** The longest prefix, for a task's byte bound. */
  prefixMax: number;
  /** The every-task SSPs as JSON bytes, in SSP order, and their total length. */
  shared: Uint8Array[];
  sharedBytes: number;
  /** Their stream as a sort key against the rows' streams: 2j+1 for rows' stream j, 2j between streams j-1 and j. */
  sharedStream: Int32Array;
}

const SSPS_OPEN = utf8.encode(',"ssps":[');
const KEY_BUCKET = utf8.encode(',"keyBucket":');

function jsonParts(g: Grouping): JsonParts {
  const sharedStream = new Int32Array(g.everyTask.length);
  g.everyTask.forEach((e, k) => {
    let j = 0;
    while (j < g.streams.length && compareSystemStream(g.streams[j]!, e) < 0) j++;
    sharedStream[k] = j < g.streams.length && compareSystemStream(g.streams[j]!, e) === 0 ? 2 * j + 1 : 2 * j;
  });
  const prefixes = g.streams.map((s) => `{"system":${q(s.system)},"stream":${q(s.stream)},"partition":`);
  const shared = g.everyTask.map((e) => utf8.encode(sspJson(e)));
  const encoded = prefixes.map((p) => utf8.encode(p));
  return {
    prefixes: encoded,
    firstPrefixes: prefixes.map((p) => utf8.encode(`,"ssps":[${p}`)),
    nextPrefixes: prefixes.map((p) => utf8.encode(`,${p}`)),
    prefixMax: encoded.reduce((n, b) => Math.max(n, b.length), 0),
    shared,
    sharedBytes: shared.reduce((n, b) => n + b.length + 1, 0),
    sharedStream,
  };
}

/**
 * Task t's `,"ssps":[...]` from the flat rows (already in SSP order), when no every-task SSPs join
 * them: the common case, with the list's opening and each SSP's start copied as one fragment.
 */
function putRowSsps(buf: Uint8Array, pos: number, g: Grouping, parts: JsonParts, t: number): number {
  const start = g.taskStart[t]!;
  const end = g.taskStart[t + 1]!;
  if (start === end) return put(buf, pos, SSPS_OPEN);
  for (let k = start; k < end; k++) {
    const i = g.order[k]!;
    const s = g.stream[i]!;
    pos = put(buf, pos, k === start ? parts.firstPrefixes[s]! : parts.nextPrefixes[s]!);
    pos = putInt(buf, pos, g.partition[i]!);
    const b = g.bucket === null ? -1 : g.bucket[i]!;
    if (b !== -1) pos = putInt(buf, put(buf, pos, KEY_BUCKET), b);
    buf[pos++] = 125; // }
  }
  return pos;
}

/**
 * Task t's `,"ssps":[...]` with the every-task SSPs (broadcast inputs): its rows merged with them
 * (sorted), with no SSP objects even when broadcast inputs join every task.
 */
function putMergedSsps(buf: Uint8Array, pos: number, g: Grouping, parts: JsonParts, t: number): number {
  const { prefixes, shared, sharedStream } = parts;
  pos = put(buf, pos, SSPS_OPEN);
  let first = true;
  let e = 0;
  for (let k = g.taskStart[t]!; k < g.taskStart[t + 1]!; k++) {
    const i = g.order[k]!;
    const st = 2 * g.stream[i]! + 1;
    const p = g.partition[i]!;
    const b = g.bucket === null ? -1 : g.bucket[i]!;
    // Every-task SSPs that sort before this row; an equal one is the same SSP, written once.
    let same = false;
    while (e < shared.length) {
      const ep = g.everyTask[e]!;
      const c = sharedStream[e]! - st || ep.partition - p || ep.keyBucket - b;
      if (c > 0) break;
      if (c === 0) same = true;
      if (!first) buf[pos++] = 44; // ,
      first = false;
      pos = put(buf, pos, shared[e++]!);
    }
    if (same) continue;
    if (!first) buf[pos++] = 44;
    first = false;
    pos = putInt(buf, put(buf, pos, prefixes[g.stream[i]!]!), p);
    if (b !== -1) pos = putInt(buf, put(buf, pos, KEY_BUCKET), b);
    buf[pos++] = 125;
  }
  for (; e < shared.length; e++) {
    if (!first) buf[pos++] = 44;
    first = false;
    pos = put(buf, pos, shared[e]!);
  }
  return pos;
}

/** One container's fixed task fragments: a standby task's name is `Standby-<task>-<r>`, written around the task's name. */
interface TaskFragments {
  /** `{"taskName":"` (or with `Standby-`). */
  open: Uint8Array;
  /** The name's end, `","mode":..,"changelogPartition":`. */
  afterName: Uint8Array;
}

function taskFragments(layout: ContainerLayout): TaskFragments {
  // JSON.stringify(`Standby-${name}-${r}`) is `"Standby-` + JSON.stringify(name) unquoted + `-r"`:
  // the added characters are plain ASCII, and they cannot pair with a lone surrogate in the name.
  const standby = layout.replica >= 0;
  return {
    open: utf8.encode(standby ? '{"taskName":"Standby-' : '{"taskName":"'),
    afterName: utf8.encode(standby ? `-${layout.replica}","mode":"Standby","changelogPartition":` : '","mode":"Active","changelogPartition":'),
  };
}

/**
 * Writes layout.tasks[from..] until the piece is full (or the container ends); returns the next
 * index. A task's bytes are bounded first, so the writes need no checks of their own.
 */
function putTasks(w: TasksWriter, layout: ContainerLayout, frag: TaskFragments, from: number): number {
  const { out, plan, parts, pieceBytes } = w;
  const g = plan.grouping;
  const names = taskNames(g);
  const tasks = layout.tasks;
  const merge = parts.shared.length > 0;
  const bucketBytes = g.bucket === null ? 0 : KEY_BUCKET.length + INT_BYTES;
  const fixed = 1 + frag.open.length + frag.afterName.length + INT_BYTES + SSPS_OPEN.length + parts.sharedBytes + 2;
  // A row: `,"ssps":[` (first) or `,`, its stream's prefix, partition, bucket, `}`.
  const perRow = SSPS_OPEN.length + parts.prefixMax + INT_BYTES + bucketBytes + 1;
  let buf = out.buf;
  let pos = out.pos;
  let k = from;
  for (; k < tasks.length && pos < pieceBytes; k++) {
    const t = tasks[k]!;
    const bound = fixed + JSON_BYTES_PER_UNIT * names.lengthOf(t) + perRow * (g.taskStart[t + 1]! - g.taskStart[t]!);
    if (pos + bound > buf.length) {
      out.pos = pos;
      buf = out.room(bound);
    }
    const start = pos;
    if (k > 0) buf[pos++] = 44; // ,
    pos = put(buf, pos, frag.open);
    pos = putName(buf, pos, names, t);
    pos = put(buf, pos, frag.afterName);
    pos = putInt(buf, pos, plan.changelog[t]!);
    pos = merge ? putMergedSsps(buf, pos, g, parts, t) : putRowSsps(buf, pos, g, parts, t);
    buf[pos++] = 93; // ]
    buf[pos++] = 125; // }
    // A typed array drops writes past its end without a word: a wrong bound must fail loudly instead.
    if (pos - start > bound) throw new Error(`JobModel writer: task ${q(names.at(t))} took ${pos - start} bytes, more than its bound ${bound}`);
  }
  out.pos = pos;
  return k;
}

/** What putTasks shares across containers: the pieces, the plan, its JSON parts and the piece size. */
interface TasksWriter {
  out: PieceWriter;
  plan: JobModelPlan;
  parts: JsonParts;
  pieceBytes: number;
}

/** Room a piece's buffer has beyond the piece size, so that the task that crosses it rarely needs a bigger buffer. */
const PIECE_SLACK = 1 << 12;

/**
 * The JobModel JSON (format in docs/samza.md) as UTF-8, in pieces of about `pieceBytes` each (a
 * million tasks make some 136 MB). Each piece is a fresh array: it may be kept or written out
 * while the next one is made. Keys that come from users (config keys) are written with
 * JSON.stringify, never as object properties.
 */
export function* jobModelJsonBytes(plan: JobModelPlan, pieceBytes = 1 << 20): Generator<Uint8Array> {
  const out = new PieceWriter(pieceBytes + PIECE_SLACK);
  const configKeys = [...plan.config.map.keys()].sort();
  out.text(`{"config":{${configKeys.map((k) => `${q(k)}:${q(plan.config.map.get(k))}`).join(',')}},`);
  out.text(`"mapper":${q(plan.mapper)},"maxChangeLogStreamPartitions":${plan.maxChangeLogStreamPartitions},`);
  out.text(`"streams":[${plan.streams.map((s) => `{"stream":${q(s.name)},"partitions":${s.partitions},"basePartitions":${s.base}}`).join(',')}],"containers":[`);
  const w: TasksWriter = { out, plan, parts: jsonParts(plan.grouping), pieceBytes };
  const layouts = containerLayouts(plan);
  for (let c = 0; c < layouts.length; c++) {
    const layout = layouts[c]!;
    const frag = taskFragments(layout);
    out.text(`${c > 0 ? ',' : ''}{"id":${q(layout.id)},"tasks":[`);
    for (let k = 0; k < layout.tasks.length; ) {
      k = putTasks(w, layout, frag, k);
      if (out.pos >= pieceBytes) yield out.take();
    }
    out.text(']}');
  }
  out.text(']}\n');
  yield out.take();
}

/** The JobModel JSON as text, in chunks (jobModelJsonBytes decoded; a chunk never splits a character). */
export function* jobModelJsonChunks(plan: JobModelPlan): Generator<string> {
  const decoder = new TextDecoder();
  for (const piece of jobModelJsonBytes(plan)) yield decoder.decode(piece, { stream: true });
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

export function jobModelJson(plan: JobModelPlan): string {
  let s = '';
  for (const chunk of jobModelJsonChunks(plan)) s += chunk;
  return s;
}
