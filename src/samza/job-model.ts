// The JobModel a plan describes: as objects (API, small jobs) or as JSON text
// produced in chunks (the CLI; large jobs never hold the whole text at once).
import { standbyContainerId, standbyTaskName } from './container-groupers.js';
import { taskSsps, type Grouping } from './grouping.js';
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
  const active: ContainerLayout[] = ids.map((id) => ({ id, tasks: [], replica: -1 }));
  for (let t = 0; t < containerOf.length; t++) active[containerOf[t]!]!.tasks.push(t);
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

/**
 * A growing byte buffer handed out in pieces. Text goes in as bytes: ASCII a character at a time
 * (no string per fragment), anything else through TextEncoder.
 */
class JsonBytes {
  buf = new Uint8Array(1 << 16);
  pos = 0;

  private need(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
  }

  bytes(b: Uint8Array): void {
    this.need(b.length);
    if (b.length < 32) for (let i = 0; i < b.length; i++) this.buf[this.pos++] = b[i]!;
    else {
      this.buf.set(b, this.pos);
      this.pos += b.length;
    }
  }

  /** A string known to be ASCII (fixed fragments). */
  ascii(s: string): void {
    this.need(s.length);
    for (let i = 0; i < s.length; i++) this.buf[this.pos++] = s.charCodeAt(i);
  }

  /** A non-negative integer. */
  int(v: number): void {
    this.need(16);
    if (v < 10) {
      this.buf[this.pos++] = 48 + v;
      return;
    }
    let digits = 0;
    for (let x = v; x > 0; x = Math.floor(x / 10)) digits++;
    let at = this.pos + digits;
    this.pos = at;
    for (let x = v; x > 0; x = Math.floor(x / 10)) this.buf[--at] = 48 + (x % 10);
  }

  /** JSON.stringify(s): printable ASCII without quote or backslash is copied as it is. */
  jsonString(s: string): void {
    this.need(s.length + 2);
    const start = this.pos;
    this.buf[this.pos++] = 34;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 32 || c > 126 || c === 34 || c === 92) {
        this.pos = start;
        this.bytes(utf8.encode(q(s)));
        return;
      }
      this.buf[this.pos++] = c;
    }
    this.buf[this.pos++] = 34;
  }

  /** The bytes so far, as a piece of their own; the buffer starts again empty. */
  take(): Uint8Array {
    const piece = this.buf.subarray(0, this.pos);
    this.buf = new Uint8Array(this.buf.length);
    this.pos = 0;
    return piece;
  }
}

interface JsonParts {
  /** `{"system":..,"stream":..,"partition":` per stream of the rows, as bytes. */
  prefixes: Uint8Array[];
  /** The every-task SSPs as JSON bytes, in SSP order. */
  shared: Uint8Array[];
  /** Their stream as a sort key against the rows' streams: 2j+1 for rows' stream j, 2j between streams j-1 and j. */
  sharedStream: Int32Array;
}

function jsonParts(g: Grouping): JsonParts {
  const sharedStream = new Int32Array(g.everyTask.length);
  g.everyTask.forEach((e, k) => {
    let j = 0;
    while (j < g.streams.length && compareSystemStream(g.streams[j]!, e) < 0) j++;
    sharedStream[k] = j < g.streams.length && compareSystemStream(g.streams[j]!, e) === 0 ? 2 * j + 1 : 2 * j;
  });
  return {
    prefixes: g.streams.map((s) => utf8.encode(`{"system":${q(s.system)},"stream":${q(s.stream)},"partition":`)),
    shared: g.everyTask.map((e) => utf8.encode(sspJson(e))),
    sharedStream,
  };
}

/**
 * Task t's SSP list, straight from the flat rows: its rows (already in SSP order) merged with the
 * every-task SSPs (sorted), with no SSP objects even when broadcast inputs join every task.
 */
function writeTaskSsps(out: JsonBytes, g: Grouping, parts: JsonParts, t: number): void {
  const { prefixes, shared, sharedStream } = parts;
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
      if (!first) out.ascii(',');
      first = false;
      out.bytes(shared[e++]!);
    }
    if (same) continue;
    if (!first) out.ascii(',');
    first = false;
    out.bytes(prefixes[g.stream[i]!]!);
    out.int(p);
    if (b === -1) out.ascii('}');
    else {
      out.ascii(',"keyBucket":');
      out.int(b);
      out.ascii('}');
    }
  }
  for (; e < shared.length; e++) {
    if (!first) out.ascii(',');
    first = false;
    out.bytes(shared[e]!);
  }
}

/**
 * The JobModel JSON (format in docs/samza.md) as UTF-8, in pieces of about `pieceBytes` each (a
 * million tasks make some 120 MB). Each piece is a fresh array: it may be kept or written out
 * while the next one is made. Keys that come from users (config keys) are written with
 * JSON.stringify, never as object properties.
 */
export function* jobModelJsonBytes(plan: JobModelPlan, pieceBytes = 1 << 20): Generator<Uint8Array> {
  const out = new JsonBytes();
  const configKeys = [...plan.config.map.keys()].sort();
  out.bytes(utf8.encode(`{"config":{${configKeys.map((k) => `${q(k)}:${q(plan.config.map.get(k))}`).join(',')}},`));
  out.bytes(utf8.encode(`"mapper":${q(plan.mapper)},"maxChangeLogStreamPartitions":${plan.maxChangeLogStreamPartitions},`));
  out.bytes(
    utf8.encode(`"streams":[${plan.streams.map((s) => `{"stream":${q(s.name)},"partitions":${s.partitions},"basePartitions":${s.base}}`).join(',')}],"containers":[`),
  );
  const parts = jsonParts(plan.grouping);
  const layouts = containerLayouts(plan);
  for (let c = 0; c < layouts.length; c++) {
    const layout = layouts[c]!;
    out.bytes(utf8.encode(`${c > 0 ? ',' : ''}{"id":${q(layout.id)},"tasks":[`));
    const mode = layout.replica < 0 ? ',"mode":"Active","changelogPartition":' : ',"mode":"Standby","changelogPartition":';
    for (let k = 0; k < layout.tasks.length; k++) {
      const t = layout.tasks[k]!;
      out.ascii(k > 0 ? ',{"taskName":' : '{"taskName":');
      out.jsonString(taskNameIn(plan, layout, t));
      out.ascii(mode);
      out.int(plan.changelog[t]!);
      out.ascii(',"ssps":[');
      writeTaskSsps(out, plan.grouping, parts, t);
      out.ascii(']}');
      if (out.pos >= pieceBytes) yield out.take();
    }
    out.ascii(']}');
  }
  out.ascii(']}\n');
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
